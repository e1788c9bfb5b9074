import type { IncomingMessage } from 'node:http';
import { type RunAs, runAs } from '../../auth/principal.js';
import type { Principal } from '../../auth/types.js';

/**
 * Who owns what a caller makes (an MCP session, a result handle): the token for personal
 * access tokens (two logins of one user are two owners), the subject for OAuth (its access
 * tokens are refreshed under one identity), null without auth.
 */
export function principalKey(p: Principal | null): string | null {
  if (!p) return null;
  return p.tokenHash ? `token:${p.tokenHash}` : `${p.kind}:${p.id}`;
}

/** The owner of result handles made without auth (stdio, or HTTP with auth off). */
export const LOCAL_OWNER = 'local';

/**
 * The caller as the SDK's transports pass it on (`req.auth` becomes a handler's
 * `ctx.http.authInfo`): the query tool names it in the audit log and binds result handles
 * to its owner key. The token itself is never put there.
 */
export function attachAuth(req: IncomingMessage, p: Principal | null): void {
  if (p)
    (req as IncomingMessage & { auth?: unknown }).auth = {
      token: '',
      clientId: p.id,
      scopes: p.scopes,
      extra: { owner: principalKey(p), principal: runAs(p) },
    };
}

/**
 * Who a tool call runs as, from an SDK AuthInfo (or a request's `auth`): the principal
 * attachAuth put there; null without one (stdio, or HTTP with auth off: then `local`).
 */
export function principalOf(auth: { extra?: Record<string, unknown> } | undefined): RunAs | null {
  const p = auth?.extra?.principal as RunAs | undefined;
  return p && typeof p.user === 'string' ? p : null;
}

/** The principal a request carries (attachAuth), for the direct path; null without one. */
export function authPrincipal(req: IncomingMessage): RunAs | null {
  return principalOf((req as IncomingMessage & { auth?: { extra?: Record<string, unknown> } }).auth);
}

/** The principal's id a request carries (attachAuth), for the direct path; null without auth. */
export function authClientId(req: IncomingMessage): string | null {
  const a = (req as IncomingMessage & { auth?: { clientId?: unknown } }).auth;
  return typeof a?.clientId === 'string' ? a.clientId : null;
}

/** The owner key of an SDK AuthInfo (or a request's `auth`), `local` without one. */
export function ownerOf(auth: { extra?: Record<string, unknown> } | undefined): string {
  const owner = auth?.extra?.owner;
  return typeof owner === 'string' ? owner : LOCAL_OWNER;
}

/** The owner key a request carries (attachAuth), for the direct path. */
export function authOwner(req: IncomingMessage): string {
  return ownerOf((req as IncomingMessage & { auth?: { extra?: Record<string, unknown> } }).auth);
}
