import type { FastifyInstance } from 'fastify';
import { type AuthSetup, createAuth } from '../../auth/index.js';
import { type Limiter, LimiterStore } from '../../auth/limiters.js';
import { publicBaseUrl, resourceUrl } from '../../auth/oauth/resource.js';
import type { AppDeps } from '../deps.js';

/** Failed logins allowed per client address before it must wait (brute-force guard). */
export const LOGIN_FAILURES_ALLOWED = 10;
export const LOGIN_WINDOW_S = 15 * 60;

/** Security state shared by the hooks and the auth routes of one app. */
export interface SecurityRuntime {
  auth: AuthSetup;
  limiters: LimiterStore;
  /** Null when api.mcp.rate_limit is off. */
  requestLimiter: Limiter | null;
  loginLimiter: Limiter;
  /** This server's base URL (public_url, else the listening address). */
  baseUrl(): string;
}

const runtimes = new WeakMap<FastifyInstance, SecurityRuntime>();

/** One runtime per app, created by whichever registrar runs first and closed with the app. */
export function securityRuntime(app: FastifyInstance, deps: AppDeps): SecurityRuntime {
  const existing = runtimes.get(app);
  if (existing) return existing;
  const { config, logger } = deps;
  const baseUrl = () => {
    const addr = app.server.address();
    return publicBaseUrl(config, typeof addr === 'object' && addr ? addr.port : undefined);
  };
  const auth = createAuth(config, deps.catalog, logger, () => resourceUrl(baseUrl()));
  const rl = config.api.mcp.rate_limit;
  // Redis is only worth a connection when something is limited.
  const limiters = new LimiterStore(rl.enabled || auth.tokens ? config.redisUrl : null, logger);
  const runtime: SecurityRuntime = {
    auth,
    limiters,
    requestLimiter: rl.enabled
      ? limiters.create({ name: 'requests', points: rl.requests_per_minute, durationS: 60 })
      : null,
    loginLimiter: limiters.create({
      name: 'login-failures',
      points: LOGIN_FAILURES_ALLOWED,
      durationS: LOGIN_WINDOW_S,
    }),
    baseUrl,
  };
  runtimes.set(app, runtime);
  app.addHook('onClose', async () => {
    auth.users?.close();
    await limiters.close();
  });
  return runtime;
}
