import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Limiter } from '../../auth/limiters.js';
import { sendError } from '../errors.js';
import { isRateLimited, policyPath } from './paths.js';

/** Counted per authenticated principal, else per client address (SPEC §1 api.mcp.rate_limit). */
export function rateLimitKey(request: FastifyRequest): string {
  const p = request.principal;
  return p ? `${p.kind}:${p.id}` : `ip:${request.ip}`;
}

/** Runs after authentication so the principal is known. */
export function registerRateLimit(app: FastifyInstance, limiter: Limiter | null): void {
  if (!limiter) return;
  app.addHook('onRequest', async (request, reply) => {
    if (!isRateLimited(policyPath(request))) return;
    const decision = await limiter.consume(rateLimitKey(request));
    if (decision.allowed) return;
    reply.header('Retry-After', String(decision.retryAfterS));
    return sendError(
      reply,
      429,
      'rate_limited',
      `Too many requests: the limit is ${limiter.points} per minute; retry after ${decision.retryAfterS} s`,
    );
  });
}
