import type { Logger } from 'pino';
import type { CatalogStore, TokenRecord } from '../catalog/types.js';
import { BoundedCache } from './cache.js';
import { newAccessToken, sha256Hex, TOKEN_PREFIX } from './secrets.js';
import type { Authenticator, AuthOutcome } from './types.js';
import type { UserDirectory } from './users.js';

export interface TokenAuthOptions {
  /** TRIBUTARY_USERNAME and the users of auth.users_file. */
  users: UserDirectory;
  ttlHours: number;
  /** How long a valid lookup is trusted before the catalog is asked again (revocation on other replicas). */
  cacheMs?: number;
  now?: () => number;
}

/**
 * Personal access tokens (docs/reference/http.md#authentication "Token"): issued by login, stored in the catalog only as
 * sha256 hashes (so they survive restarts and work on every replica sharing the catalog).
 */
export class TokenAuthenticator implements Authenticator {
  private readonly cache: BoundedCache<TokenRecord>;
  private readonly now: () => number;

  constructor(
    private readonly catalog: CatalogStore,
    private readonly opts: TokenAuthOptions,
    private readonly logger: Logger,
  ) {
    this.now = opts.now ?? Date.now;
    this.cache = new BoundedCache(10_000, this.now);
  }

  /** A new token for a correct username and password; null otherwise (the same for an unknown user). */
  async login(username: string, password: string): Promise<{ token: string; expiresAt: Date } | null> {
    const account = await this.opts.users.verify(username, password);
    if (!account) return null;
    const token = newAccessToken();
    const created = this.now();
    const expiresAt = new Date(created + this.opts.ttlHours * 3_600_000);
    await this.catalog.putToken({
      hash: sha256Hex(token),
      username: account.user,
      createdAt: new Date(created).toISOString(),
      expiresAt: expiresAt.toISOString(),
    });
    this.logger.info({ username: account.user, expiresAt: expiresAt.toISOString() }, 'access token issued');
    return { token, expiresAt };
  }

  /** Revokes a token by its hash, here and in the catalog (other replicas drop it within cacheMs). */
  async revoke(hash: string, username?: string): Promise<void> {
    this.cache.delete(hash);
    await this.catalog.deleteToken(hash);
    this.logger.info({ username }, 'access token revoked');
  }

  async authenticate(credential: string): Promise<AuthOutcome> {
    if (!credential.startsWith(TOKEN_PREFIX)) return { result: 'not_mine' };
    const hash = sha256Hex(credential);
    let rec = this.cache.get(hash);
    if (!rec) {
      rec = (await this.catalog.getToken(hash)) ?? undefined;
      if (!rec) return { result: 'invalid', reason: 'unknown or revoked access token' };
      this.cache.set(hash, rec, this.opts.cacheMs ?? 5_000);
    }
    const expiresAt = Date.parse(rec.expiresAt);
    if (!(expiresAt > this.now())) {
      this.cache.delete(hash);
      this.catalog.deleteToken(hash).catch(() => {});
      return { result: 'invalid', reason: 'access token expired' };
    }
    // A token minted for a user no longer configured (removed from the users file, or a
    // changed TRIBUTARY_USERNAME) is not honoured; groups are the file's now.
    const account = this.opts.users.account(rec.username);
    if (!account) {
      return { result: 'invalid', reason: 'access token belongs to a user no longer configured' };
    }
    return {
      result: 'ok',
      principal: {
        kind: 'token',
        id: account.user,
        groups: account.groups,
        admin: account.admin,
        scopes: [],
        tokenHash: hash,
        expiresAt,
      },
    };
  }
}
