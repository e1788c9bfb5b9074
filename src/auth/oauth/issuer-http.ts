/**
 * The only way the resource server talks to its authorization server: bounded in time and
 * size, no redirects followed (an issuer that redirects is misconfigured, and following
 * would send the client secret elsewhere), JSON only.
 */

export class IssuerUnavailableError extends Error {
  override name = 'IssuerUnavailableError';
}

export interface IssuerResponse {
  status: number;
  json: unknown;
}

const MAX_BYTES = 1024 * 1024;

export async function issuerRequest(
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<IssuerResponse> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? 'GET',
      headers: { accept: 'application/json', ...init.headers },
      body: init.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(init.timeoutMs ?? 5_000),
    });
  } catch (e) {
    throw new IssuerUnavailableError(`request to ${url} failed: ${(e as Error).message}`);
  }
  const text = await readCapped(res, url);
  if (res.status >= 300 && res.status < 400) {
    throw new IssuerUnavailableError(
      `${url} answered with a redirect (${res.status}); redirects are not followed`,
    );
  }
  let json: unknown = null;
  if (text.length > 0) {
    try {
      json = JSON.parse(text);
    } catch {
      if (res.ok) throw new IssuerUnavailableError(`${url} did not answer with JSON`);
    }
  }
  return { status: res.status, json };
}

async function readCapped(res: Response, url: string): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BYTES) {
        await reader.cancel();
        throw new IssuerUnavailableError(`${url} answered with more than ${MAX_BYTES} bytes`);
      }
      chunks.push(value);
    }
  } catch (e) {
    if (e instanceof IssuerUnavailableError) throw e;
    throw new IssuerUnavailableError(`reading the answer of ${url} failed: ${(e as Error).message}`);
  }
  return Buffer.concat(chunks).toString('utf8');
}
