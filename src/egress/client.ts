import { type Dispatcher, request } from 'undici';
import { getEgressAgent, type Resolver } from './agent.js';
import { contentCodings, decodeBody } from './decode.js';
import { EgressError, isEgressError } from './errors.js';
import type { HeaderMap } from './headers.js';
import { KeyedLimiter } from './limiter.js';
import { Redactor } from './redact.js';
import { assertHostAllowed, normalizeHost, urlHost } from './safe-url.js';

/**
 * The one outbound HTTP call of the product. Everything that keeps a call from being turned
 * against the network it runs in is enforced here, whatever the caller checked before:
 * scheme and allowlist on every hop, the address policy at connect time (agent.ts), request
 * and decoded response size, one total deadline, same-origin redirects only, redaction.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface EgressLimits {
  /** One deadline for the whole call, every redirect hop included. */
  timeoutMs: number;
  maxRequestBytes: number;
  /** Measured on the decoded body. */
  maxResponseBytes: number;
  connectTimeoutMs?: number;
  maxRedirects?: number;
  /** Calls in flight per concurrency key; more wait (under the deadline). */
  maxConcurrent?: number;
}

export interface EgressRequestOptions {
  url: URL | string;
  method: HttpMethod;
  /** Final headers, token included (see headers.ts); sent only to the URL's origin. */
  headers: HeaderMap;
  body?: Buffer | string | null;
  limits: EgressLimits;
  /** Values replaced by [REDACTED_API_KEY] in the response body and headers. */
  secrets: readonly string[];
  signal?: AbortSignal;
  resolver?: Resolver;
  allowPrivate: boolean;
  /** Admit loopback whatever allowPrivate says (KB providers); default: as allowPrivate. */
  allowLoopback?: boolean;
  /** The setting named when a private or loopback address is refused. */
  privateSetting?: string;
  /** Normalised host names or ['*']; default: the URL's own host. */
  allowedHosts?: readonly string[];
  /** The setting named when a host is outside `allowedHosts`; default: the datasource's allowlist. */
  allowlistSetting?: string;
  /** Calls with the same key share the concurrency bound (one key per source). */
  concurrencyKey?: string;
}

export interface EgressResponse {
  status: number;
  /** Lower-case names, redacted; `set-cookie` always an array. Hop-by-hop headers dropped. */
  headers: Record<string, string | string[]>;
  /** Decoded and redacted. */
  body: Buffer;
  /** Host name of the origin answered (no port). */
  host: string;
  redirects: number;
}

export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_MAX_CONCURRENT = 32;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** A redirect's own body is read (and dropped) up to this size so the connection can be reused. */
const REDIRECT_BODY_DRAIN = 64 * 1024;

const limiters = new Map<number, KeyedLimiter>();
function limiterFor(max: number): KeyedLimiter {
  let l = limiters.get(max);
  if (!l) {
    l = new KeyedLimiter(max);
    limiters.set(max, l);
  }
  return l;
}

/** Caller went away (not a timeout): the route answers nothing useful, but must not report a timeout. */
export class EgressAbortedError extends Error {
  constructor() {
    super('the call was cancelled by the client');
    this.name = 'EgressAbortedError';
  }
}

function errCode(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' ? code : '';
}

/** Maps a library/network error to our codes with our own words (library messages are never passed on). */
function mapError(e: unknown, host: string, phase: 'connect' | 'body'): EgressError {
  if (isEgressError(e)) return e;
  const code = errCode(e);
  if (code === 'UND_ERR_CONNECT_TIMEOUT')
    return new EgressError('upstream_timeout', `connecting to '${host}' timed out`);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new EgressError('upstream_timeout', `'${host}' did not answer in time`);
  }
  if (
    code.startsWith('HPE_') ||
    (e as Error)?.name === 'HTTPParserError' ||
    code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
    code === 'UND_ERR_INFO'
  ) {
    return new EgressError(
      'invalid_upstream_response',
      `the response from '${host}' is not valid HTTP${code ? ` (${code})` : ''}`,
    );
  }
  if (code === 'UND_ERR_INVALID_ARG')
    return new EgressError('invalid_request', 'the request could not be sent as given');
  if (
    code.startsWith('ERR_TLS') ||
    code.includes('CERT') ||
    code.startsWith('ERR_SSL') ||
    /SIGNATURE|ISSUER/.test(code)
  ) {
    return new EgressError('upstream_unreachable', `TLS with '${host}' failed (${code})`);
  }
  if (phase === 'body') {
    return new EgressError(
      'invalid_upstream_response',
      `the connection to '${host}' ended before the response was complete${code ? ` (${code})` : ''}`,
    );
  }
  return new EgressError('upstream_unreachable', `could not connect to '${host}'${code ? ` (${code})` : ''}`);
}

function checkScheme(u: URL): void {
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new EgressError('invalid_request', `only http and https URLs can be called, not '${u.protocol}'`);
  }
  if (u.username || u.password)
    throw new EgressError('invalid_request', 'URLs with user information cannot be called');
}

