import type { FastifyInstance } from 'fastify';
import { warnIfExposed } from '../../auth/index.js';
import type { AppDeps } from '../deps.js';
import { registerAuthentication } from './authenticate.js';
import { registerCors } from './cors.js';
import { registerHostCheck } from './host-check.js';
import { registerRateLimit } from './rate-limit.js';
import { securityRuntime } from './runtime.js';

/**
 * The app-wide security hooks, in the order DESIGN.md sets: Host check, Origin/CORS,
 * authentication, rate limit. Registered before any route so every route is covered.
 * Throws a ConfigError naming the variable when the auth configuration cannot work.
 */
export async function registerSecurityHooks(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const rt = securityRuntime(app, deps);
  // Count in Redis from the first request on; if it is down, start anyway on the in-memory insurance.
  if (rt.limiters.shared && !(await rt.limiters.ready(3_000))) {
    deps.logger.warn('rate-limit Redis not reachable at start; limiting in memory until it is');
  }
  deps.logger.info(
    { auth_mode: rt.auth.mode, rate_limit: rt.requestLimiter !== null, shared_limits: rt.limiters.shared },
    'security hooks ready',
  );
  warnIfExposed(deps.config, deps.logger);
  registerHostCheck(app, deps.config);
  registerCors(app, deps.config);
  registerAuthentication(app, rt, deps.config, deps.logger);
  registerRateLimit(app, rt.requestLimiter);
}
