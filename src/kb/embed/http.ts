import { SqlError } from '../../core/errors.js';
import { egressRequest } from '../../egress/client.js';
import { isEgressError } from '../../egress/errors.js';
import type { EgressSettings } from './provider.js';

const RETRIES = 4;
const MAX_BODY = 64 * 1024 * 1024;

/**
 * POST JSON to an embedding API through egress (address policy, limits, redaction of the
 * key). 429 and 5xx are retried with exponential backoff (honouring a short Retry-After);
 * other failures are errors naming the provider, with the upstream's message.
 */
export async function postJson(
  provider: string,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  secrets: string[],
  egress: EgressSettings,
  signal?: AbortSignal,
): Promise<unknown> {
  const payload = JSON.stringify(body);
  for (let attempt = 0; ; attempt++) {
    let status: number;
    let text: string;
    let retryAfter: string | undefined;
    let location: string | undefined;
    try {
      const res = await egressRequest({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: payload,
        limits: { timeoutMs: egress.timeoutMs, maxRequestBytes: MAX_BODY, maxResponseBytes: MAX_BODY },
        secrets,
        signal,
        ...providerPolicy(egress),
        concurrencyKey: `kb:${provider}`,
      });
      status = res.status;
      text = res.body.toString('utf8');
      const ra = res.headers['retry-after'];
      retryAfter = Array.isArray(ra) ? ra[0] : ra;
      const loc = res.headers.location;
      location = Array.isArray(loc) ? loc[0] : loc;
    } catch (e) {
      if (isEgressError(e) && REFUSALS.has(e.errorCode))
        throw new SqlError(2003, `Embedding provider '${provider}' at ${url} was refused: ${e.message}`);
      const why = isEgressError(e) ? `${e.errorCode}: ${e.message}` : (e as Error).message;
      if (attempt < RETRIES && isEgressError(e) && e.errorCode === 'upstream_unreachable') {
        await sleep(backoff(attempt), signal);
        continue;
      }
      throw new SqlError(2003, `Embedding provider '${provider}' at ${url} failed: ${why}`);
    }
    if (REDIRECTS.has(status) && location !== undefined)
      throw new SqlError(2003, redirectRefusal(provider, url, status, location));
    if (status >= 200 && status < 300) {
      try {
        return JSON.parse(text);
      } catch {
        throw new SqlError(1105, `Embedding provider '${provider}' answered with invalid JSON`);
      }
    }
    if ((status === 429 || status >= 500) && attempt < RETRIES) {
      const hinted = Number(retryAfter);
      await sleep(
        Number.isFinite(hinted) && hinted >= 0 && hinted <= 5 ? hinted * 1000 : backoff(attempt),
        signal,
      );
      continue;
    }
    throw new SqlError(
      1105,
      `Embedding provider '${provider}' answered HTTP ${status}${attempt ? ` after ${attempt + 1} attempts` : ''}: ${text.slice(0, 300)}`,
    );
  }
}

/** Refusals by the policy: never retried, and said as refusals (their message names the setting). */
const REFUSALS = new Set(['private_address', 'host_not_allowed']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The egress options of every provider call (SPEC §8 "Providers' addresses"): loopback
 * admitted (a local Ollama works out of the box), other private ranges only with
 * `kb.allow_private_networks`, link-local and metadata never, and when `kb.allowed_hosts` is
 * set only those hosts; refusals name the setting that would allow the call.
 */
export function providerPolicy(egress: EgressSettings) {
  return {
    allowPrivate: egress.allowPrivate,
    allowLoopback: true,
    privateSetting: 'kb.allow_private_networks',
    allowedHosts: egress.allowedHosts.length ? egress.allowedHosts : ['*'],
    allowlistSetting: 'kb.allowed_hosts',
  };
}

/**
 * A redirect the egress client did not follow: it leads to another origin (scheme, host or
 * port), where the key and the texts must not go. Says where (origin and path; the query is
 * left out, as it may carry the upstream's own tokens) and what to do instead.
 */
export function redirectRefusal(provider: string, url: string, status: number, location: string): string {
  let where: string;
  try {
    const to = new URL(location, url);
    where = `${to.origin}${to.pathname}`;
  } catch {
    where = `an invalid location (${JSON.stringify(location.slice(0, 100))})`;
  }
  return `Embedding provider '${provider}' at ${url} answered HTTP ${status}, a redirect to ${where}: redirects to another origin are not followed (the key and the texts stay with the configured base_url); set base_url to where the provider now answers`;
}

const backoff = (attempt: number) => 100 * 2 ** attempt + Math.floor(Math.random() * 50);

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** `base` + `path` without doubling slashes; a base ending in `/v1` keeps it. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}
