import type { Logger } from 'pino';
import type { CatalogStore, TokenRecord } from '../catalog/types.js';
import { BoundedCache } from './cache.js';
import { constantTimeEqual, newAccessToken, sha256Hex, TOKEN_PREFIX } from './secrets.js';
import type { Authenticator, AuthOutcome } from './types.js';

export interface TokenAuthOptions {
  username: string;
  password: string;
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

  /** Checks both fields without short-circuiting, so timing says nothing about which one was wrong. */
  credentialsMatch(username: string, password: string): boolean {
    const userOk = constantTimeEqual(username, this.opts.username);
    const passOk = constantTimeEqual(password, this.opts.password);
    return userOk && passOk;
  }

  /** A new token for a correct username and password; null otherwise. */
  async login(username: string, password: string): Promise<{ token: string; expiresAt: Date } | null> {
    if (!this.credentialsMatch(username, password)) return null;
    const token = newAccessToken();
    const created = this.now();
    const expiresAt = new Date(created + this.opts.ttlHours * 3_600_000);
    await this.catalog.putToken({
      hash: sha256Hex(token),
      username: this.opts.username,
      createdAt: new Date(created).toISOString(),
      expiresAt: expiresAt.toISOString(),
    });
    this.logger.info(
      { username: this.opts.username, expiresAt: expiresAt.toISOString() },
      'access token issued',
    );
    return { token, expiresAt };
  }

  /** Revokes a token by its hash, here and in the catalog (other replicas drop it within cacheMs). */
  async revoke(hash: string): Promise<void> {
    this.cache.delete(hash);
    await this.catalog.deleteToken(hash);
    this.logger.info({ username: this.opts.username }, 'access token revoked');
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
    // A token minted for a user name that is no longer configured is not honoured.
    if (rec.username !== this.opts.username) {
      return { result: 'invalid', reason: 'access token belongs to a user no longer configured' };
    }
    return {
      result: 'ok',
      principal: { kind: 'token', id: rec.username, scopes: [], tokenHash: hash, expiresAt },
    };
  }
}
