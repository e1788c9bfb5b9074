import type { Logger } from 'pino';
import type { CatalogStore } from '../catalog/types.js';
import { ConfigError } from '../config/errors.js';
import type { Config } from '../config/types.js';
import { OAuthAuthenticator } from './oauth/authenticator.js';
import { isLoopbackHost, issuerUrlProblem } from './oauth/url-policy.js';
import { TokenAuthenticator } from './tokens.js';
import { type Authenticator, AuthenticatorChain } from './types.js';
import { UserDirectory } from './users.js';
import { UsersFileError } from './users-file.js';

export { OAuthAuthenticator } from './oauth/authenticator.js';
export { TokenAuthenticator } from './tokens.js';
export type { Authenticator, AuthOutcome, Principal } from './types.js';
export { UserDirectory } from './users.js';

export type AuthMode = 'none' | 'token' | 'oauth' | 'token+oauth';

export function authMode(config: Config): AuthMode {
  const token = !!(config.auth.username && config.auth.password);
  const oauth = config.api.mcp.oauth.enabled;
  return token && oauth ? 'token+oauth' : token ? 'token' : oauth ? 'oauth' : 'none';
}

/**
 * Refuses an auth configuration that cannot work, naming the variable at fault. The config
 * loader checks the same at start-up; this guards any other way a Config is built.
 */
export function checkAuthConfig(config: Config): void {
  const { username, password } = config.auth;
  if (!!username !== !!password) {
    const missing = username ? 'TRIBUTARY_PASSWORD' : 'TRIBUTARY_USERNAME';
    throw new ConfigError(
      `${missing} is not set: TRIBUTARY_USERNAME and TRIBUTARY_PASSWORD switch on token auth together (set both or neither)`,
    );
  }
  if (config.auth.users_file && !(username && password)) {
    throw new ConfigError(
      'auth.users_file (TRIBUTARY_USERS_FILE) adds token-auth users: set TRIBUTARY_USERNAME and TRIBUTARY_PASSWORD (the admin) too',
    );
  }
  if (!(config.auth.token_ttl_hours > 0)) {
    throw new ConfigError('auth.token_ttl_hours (TRIBUTARY_TOKEN_TTL_HOURS) must be a positive number');
  }
  const oauth = config.api.mcp.oauth;
  if (!oauth.enabled) return;
  if (!oauth.issuer_url) {
    throw new ConfigError(
      'TRIBUTARY_MCP_OAUTH_ISSUER_URL (api.mcp.oauth.issuer_url) is required when OAuth is enabled',
    );
  }
  const problem = issuerUrlProblem(oauth.issuer_url);
  if (problem) {
    throw new ConfigError(`TRIBUTARY_MCP_OAUTH_ISSUER_URL (api.mcp.oauth.issuer_url) ${problem}`);
  }
  if (!!oauth.client_id !== !!oauth.client_secret) {
    const missing = oauth.client_id ? 'TRIBUTARY_MCP_OAUTH_CLIENT_SECRET' : 'TRIBUTARY_MCP_OAUTH_CLIENT_ID';
    throw new ConfigError(
      `${missing} is not set: the OAuth client id and secret (used for token introspection) go together`,
    );
  }
  if (!oauth.groups_claim?.trim()) {
    throw new ConfigError(
      'TRIBUTARY_MCP_OAUTH_GROUPS_CLAIM (api.mcp.oauth.groups_claim) must name a claim, e.g. groups',
    );
  }
  if (!oauth.scope || /\s/.test(oauth.scope)) {
    throw new ConfigError(
      'TRIBUTARY_MCP_OAUTH_SCOPE (api.mcp.oauth.scope) must be one scope name without spaces',
    );
  }
  if (oauth.public_url) {
    let u: URL | null = null;
    try {
      u = new URL(oauth.public_url);
    } catch {
      // reported below
    }
    if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:') || u.search || u.hash || u.username) {
      throw new ConfigError(
        'TRIBUTARY_MCP_OAUTH_PUBLIC_URL (api.mcp.oauth.public_url) must be the server base URL, e.g. https://data.example.com',
      );
    }
  }
}

export interface AuthSetup {
  mode: AuthMode;
  /** The token-auth users (TRIBUTARY_USERNAME and auth.users_file); null without token auth. */
  users: UserDirectory | null;
  tokens: TokenAuthenticator | null;
  oauth: OAuthAuthenticator | null;
  /** Null in mode none. */
  authenticator: Authenticator | null;
}

/** Builds the configured authenticators; personal access tokens are tried before OAuth. */
export function createAuth(
  config: Config,
  catalog: CatalogStore,
  logger: Logger,
  resource: () => string,
): AuthSetup {
  checkAuthConfig(config);
  const mode = authMode(config);
  const { username, password, users_file: usersFile } = config.auth;
  let users: UserDirectory | null = null;
  try {
    users = username && password ? new UserDirectory({ username, password }, usersFile, logger) : null;
  } catch (e) {
    // A bad users file stops start-up as any wrong setting does, naming the entry at fault.
    if (e instanceof UsersFileError) throw new ConfigError(e.message);
    throw e;
  }
  const tokens = users
    ? new TokenAuthenticator(catalog, { users, ttlHours: config.auth.token_ttl_hours }, logger)
    : null;
  const o = config.api.mcp.oauth;
  const oauth = o.enabled
    ? new OAuthAuthenticator(
        {
          issuer: o.issuer_url!,
          client:
            o.client_id && o.client_secret ? { clientId: o.client_id, clientSecret: o.client_secret } : null,
          scope: o.scope,
          groupsClaim: o.groups_claim,
          resource,
        },
        logger,
      )
    : null;
  const members = [tokens, oauth].filter((a): a is NonNullable<typeof a> => a !== null);
  return {
    mode,
    users,
    tokens,
    oauth,
    authenticator: members.length ? new AuthenticatorChain(members) : null,
  };
}

/** The start-up warning for an open server reachable from other machines (docs/reference/http.md#authentication "None"). */
export function warnIfExposed(config: Config, logger: Logger): void {
  const host = config.api.http.host;
  if (authMode(config) !== 'none' || isLoopbackHost(host)) return;
  logger.warn(
    { host },
    `authentication is OFF and the server listens on ${host}, which other machines can reach: anyone who can connect can query every data source. Set TRIBUTARY_USERNAME and TRIBUTARY_PASSWORD (or OAuth) or bind to 127.0.0.1.`,
  );
}
