import { EgressError } from './errors.js';

/**
 * Outbound request headers. Names are lower-cased into a null-prototype map (so `__proto__`
 * or `constructor` are plain names, never object machinery); the caller cannot set anything
 * that changes where or how the request travels, or whose identity it carries.
 */

export type HeaderMap = Record<string, string>;

// RFC 9110 §5.6.2 token.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Values: visible ASCII, obs-text (Latin-1), spaces and tabs; never CR, LF, NUL or other controls.
const BAD_VALUE = /[^\t\u0020-\u007e\u0080-\u00ff]/;
const MAX_VALUE = 16 * 1024;
const MAX_HEADERS = 100;

const PROTECTED = new Set([
  'authorization',
  'host',
  'cookie',
  'content-length',
  'expect',
  'range',
  // Hop-by-hop (RFC 9110 §7.6.1) and their legacy companions.
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // Forwarding headers: they would let a caller speak for another client address.
  'forwarded',
  'x-real-ip',
  'via',
]);

/** Why a caller-supplied header name is refused, or null if it may be sent. */
export function protectedHeaderReason(lowerName: string): string | null {
  if (PROTECTED.has(lowerName)) return 'is set by the server and cannot be sent by callers';
  if (lowerName.startsWith('proxy-')) return 'is a proxy header and cannot be sent by callers';
  if (lowerName.startsWith('x-forwarded-')) return 'is a forwarding header and cannot be sent by callers';
  return null;
}

function checkOne(
  where: string,
  name: string,
  value: unknown,
  out: HeaderMap,
  forbidProtected: boolean,
): void {
  if (!TOKEN.test(name))
    throw new EgressError('invalid_request', `${where}: '${printable(name)}' is not a valid header name`);
  const lower = name.toLowerCase();
  if (typeof value !== 'string')
    throw new EgressError('invalid_request', `${where}: header '${name}' must be a string`);
  if (BAD_VALUE.test(value)) {
    throw new EgressError(
      'invalid_request',
      `${where}: header '${name}' contains CR, LF, NUL, another control character or a non-Latin-1 character`,
    );
  }
  if (value.length > MAX_VALUE)
    throw new EgressError('invalid_request', `${where}: header '${name}' is too long`);
  if (forbidProtected) {
    const reason = protectedHeaderReason(lower);
    if (reason) throw new EgressError('invalid_request', `${where}: header '${name}' ${reason}`);
  }
  if (lower in out)
    throw new EgressError('invalid_request', `${where}: header '${name}' is given more than once`);
  out[lower] = value;
}

function printable(s: string): string {
  const shown = s.length > 64 ? s.slice(0, 64) + '…' : s;
  return shown.replace(/[^\x20-\x7e]/g, '?');
}

/** Validate a headers object (caller's or a source's default_headers). Returns a null-prototype lower-case map. */
export function validateHeaders(headers: unknown, where = "'headers'"): HeaderMap {
  const out: HeaderMap = Object.create(null);
  if (headers === undefined || headers === null) return out;
  if (typeof headers !== 'object' || Array.isArray(headers)) {
    throw new EgressError('invalid_request', `${where} must be an object of strings`);
  }
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS)
    throw new EgressError('invalid_request', `${where} has more than ${MAX_HEADERS} headers`);
  for (const [name, value] of entries) checkOne(where, name, value, out, true);
  return out;
}

export interface UpstreamHeaderInput {
  /** The source's default_headers (already validated at CREATE DATABASE; validated again here). */
  defaults?: Record<string, string>;
  /** The caller's headers (override defaults of the same name). */
  caller?: unknown;
  /** Content type for the body when the caller set none. */
  contentType?: string;
  /** The bearer token; added last so nothing above can replace it. */
  token: string;
}

/** Defaults, then the caller's headers, then forced `accept-encoding: identity`, then the token. */
export function buildUpstreamHeaders(input: UpstreamHeaderInput): HeaderMap {
  const defaults = validateHeaders(input.defaults, "'default_headers'");
  const caller = validateHeaders(input.caller);
  const out: HeaderMap = Object.create(null);
  for (const k in defaults) out[k] = defaults[k]!;
  for (const k in caller) out[k] = caller[k]!;
  if (input.contentType && !('content-type' in out)) out['content-type'] = input.contentType;
  // Several APIs (GitHub among them) refuse requests without a User-Agent.
  if (!('user-agent' in out)) out['user-agent'] = 'tributary-passthrough';
  out['accept-encoding'] = 'identity';
  if (BAD_VALUE.test(input.token) || input.token.length === 0) {
    // Never echo the token: say only that it is unusable.
    throw new EgressError(
      'invalid_request',
      "the source's bearer_token is empty or contains control characters",
    );
  }
  out.authorization = `Bearer ${input.token}`;
  return out;
}
