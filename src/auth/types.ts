/**
 * One way to check a bearer credential, whatever issued it (docs/reference/http.md#authentication). The HTTP hook asks
 * each configured Authenticator in turn; an authenticator answers `not_mine` for a
 * credential it does not recognise so the next one may try it.
 */

export type PrincipalKind = 'token' | 'oauth';

/** Who made an authenticated request; used for rate limits and logs. Never holds the credential. */
export interface Principal {
  kind: PrincipalKind;
  /** The user name (tokens) or the token's `sub`, else `client_id` (OAuth). */
  id: string;
  /** The user's groups: from auth.users_file (tokens), the groups claim (OAuth). */
  groups: string[];
  /** TRIBUTARY_USERNAME with token auth: sees and may do everything. */
  admin: boolean;
  scopes: string[];
  /** sha256 hex of a personal access token: what logout revokes. Absent for OAuth. */
  tokenHash?: string;
  /** Milliseconds since the epoch, when known. */
  expiresAt?: number;
}

export type AuthOutcome =
  | { result: 'ok'; principal: Principal }
  /** Not a credential this authenticator issues or can check; let the next one try. */
  | { result: 'not_mine' }
  /** Unknown, revoked, expired, wrong audience, bad signature... `reason` is for logs only. */
  | { result: 'invalid'; reason: string }
  /** Valid but lacks the configured scope (403 insufficient_scope). */
  | { result: 'insufficient_scope'; scope: string; principal: Principal }
  /** The authorization server could not be asked; the credential is neither accepted nor refused. */
  | { result: 'unavailable'; reason: string };

export interface Authenticator {
  authenticate(credential: string): Promise<AuthOutcome>;
}

/** Tries each authenticator in order; the first answer other than `not_mine` wins. */
export class AuthenticatorChain implements Authenticator {
  constructor(private readonly members: readonly Authenticator[]) {}

  async authenticate(credential: string): Promise<AuthOutcome> {
    for (const a of this.members) {
      const outcome = await a.authenticate(credential);
      if (outcome.result !== 'not_mine') return outcome;
    }
    return { result: 'invalid', reason: 'credential not recognised by any authenticator' };
  }
}
