import type { AuthOutcome, Principal } from '../types.js';

/** Clock skew tolerated on exp/nbf (docs/reference/http.md#authentication). */
export const CLOCK_SKEW_S = 60;

export interface ClaimRules {
  issuer: string;
  /** This server's resource URL; `aud` must name it. */
  resource: string;
  /** The scope every token must carry. */
  scope: string;
  /** The claim that names the caller's groups (api.mcp.oauth.groups_claim); none read when absent. */
  groupsClaim?: string;
  nowMs: number;
  /**
   * JWTs must carry iss and exp (RFC 9068); introspection answers may leave them out, the
   * issuer's `active` being its word.
   */
  selfContained: boolean;
}

export function scopesOf(claims: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof claims.scope === 'string') out.push(...claims.scope.split(/\s+/));
  const scp = claims.scp;
  if (typeof scp === 'string') out.push(...scp.split(/\s+/));
  else if (Array.isArray(scp)) out.push(...scp.filter((s): s is string => typeof s === 'string'));
  return [...new Set(out.filter(Boolean))];
}

/**
 * The caller's groups from the claim `name`: an array of strings (Keycloak, Okta, Entra ID), or
 * one space-separated string (as `scope` is written). Anything else there gives no groups.
 */
export function groupsOf(claims: Record<string, unknown>, name: string | undefined): string[] {
  if (!name || !Object.hasOwn(claims, name)) return [];
  const v = claims[name];
  const list = typeof v === 'string' ? v.split(/\s+/) : Array.isArray(v) ? v : [];
  return [...new Set(list.filter((g): g is string => typeof g === 'string' && g !== ''))];
}

const sameIssuer = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * The checks an access token must pass whatever way it was read (JWT or introspection):
 * issuer, audience, expiry, then scope. Signature/activeness is the caller's job.
 */
export function checkClaims(claims: Record<string, unknown>, rules: ClaimRules): AuthOutcome {
  if (claims.iss === undefined) {
    if (rules.selfContained) return { result: 'invalid', reason: 'token has no iss' };
  } else if (typeof claims.iss !== 'string' || !sameIssuer(claims.iss, rules.issuer)) {
    return { result: 'invalid', reason: 'token issued by another issuer' };
  }
  const aud = claims.aud;
  const auds = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!auds.includes(rules.resource)) {
    return { result: 'invalid', reason: 'token audience does not name this resource' };
  }
  const now = rules.nowMs / 1000;
  const exp = claims.exp;
  if (exp === undefined || exp === null) {
    if (rules.selfContained) return { result: 'invalid', reason: 'token has no exp' };
  } else if (typeof exp !== 'number' || exp + CLOCK_SKEW_S <= now) {
    return { result: 'invalid', reason: 'token expired' };
  }
  const nbf = claims.nbf;
  if (typeof nbf === 'number' && nbf - CLOCK_SKEW_S > now) {
    return { result: 'invalid', reason: 'token not yet valid' };
  }
  const scopes = scopesOf(claims);
  const sub = typeof claims.sub === 'string' && claims.sub ? claims.sub : undefined;
  const clientId = typeof claims.client_id === 'string' && claims.client_id ? claims.client_id : undefined;
  const principal: Principal = {
    kind: 'oauth',
    id: sub ?? clientId ?? 'unknown',
    groups: groupsOf(claims, rules.groupsClaim),
    // No OAuth caller is the admin: that is TRIBUTARY_USERNAME's alone.
    admin: false,
    scopes,
    expiresAt: typeof exp === 'number' ? exp * 1000 : undefined,
  };
  if (!scopes.includes(rules.scope)) return { result: 'insufficient_scope', scope: rules.scope, principal };
  return { result: 'ok', principal };
}
