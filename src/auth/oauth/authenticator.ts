import { createRemoteJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import type { Logger } from 'pino';
import { BoundedCache } from '../cache.js';
import { sha256Hex } from '../secrets.js';
import type { Authenticator, AuthOutcome } from '../types.js';
import { CLOCK_SKEW_S, checkClaims } from './claims.js';
import { type ClientCredentials, introspect } from './introspection.js';
import { IssuerUnavailableError } from './issuer-http.js';
import { IssuerDirectory, type IssuerMetadata } from './issuer-metadata.js';

export interface OAuthOptions {
  issuer: string;
  /** Client credentials for introspection; without them only JWTs can be checked. */
  client: ClientCredentials | null;
  scope: string;
  /** The claim holding the caller's groups (api.mcp.oauth.groups_claim); `groups` when absent. */
  groupsClaim?: string;
  /** This server's resource URL, known only once listening when derived from the port. */
  resource: () => string;
  now?: () => number;
}

/** Public-key algorithms only: a JWKS never legitimately carries an HMAC secret. */
const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

const INTROSPECTION_MAX_MS = 60_000;
const NEGATIVE_CACHE_MS = 5_000;

function jwtAlg(token: string): string | null {
  if (token.split('.').length !== 3) return null;
  try {
    const h = decodeProtectedHeader(token);
    return typeof h.alg === 'string' ? h.alg : null;
  } catch {
    return null;
  }
}

function looksLikeJwt(token: string): boolean {
  const alg = jwtAlg(token);
  return alg !== null && alg.toLowerCase() !== 'none';
}

/**
 * OAuth 2.0 resource server (docs/reference/http.md#authentication): JWT access tokens are verified against the issuer's
 * JWKS; anything else (or a JWT when the JWKS cannot be reached) goes to RFC 7662
 * introspection. Keys and endpoints come only from the configured issuer's metadata; a
 * token's own `jku`/`iss` never directs where we fetch.
 */
export class OAuthAuthenticator implements Authenticator {
  readonly directory: IssuerDirectory;
  private jwks: { uri: string; get: ReturnType<typeof createRemoteJWKSet> } | null = null;
  private readonly cache: BoundedCache<AuthOutcome>;
  private readonly now: () => number;

  constructor(
    private readonly opts: OAuthOptions,
    private readonly logger: Logger,
  ) {
    this.now = opts.now ?? Date.now;
    this.directory = new IssuerDirectory(opts.issuer, { now: this.now });
    this.cache = new BoundedCache(10_000, this.now);
  }

  async authenticate(credential: string): Promise<AuthOutcome> {
    // An unsigned JWT is never a credential: refused before any request to the issuer, so it
    // can neither reach introspection nor make the server report an issuer outage.
    if (jwtAlg(credential)?.toLowerCase() === 'none')
      return { result: 'invalid', reason: 'unsigned JWT (alg none)' };
    let meta: IssuerMetadata;
    try {
      meta = await this.directory.metadata();
    } catch (e) {
      return this.unavailable(e);
    }
    if (meta.jwks_uri && looksLikeJwt(credential)) {
      const outcome = await this.verifyJwt(credential, meta);
      if (outcome.result !== 'unavailable' || !this.canIntrospect(meta)) return outcome;
    }
    if (this.canIntrospect(meta)) return this.introspectCached(credential, meta);
    return { result: 'invalid', reason: 'not a JWT, and introspection is not configured' };
  }

  private canIntrospect(meta: IssuerMetadata): boolean {
    return !!(meta.introspection_endpoint && this.opts.client);
  }

  private rules(selfContained: boolean) {
    return {
      issuer: this.opts.issuer,
      resource: this.opts.resource(),
      scope: this.opts.scope,
      groupsClaim: this.opts.groupsClaim ?? 'groups',
      nowMs: this.now(),
      selfContained,
    };
  }

  private keySet(uri: string) {
    if (this.jwks?.uri !== uri)
      this.jwks = { uri, get: createRemoteJWKSet(new URL(uri), { timeoutDuration: 5_000 }) };
    return this.jwks.get;
  }

  private async verifyJwt(token: string, meta: IssuerMetadata): Promise<AuthOutcome> {
    try {
      const { payload } = await jwtVerify(token, this.keySet(meta.jwks_uri!), {
        algorithms: JWT_ALGORITHMS,
        clockTolerance: CLOCK_SKEW_S,
        currentDate: new Date(this.now()),
      });
      // Issuer, audience, expiry and scope are checked by one rule set for JWTs and introspection alike.
      return checkClaims(payload as Record<string, unknown>, this.rules(true));
    } catch (e) {
      if (isIssuerFailure(e)) {
        return this.unavailable(e);
      }
      if (e instanceof joseErrors.JWTExpired) return { result: 'invalid', reason: 'token expired' };
      if (e instanceof joseErrors.JWKSNoMatchingKey) {
        return { result: 'invalid', reason: 'token not signed by a key of the issuer' };
      }
      return { result: 'invalid', reason: `JWT rejected: ${(e as Error).message}` };
    }
  }

  private async introspectCached(token: string, meta: IssuerMetadata): Promise<AuthOutcome> {
    const key = sha256Hex(token);
    const hit = this.cache.get(key);
    if (hit) return hit;
    let claims: Record<string, unknown> | null;
    try {
      claims = await introspect(token, meta, this.opts.client!);
    } catch (e) {
      return this.unavailable(e);
    }
    if (!claims) {
      const outcome: AuthOutcome = { result: 'invalid', reason: 'token is not active' };
      this.cache.set(key, outcome, NEGATIVE_CACHE_MS);
      return outcome;
    }
    const outcome = checkClaims(claims, this.rules(false));
    // At most 60 s, and never past the token's own expiry.
    let ttl = outcome.result === 'invalid' ? NEGATIVE_CACHE_MS : INTROSPECTION_MAX_MS;
    if (typeof claims.exp === 'number') ttl = Math.min(ttl, claims.exp * 1000 - this.now());
    this.cache.set(key, outcome, ttl);
    return outcome;
  }

  private unavailable(e: unknown): AuthOutcome {
    const reason = (e as Error)?.message ?? String(e);
    this.logger.warn({ issuer: this.opts.issuer, reason }, 'OAuth issuer unavailable; token not checked');
    return { result: 'unavailable', reason };
  }
}

/** The JWKS could not be had (network, timeout, non-200, not a key set): not the token's fault. */
function isIssuerFailure(e: unknown): boolean {
  if (e instanceof IssuerUnavailableError || e instanceof TypeError) return true;
  if (e instanceof joseErrors.JWKSTimeout || e instanceof joseErrors.JWKSInvalid) return true;
  // jose reports a bad JWKS response with its base error class; token problems use subclasses.
  return e instanceof joseErrors.JOSEError && e.constructor === joseErrors.JOSEError;
}