async function readBounded(
  res: Dispatcher.ResponseData,
  max: number,
  host: string,
  decodedLater: boolean,
): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (!decodedLater && Number.isFinite(declared) && declared > max) {
    res.body.destroy();
    throw new EgressError('response_too_large', `the response from '${host}' is larger than ${max} bytes`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of res.body) {
      total += (chunk as Buffer).length;
      if (total > max) {
        res.body.destroy();
        throw new EgressError(
          'response_too_large',
          `the response from '${host}' is larger than ${max} bytes`,
        );
      }
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    throw mapError(e, host, 'body');
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

function flattenHeaders(
  raw: Dispatcher.ResponseData['headers'],
  dropped: ReadonlySet<string>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const k = name.toLowerCase();
    if (HOP_BY_HOP.has(k) || dropped.has(k)) continue;
    if (k === 'set-cookie') out[k] = Array.isArray(value) ? value : [value];
    else out[k] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function redirectTarget(res: Dispatcher.ResponseData, current: URL): URL | null {
  if (!REDIRECTS.has(res.statusCode)) return null;
  const loc = res.headers.location;
  const location = Array.isArray(loc) ? loc[0] : loc;
  if (!location) return null;
  try {
    return new URL(location, current);
  } catch {
    return null;
  }
}

export async function egressRequest(opts: EgressRequestOptions): Promise<EgressResponse> {
  const first = typeof opts.url === 'string' ? new URL(opts.url) : new URL(opts.url.href);
  checkScheme(first);
  const host = urlHost(first);
  const allowed = opts.allowedHosts ?? [normalizeHost(first.hostname)];
  assertHostAllowed(first, allowed, opts.allowlistSetting);

  const body =
    opts.body == null ? null : typeof opts.body === 'string' ? Buffer.from(opts.body, 'utf8') : opts.body;
  if (body && body.length > opts.limits.maxRequestBytes) {
    throw new EgressError(
      'request_too_large',
      `the request body is ${body.length} bytes, over the limit of ${opts.limits.maxRequestBytes}`,
    );
  }

  const maxRedirects = opts.limits.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const { timeoutMs, maxResponseBytes } = opts.limits;
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new EgressError('upstream_timeout', `no complete answer from '${host}' within ${timeoutMs} ms`),
      ),
    timeoutMs,
  );
  const onCallerAbort = () => controller.abort(new EgressAbortedError());
  if (opts.signal?.aborted) onCallerAbort();
  else opts.signal?.addEventListener('abort', onCallerAbort, { once: true });

  const dispatcher = getEgressAgent({
    allowPrivate: opts.allowPrivate,
    allowLoopback: opts.allowLoopback,
    privateSetting: opts.privateSetting,
    resolver: opts.resolver,
    connectTimeoutMs: opts.limits.connectTimeoutMs,
  });
  const redactor = Redactor.for(opts.secrets);
  let release: (() => void) | null = null;

  try {
    if (opts.concurrencyKey !== undefined) {
      release = await limiterFor(opts.limits.maxConcurrent ?? DEFAULT_MAX_CONCURRENT).acquire(
        opts.concurrencyKey,
        controller.signal,
      );
    }
    let current = first;
    let method: HttpMethod = opts.method;
    let sendBody = body;
    let headers = opts.headers;
    let redirects = 0;

    for (;;) {
      let res: Dispatcher.ResponseData;
      try {
        res = await request(current, {
          dispatcher,
          method,
          headers,
          body: sendBody ?? undefined,
          signal: controller.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      } catch (e) {
        throw mapError(controller.signal.aborted ? controller.signal.reason : e, host, 'connect');
      }

      const target = redirectTarget(res, current);
      // Only same-origin redirects are followed: the token and body never leave for another origin
      // (an https → http hop is a different origin too). Anything else goes back to the caller as is.
      if (target && target.origin === first.origin && !target.username && !target.password) {
        await res.body.dump({ limit: REDIRECT_BODY_DRAIN }).catch(() => {});
        if (redirects >= maxRedirects) {
          throw new EgressError('too_many_redirects', `'${host}' redirected more than ${maxRedirects} times`);
        }
        redirects++;
        checkScheme(target);
        assertHostAllowed(target, allowed, opts.allowlistSetting);
        if (
          res.statusCode === 303 ||
          ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')
        ) {
          // As browsers do: the follow-up is a GET without the body or its content headers.
          method = 'GET';
          sendBody = null;
          headers = Object.assign(Object.create(null), headers);
          delete headers['content-type'];
        }
        current = target;
        continue;
      }

      const codings = contentCodings(res.headers['content-encoding']);
      let data: Buffer;
      try {
        data = await readBounded(res, maxResponseBytes, host, codings.length > 0);
      } catch (e) {
        throw controller.signal.aborted && !isEgressError(e)
          ? mapError(controller.signal.reason, host, 'body')
          : e;
      }
      if (controller.signal.aborted) throw mapError(controller.signal.reason, host, 'body');
      const decoded = await decodeBody(data, codings, maxResponseBytes, host);
      const redacted = redactor.redactBuffer(decoded);
      const dropped = new Set<string>();
      if (codings.length > 0) dropped.add('content-encoding');
      if (codings.length > 0 || redacted !== decoded) dropped.add('content-length');
      return {
        status: res.statusCode,
        headers: redactor.redactHeaders(flattenHeaders(res.headers, dropped)),
        body: redacted,
        host,
        redirects,
      };
    }
  } catch (e) {
    if (e instanceof EgressAbortedError) throw e;
    if (controller.signal.reason instanceof EgressAbortedError) throw controller.signal.reason;
    throw mapError(e, host, 'connect');
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onCallerAbort);
    release?.();
  }
}
