import { domainToASCII } from 'node:url';
import { EgressError } from './errors.js';

/**
 * URLs for outbound calls, built by checked concatenation of a validated base and a validated
 * path (never `new URL(path, base)`, which lets `//evil.example` or `..` escape the base).
 * The result is re-parsed and held to the base's origin and path prefix.
 */

export interface BaseUrl {
  /** `scheme://host[:port][/base/path]` with no trailing slash. */
  href: string;
  origin: string;
  protocol: 'http:' | 'https:';
  /** Normalised host name (see normalizeHost), without port. */
  host: string;
  /** Base path without trailing slash; '' at the root. */
  pathname: string;
}

const MAX_PATH = 8192;
/** C0 controls, space, DEL and C1 controls. */
function isControlOrSpace(code: number): boolean {
  return code <= 0x20 || (code >= 0x7f && code <= 0x9f);
}

/** The first character of `s` that is a control, a space or one of `extra`, or null. */
function firstForbidden(s: string, extra: string): string | null {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isControlOrSpace(c) || extra.includes(s[i]!)) return s[i]!;
  }
  return null;
}
const PERCENT = /%([0-9A-Fa-f]{2})?/g;
// Decoded bytes that must not appear percent-encoded either: '/', '\', C0 controls, DEL.
const ENCODED_FORBIDDEN = new Set([0x2f, 0x5c, 0x7f, ...Array.from({ length: 0x20 }, (_, i) => i)]);

function invalid(message: string): EgressError {
  return new EgressError('invalid_request', message);
}

function describeChar(c: string): string {
  const code = c.codePointAt(0)!;
  if (c === ' ') return 'a space';
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f))
    return `a control character (U+${code.toString(16).padStart(4, '0').toUpperCase()})`;
  return `'${c}'`;
}

/** True for `.`/`..` in any spelling: raw, `%2e`/`%2E`, mixed, with `;params` (servlet containers strip them). */
function isDotSegment(segment: string): boolean {
  const beforeParams = segment.split(';', 1)[0]!;
  const decoded = beforeParams.replace(/%2e/gi, '.');
  return decoded === '.' || decoded === '..';
}

/**
 * docs/reference/http.md#rest-passthrough path rules. Throws EgressError('invalid_request') naming the problem.
 * The path must start with exactly one '/'; `%20` and other escapes of ordinary characters are allowed.
 */
export function validatePath(path: unknown): string {
  if (typeof path !== 'string') throw invalid("'path' must be a string starting with '/'");
  if (!path.startsWith('/')) throw invalid("'path' must start with '/'");
  if (path.length > MAX_PATH) throw invalid(`'path' is longer than ${MAX_PATH} characters`);
  const bad = firstForbidden(path, '?#\\');
  if (bad !== null) throw invalid(`'path' must not contain ${describeChar(bad)}`);
  if (path.includes('//')) throw invalid("'path' must not contain '//'");
  for (const m of path.matchAll(PERCENT)) {
    if (!m[1]) throw invalid("'path' contains a malformed percent-escape");
    const byte = Number.parseInt(m[1], 16);
    if (ENCODED_FORBIDDEN.has(byte)) throw invalid(`'path' must not contain the encoded character ${m[0]}`);
    // A double-encoded '.', '/' or '\' becomes dangerous behind any server that decodes twice.
    if (byte === 0x25 && /^%25(2e|2f|5c)/i.test(path.slice(m.index))) {
      throw invalid(
        `'path' must not contain the double-encoded sequence ${path.slice(m.index, m.index + 5)}`,
      );
    }
  }
  for (const segment of path.split('/')) {
    if (isDotSegment(segment)) throw invalid("'path' must not contain '.' or '..' segments");
  }
  return path;
}

/**
 * Host names compared for the allowlist: lower case, one trailing dot removed, IDNs in punycode,
 * IPv4 literals canonical (127.1 → 127.0.0.1), IPv6 in brackets and compressed.
 */
const hostCache = new Map<string, string>();
const HOST_CACHE_MAX = 1024;

export function normalizeHost(input: string): string {
  const hit = hostCache.get(input);
  if (hit !== undefined) return hit;
  const host = normalizeHostUncached(input);
  if (hostCache.size >= HOST_CACHE_MAX) hostCache.clear();
  hostCache.set(input, host);
  return host;
}

