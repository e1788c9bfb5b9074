import type { Config } from '../config/types.js';
import type { Principal } from './types.js';

/**
 * Who a statement runs as (docs/reference/http.md#principals): the shape of sql/engine-types.ts
 * `StatementPrincipal`, restated here because auth/ sits beside sql/, not above it.
 */
export interface RunAs {
  user: string;
  groups: string[];
  admin: boolean;
}

/** The principal with auth none (and of stdio MCP and the in-process CLI). */
export const LOCAL_USER = 'local';

export function localPrincipal(): RunAs {
  return { user: LOCAL_USER, groups: [], admin: true };
}

/** An authenticated caller as the engine sees it; null (auth off) is `local`. */
export function runAs(p: Principal | null): RunAs {
  return p ? { user: p.id, groups: p.groups, admin: p.admin } : localPrincipal();
}

/**
 * Whether callers must authenticate (token auth or OAuth configured). A face that finds no
 * principal on a request while this holds refuses it rather than run it as `local`.
 */
export function authIsOn(config: Pick<Config, 'auth' | 'api'>): boolean {
  return !!(config.auth.username && config.auth.password) || config.api.mcp.oauth.enabled;
}
