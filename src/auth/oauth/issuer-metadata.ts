import { IssuerUnavailableError, issuerRequest } from './issuer-http.js';
import { issuerUrlProblem } from './url-policy.js';

/** The parts of RFC 8414 / OpenID Connect discovery metadata the resource server uses. */
export interface IssuerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
  introspection_endpoint_auth_methods_supported?: string[];
  /** RFC 8414 leaves introspection methods to "other means" when omitted; this is the usual one. */
  token_endpoint_auth_methods_supported?: string[];
}

/** RFC 8414 §3.1 inserts the well-known segment before the issuer's path; OIDC appends it. */
export function discoveryUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, '');
  const origin = u.origin;
  const urls = [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${origin}${path}/.well-known/openid-configuration`,
  ];
  if (path) urls.push(`${origin}/.well-known/openid-configuration${path}`);
  return urls;
}

const sameIssuer = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

function validate(doc: unknown, issuer: string, from: string): IssuerMetadata {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new IssuerUnavailableError(`${from} is not a JSON object`);
  }
  const d = doc as Record<string, unknown>;
  // RFC 8414 §3.3: a document naming another issuer must not be used (mix-up / impersonation).
  if (typeof d.issuer !== 'string' || !sameIssuer(d.issuer, issuer)) {
    throw new IssuerUnavailableError(`${from} names issuer '${String(d.issuer)}', expected '${issuer}'`);
  }
  const out: IssuerMetadata = { issuer: d.issuer };
  for (const key of ['jwks_uri', 'introspection_endpoint'] as const) {
    const v = d[key];
    if (v === undefined) continue;
    const problem = typeof v === 'string' ? issuerUrlProblem(v, { allowQuery: true }) : 'is not a string';
    if (problem) throw new IssuerUnavailableError(`${key} in ${from} ${problem}`);
    out[key] = v as string;
  }
  const methods = d.introspection_endpoint_auth_methods_supported;
  if (Array.isArray(methods)) {
    out.introspection_endpoint_auth_methods_supported = methods.filter(
      (m): m is string => typeof m === 'string',
    );
  }
  if (!out.jwks_uri && !out.introspection_endpoint) {
    throw new IssuerUnavailableError(`${from} names neither a jwks_uri nor an introspection_endpoint`);
  }
  return out;
}

/**
 * Finds and caches the issuer's metadata. A failed discovery is not cached beyond a short
 * back-off, so an issuer that starts after us is picked up.
 */
export class IssuerDirectory {
  private cached: { meta: IssuerMetadata; until: number } | null = null;
  private inflight: Promise<IssuerMetadata> | null = null;
  private failedUntil = 0;
  private lastError: Error | null = null;

  constructor(
    readonly issuer: string,
    private readonly opts: { ttlMs?: number; retryMs?: number; now?: () => number } = {},
  ) {}

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  async metadata(): Promise<IssuerMetadata> {
    const now = this.now();
    if (this.cached && this.cached.until > now) return this.cached.meta;
    if (this.inflight) return this.inflight;
    if (!this.cached && this.failedUntil > now && this.lastError) throw this.lastError;
    this.inflight = this.discover()
      .then((meta) => {
        this.cached = { meta, until: this.now() + (this.opts.ttlMs ?? 3_600_000) };
        this.lastError = null;
        return meta;
      })
      .catch((e: Error) => {
        this.failedUntil = this.now() + (this.opts.retryMs ?? 2_000);
        this.lastError = e;
        // A stale document beats none while the issuer is briefly unreachable.
        if (this.cached) return this.cached.meta;
        throw e;
      })
      .finally(() => {
        this.inflight = null;
      });
    return this.inflight;
  }

  private async discover(): Promise<IssuerMetadata> {
    const problems: string[] = [];
    for (const url of discoveryUrls(this.issuer)) {
      const res = await issuerRequest(url);
      if (res.status === 200) return validate(res.json, this.issuer, url);
      problems.push(`${url} → ${res.status}`);
    }
    throw new IssuerUnavailableError(`no authorization server metadata found (${problems.join('; ')})`);
  }
}
