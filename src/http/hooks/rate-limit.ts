import type { Limiter } from '../../auth/limiters.js';
import type { Principal } from '../../auth/types.js';
import type { Check } from './check.js';
import { isRateLimited } from './paths.js';
import { refusal } from './refusal.js';

/** Counted per authenticated principal, else per client address (docs/reference/configuration.md api.mcp.rate_limit). */
export function rateLimitKey(principal: Principal | null, ip: string): string {
  return principal ? `${principal.kind}:${principal.id}` : `ip:${ip}`;
}

/** Runs after authentication so the principal is known. Null when rate limiting is off. */
export function rateLimitCheck(
  limiter: Limiter | null,
  onRefused?: (transport: 'mcp' | 'http') => void,
): Check | null {
  if (!limiter) return null;
  return async (req, res, caller) => {
    if (!isRateLimited(req.path)) return null;
    const decision = await limiter.consume(rateLimitKey(caller.principal, req.ip));
    if (decision.allowed) return null;
    onRefused?.(req.path.startsWith('/mcp') ? 'mcp' : 'http');
    res.setHeader('Retry-After', String(decision.retryAfterS));
    return refusal(
      429,
      'rate_limited',
      `Too many requests: the limit is ${limiter.points} per minute; retry after ${decision.retryAfterS} s`,
    );
  };
}
