import type { FastifyInstance } from 'fastify';
import { warnIfExposed } from '../../auth/index.js';
import type { AppDeps } from '../deps.js';
import { createSecurityGate, isRefusal, type SecurityGate } from './gate.js';
import { policyPath } from './paths.js';
import { sendRefusal } from './refusal.js';
import { securityRuntime } from './runtime.js';

export type { SecurityGate } from './gate.js';

const gates = new WeakMap<FastifyInstance, SecurityGate>();

/**
 * The gate installed on `app`, for requests served before Fastify's router; null when the
 * app has none, and then nothing may be served that way.
 */
export function installedGate(app: FastifyInstance): SecurityGate | null {
  return gates.get(app) ?? null;
}

/**
 * The app-wide security checks (gate.ts), as one onRequest hook registered before any
 * route so every route is covered. Throws a ConfigError naming the variable when the auth
 * configuration cannot work.
 */
export async function registerSecurityHooks(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const rt = securityRuntime(app, deps);
  // Count in Redis as soon as it answers; start-up does not wait for it (until then, and
  // whenever it is down, the in-memory insurance limiter counts per process).
  if (rt.limiters.shared)
    void rt.limiters.ready(3_000).then((ok) => {
      if (!ok) deps.logger.warn('rate-limit Redis not reachable at start; limiting in memory until it is');
    });
  deps.logger.info(
    { auth_mode: rt.auth.mode, rate_limit: rt.requestLimiter !== null, shared_limits: rt.limiters.shared },
    'security hooks ready',
  );
  warnIfExposed(deps.config, deps.logger);
  const metrics = deps.observer?.metrics;
  const gate = createSecurityGate(
    rt,
    deps.config,
    deps.logger,
    metrics ? (t) => metrics.rateLimited(t) : undefined,
  );
  gates.set(app, gate);
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    const outcome = await gate.check(
      { method: request.method, path: policyPath(request), headers: request.headers, ip: request.ip },
      reply.raw,
    );
    if (isRefusal(outcome)) return sendRefusal(reply, outcome);
    request.principal = outcome.principal;
  });
}
