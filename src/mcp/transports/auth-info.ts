import type { IncomingMessage } from 'node:http';
import type { Principal } from '../../auth/types.js';

/**
 * The caller as the SDK's transports pass it on (`req.auth` becomes a handler's
 * `ctx.http.authInfo`): the query tool names it in the audit log. The token itself is
 * never put there.
 */
export function attachAuth(req: IncomingMessage, p: Principal | null): void {
  if (p) (req as IncomingMessage & { auth?: unknown }).auth = { token: '', clientId: p.id, scopes: p.scopes };
}

/** The principal's id a request carries (attachAuth), for the direct path; null without auth. */
export function authClientId(req: IncomingMessage): string | null {
  const a = (req as IncomingMessage & { auth?: { clientId?: unknown } }).auth;
  return typeof a?.clientId === 'string' ? a.clientId : null;
}
