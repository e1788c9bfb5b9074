import type { ServerResponse } from 'node:http';
import type { Limiter } from '../../auth/limiters.js';
import type { Principal } from '../../auth/types.js';
import { isRateLimited } from './paths.js';
import { type Refusal, refusal } from './refusal.js';

/** Counted per authenticated principal, else per client address (docs/reference/configuration.md api.mcp.rate_limit). */
export function rateLimitKey(principal: Principal | null, ip: string): string {
  return principal ? `${principal.kind}:${principal.id}` : `ip:${ip}`;
}

/** Runs after authentication so the principal is known. Null when rate limiting is off. */
export function rateLimitCheck(
  limiter: Limiter | null,
): ((path: string, key: string, res: ServerResponse) => Promise<Refusal | null>) | null {
  if (!limiter) return null;
  return async (path, key, res) => {
    if (!isRateLimited(path)) return null;
    const decision = await limiter.consume(key);
    if (decision.allowed) return null;
    res.setHeader('Retry-After', String(decision.retryAfterS));
    return refusal(
      429,
      'rate_limited',
      `Too many requests: the limit is ${limiter.points} per minute; retry after ${decision.retryAfterS} s`,
    );
  };
}
