import type { Resolver } from '../../egress/agent.js';
import { type EgressResponse, egressRequest, type HttpMethod } from '../../egress/client.js';
import { EgressError, type EgressErrorCode, isEgressError } from '../../egress/errors.js';
import { buildUpstreamHeaders } from '../../egress/headers.js';
import { type BaseUrl, buildUrl, parseBaseUrl, urlHost } from '../../egress/safe-url.js';
import type { RestApiParams } from './params.js';
import { formatBody } from './response-body.js';

/** Named when a private or loopback address is refused (docs/reference/configuration.md). */
const PRIVATE_SETTING = 'passthrough.allow_private_networks';

/** docs/reference/http.md#rest-passthrough: one call through a `rest_api` source, and the test of its configuration. */

export interface PassthroughSettings {
  allowPrivate: boolean;
  timeoutMs: number;
  maxRequestBytes: number;
  maxResponseBytes: number;
  /** Tests inject a resolver so no real DNS is used. */
  resolver?: Resolver;
}

export interface PassthroughSource {
  /** As created; used in messages. */
  name: string;
  /** Stable id: calls to one source share a concurrency bound. */
  id: string;
  params: RestApiParams;
  base: BaseUrl;
  /** What the answers are redacted of. */
  secrets: string[];
}

/** Everything a call needs that depends only on the stored parameters, computed once per source. */
export function prepareSource(name: string, id: string, params: RestApiParams): PassthroughSource {
  return { name, id, params, base: parseBaseUrl(params.base_url), secrets: sourceSecrets(params) };
}

export interface PassthroughResult {
  status_code: number;
  headers: Record<string, string | string[]>;
  body: unknown;
  content_type: string | null;
  body_encoding?: 'base64';
}

export interface PassthroughOutcome {
  result: PassthroughResult;
  /** Decoded body bytes returned (for logs). */
  bytes: number;
  redirects: number;
}

const METHODS = new Set<HttpMethod>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

function invalid(message: string): EgressError {
  return new EgressError('invalid_request', message);
}

/** Secrets to redact: the token, and default header values long enough to be keys. */
export function sourceSecrets(params: RestApiParams): string[] {
  const out = [params.bearer_token];
  for (const v of Object.values(params.default_headers)) if (v.length >= 16) out.push(v);
  return out;
}

export function parseMethod(m: unknown): HttpMethod {
  if (typeof m !== 'string') throw invalid("'method' must be one of GET, POST, PUT, PATCH, DELETE");
  const up = m.toUpperCase() as HttpMethod;
  if (!METHODS.has(up))
    throw invalid(`'method' must be one of GET, POST, PUT, PATCH, DELETE, not '${m.slice(0, 16)}'`);
  return up;
}

/** JSON values are sent compactly as application/json; strings as UTF-8 text. null/absent: no body. */
function encodeRequestBody(body: unknown): { data: Buffer | null; contentType?: string } {
  if (body === undefined || body === null) return { data: null };
  if (typeof body === 'string')
    return { data: Buffer.from(body, 'utf8'), contentType: 'text/plain; charset=utf-8' };
  return { data: Buffer.from(JSON.stringify(body), 'utf8'), contentType: 'application/json' };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function toResult(res: EgressResponse): PassthroughOutcome {
  const ct = res.headers['content-type'];
  const contentType = Array.isArray(ct) ? (ct[0] ?? null) : (ct ?? null);
  const formatted = formatBody(res.body, contentType);
  const result: PassthroughResult = {
    status_code: res.status,
    headers: { ...res.headers },
    body: formatted.body,
    content_type: contentType,
  };
  if (formatted.encoding) result.body_encoding = formatted.encoding;
  return { result, bytes: res.body.length, redirects: res.redirects };
}

export async function callPassthrough(
  source: PassthroughSource,
  input: unknown,
  settings: PassthroughSettings,
  signal?: AbortSignal,
): Promise<PassthroughOutcome> {
  if (!isRecord(input))
    throw invalid('the request body must be a JSON object {method, path, query?, headers?, body?}');
  const method = parseMethod(input.method);
  const url = buildUrl(source.base, input.path, input.query);
  const { data, contentType } = encodeRequestBody(input.body);
  if (data && data.length > settings.maxRequestBytes) {
    throw new EgressError(
      'request_too_large',
      `the request body is ${data.length} bytes, over the limit of ${settings.maxRequestBytes}`,
    );
  }
  const headers = buildUpstreamHeaders({
    defaults: source.params.default_headers,
    caller: input.headers,
    contentType,
    token: source.params.bearer_token,
  });
  const res = await egressRequest({
    url,
    method,
    headers,
    body: data,
    limits: {
      timeoutMs: settings.timeoutMs,
      maxRequestBytes: settings.maxRequestBytes,
      maxResponseBytes: settings.maxResponseBytes,
    },
    secrets: source.secrets,
    signal,
    resolver: settings.resolver,
    allowPrivate: settings.allowPrivate,
    privateSetting: PRIVATE_SETTING,
    allowedHosts: source.params.allowed_hosts,
    concurrencyKey: source.id,
  });
  return toResult(res);
}

export type PassthroughTestResult =
  | { ok: true; status_code: number; host: string; latency_ms: number }
  | { ok: false; error_code: EgressErrorCode | string; message: string };

/** GET test_path with the stored headers and token. Refusals and failures are results, not exceptions. */
export async function testPassthrough(
  source: PassthroughSource,
  settings: PassthroughSettings,
  signal?: AbortSignal,
): Promise<PassthroughTestResult> {
  const started = performance.now();
  let host = '';
  try {
    const url = buildUrl(source.base, source.params.test_path);
    host = urlHost(url);
    const res = await egressRequest({
      url,
      method: 'GET',
      headers: buildUpstreamHeaders({
        defaults: source.params.default_headers,
        token: source.params.bearer_token,
      }),
      limits: {
        timeoutMs: settings.timeoutMs,
        maxRequestBytes: settings.maxRequestBytes,
        maxResponseBytes: settings.maxResponseBytes,
      },
      secrets: source.secrets,
      signal,
      resolver: settings.resolver,
      allowPrivate: settings.allowPrivate,
      privateSetting: PRIVATE_SETTING,
      allowedHosts: source.params.allowed_hosts,
      concurrencyKey: source.id,
    });
    const latency = Math.round(performance.now() - started);
    if (res.status >= 200 && res.status < 300)
      return { ok: true, status_code: res.status, host: res.host, latency_ms: latency };
    if (res.status === 401 || res.status === 403) {
      return {
        ok: false,
        error_code: 'auth_failed',
        message: `'${host}' answered HTTP ${res.status}: the upstream rejected the credentials; base URL and allowlist look correct`,
      };
    }
    return {
      ok: false,
      error_code: 'upstream_error',
      message: `'${host}' answered HTTP ${res.status} for ${source.params.test_path}`,
    };
  } catch (e) {
    if (isEgressError(e)) return { ok: false, error_code: e.errorCode, message: e.message };
    throw e;
  }
}