function normalizeHostUncached(input: string): string {
  if (typeof input !== 'string' || input.length === 0)
    throw invalid('a host name must be a non-empty string');
  if (/[\s/?#@\\]/.test(input)) throw invalid(`'${input}' is not a host name`);
  let h = input;
  if (h.includes(':') && !h.startsWith('[')) h = `[${h}]`;
  let u: URL;
  try {
    u = new URL(`http://${h}/`);
  } catch {
    throw invalid(`'${input}' is not a host name`);
  }
  if (u.port || u.username || u.password || u.pathname !== '/')
    throw invalid(`'${input}' is not a host name`);
  let host = u.hostname;
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.startsWith('[')) return host;
  const ascii = domainToASCII(host);
  if (!ascii || ascii.includes('*')) throw invalid(`'${input}' is not a host name`);
  return ascii;
}

/**
 * A base URL: http(s) only, no user information, query or fragment; one trailing '/' ignored.
 * Throws EgressError('invalid_request') with a message naming `base_url`.
 */
export function parseBaseUrl(raw: unknown): BaseUrl {
  if (typeof raw !== 'string' || raw.length === 0) throw invalid("'base_url' must be a non-empty string");
  if (firstForbidden(raw, '\\') !== null) {
    throw invalid("'base_url' must not contain spaces, control characters or '\\'");
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw invalid("'base_url' is not a valid URL");
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalid("'base_url' must use http or https");
  if (u.username || u.password || /^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(raw)) {
    throw invalid("'base_url' must not contain user information (put credentials in bearer_token)");
  }
  if (raw.includes('?')) throw invalid("'base_url' must not contain a query string");
  if (raw.includes('#')) throw invalid("'base_url' must not contain a fragment");
  if (!u.hostname) throw invalid("'base_url' must name a host");
  let pathname = u.pathname;
  if (pathname.endsWith('/')) pathname = pathname.slice(0, -1);
  if (pathname !== '') {
    try {
      validatePath(pathname);
    } catch (e) {
      throw invalid(`'base_url' has an unsafe path: ${(e as Error).message.replace("'path' ", '')}`);
    }
  }
  const host = normalizeHost(u.hostname);
  return {
    href: `${u.protocol}//${u.host}${pathname}`,
    origin: u.origin,
    protocol: u.protocol,
    host,
    pathname,
  };
}

/** The query object: string keys and values only, encoded by URLSearchParams. */
export function validateQuery(query: unknown): Record<string, string> {
  if (query === undefined || query === null) return {};
  if (typeof query !== 'object' || Array.isArray(query))
    throw invalid("'query' must be an object of strings");
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(query)) {
    if (typeof v !== 'string') throw invalid(`'query.${k}' must be a string`);
    out[k] = v;
  }
  return out;
}

/**
 * Base + path + query by concatenation, then re-parsed and held to the base origin and path.
 * Throws EgressError('invalid_request').
 */
export function buildUrl(base: BaseUrl, path: unknown, query?: unknown): URL {
  const p = validatePath(path);
  const q = validateQuery(query);
  let href = base.href + p;
  const search = new URLSearchParams(Object.entries(q)).toString();
  if (search) href += `?${search}`;
  let u: URL;
  try {
    u = new URL(href);
  } catch {
    throw invalid("'path' does not form a valid URL with the source's base_url");
  }
  const prefix = base.pathname + '/';
  if (
    u.origin !== base.origin ||
    u.username ||
    u.password ||
    u.hash ||
    !(u.pathname === prefix || u.pathname.startsWith(prefix))
  ) {
    throw invalid("'path' escapes the source's base_url");
  }
  return u;
}

/** The allowlist as stored: normalised host names, or ['*'] when the check is disabled. */
export function normalizeAllowedHosts(list: readonly string[]): string[] {
  if (list.length === 1 && list[0] === '*') return ['*'];
  if (list.includes('*')) throw invalid("'*' in allowed_hosts must be the only entry");
  return [...new Set(list.map((h) => normalizeHost(h)))];
}

/** The host part of a URL as shown in messages and compared to the allowlist. */
export function urlHost(u: URL): string {
  let host = u.hostname;
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

export function isHostAllowed(u: URL, allowed: readonly string[]): boolean {
  if (allowed.length === 1 && allowed[0] === '*') return true;
  let host: string;
  try {
    host = normalizeHost(u.hostname);
  } catch {
    return false;
  }
  return allowed.includes(host);
}

/** `setting`: the configuration key of the list, named in the refusal with what it holds (default: the datasource's own allowlist). */
export function assertHostAllowed(u: URL, allowed: readonly string[], setting?: string): void {
  if (isHostAllowed(u, allowed)) return;
  if (!setting)
    throw new EgressError('host_not_allowed', `host '${urlHost(u)}' is not in the datasource allowlist`);
  throw new EgressError(
    'host_not_allowed',
    `host '${urlHost(u)}' is not in ${setting} (${allowed.join(', ')}): add it to ${setting} to allow it`,
  );
}
