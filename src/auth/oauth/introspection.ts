import { IssuerUnavailableError, issuerRequest } from './issuer-http.js';
import type { IssuerMetadata } from './issuer-metadata.js';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * RFC 6749 §2.3.1: client_secret_basic is the default; client_secret_post only when the
 * issuer offers it and not basic. Without introspection methods in the metadata, the token
 * endpoint's methods stand in (the same client authenticates at both).
 */
export function introspectionAuthMethod(meta: IssuerMetadata): 'client_secret_basic' | 'client_secret_post' {
  const offered =
    meta.introspection_endpoint_auth_methods_supported ?? meta.token_endpoint_auth_methods_supported;
  if (offered?.includes('client_secret_post') && !offered.includes('client_secret_basic')) {
    return 'client_secret_post';
  }
  return 'client_secret_basic';
}

/** Introspection statuses that say nothing about the token itself. */
const NOT_THE_TOKEN = new Set([401, 403, 404, 408, 429]);

/** RFC 6749 §2.3.1 form-encodes the id and secret before base64 in the Basic header. */
function formEncode(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+');
}

/**
 * Asks the issuer about a token (RFC 7662). Returns the claims of an active token, null for
 * an inactive one; throws IssuerUnavailableError when no usable answer came back.
 */
export async function introspect(
  token: string,
  meta: IssuerMetadata,
  client: ClientCredentials,
): Promise<Record<string, unknown> | null> {
  const endpoint = meta.introspection_endpoint;
  if (!endpoint) throw new IssuerUnavailableError('the issuer offers no introspection_endpoint');
  const form = new URLSearchParams({ token, token_type_hint: 'access_token' });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (introspectionAuthMethod(meta) === 'client_secret_post') {
    form.set('client_id', client.clientId);
    form.set('client_secret', client.clientSecret);
  } else {
    const basic = Buffer.from(`${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`).toString(
      'base64',
    );
    headers.authorization = `Basic ${basic}`;
  }
  const res = await issuerRequest(endpoint, { method: 'POST', headers, body: form.toString() });
  // Any other 4xx is the issuer refusing this token (e.g. 400 for one it cannot parse): the
  // token is not active. Reporting an outage instead would let any caller fake one.
  if (res.status >= 400 && res.status < 500 && !NOT_THE_TOKEN.has(res.status)) return null;
  if (res.status !== 200) {
    // 401/403: our own client credentials were refused; 404: a wrong endpoint; 408/429: the
    // issuer is busy. Operator or transient problems, not the caller's token.
    throw new IssuerUnavailableError(`introspection endpoint answered ${res.status}`);
  }
  const body = res.json;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new IssuerUnavailableError('introspection answer is not a JSON object');
  }
  const claims = body as Record<string, unknown>;
  return claims.active === true ? claims : null;
}
