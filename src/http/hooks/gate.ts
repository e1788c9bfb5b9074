import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../../config/types.js';
import { clientIpResolver } from '../client-ip.js';
import { authCheck } from './authenticate.js';
import type { Caller, Check, GateOutcome, GateRequest } from './check.js';
import { corsCheck } from './cors.js';
import { hostCheck } from './host-check.js';
import { rateLimitCheck } from './rate-limit.js';
import type { SecurityRuntime } from './runtime.js';

export { type GateOutcome, type GateRequest, isRefusal } from './check.js';

/**
 * Every request's security checks, in the order docs/architecture.md sets: Host, Origin/CORS,
 * authentication, rate limit. Headers the checks add (CORS, challenges, Retry-After) go
 * on the raw response. One gate serves both doors into the server: Fastify's onRequest
 * hook, and the MCP session requests served before Fastify's router (mcp/transports).
 */
export interface SecurityGate {
  /** Synchronous when no check needs I/O (no auth, no rate limit: the local default). */
  check(req: GateRequest, res: ServerResponse): GateOutcome | Promise<GateOutcome>;
  /** The client address of a request served before Fastify (api.http.trust_proxy applied, as `request.ip`). */
  clientIp(req: IncomingMessage): string;
}

export function createSecurityGate(
  rt: SecurityRuntime,
  config: Config,
  logger: Logger,
  onRateLimited?: (transport: 'mcp' | 'http') => void,
): SecurityGate {
  // Order matters: Host before anything (DNS rebinding), Origin before credentials are
  // looked at, authentication before the rate limit that counts per principal.
  const checks = [
    hostCheck(config),
    corsCheck(config),
    authCheck(rt, config, logger),
    rateLimitCheck(rt.requestLimiter, onRateLimited),
  ].filter((c): c is Check => c !== null);
  return {
    clientIp: clientIpResolver(config.api.http.trust_proxy),
    check: (req, res) => runChecks(checks, 0, req, res, { principal: null }),
  };
}

/** Runs the checks from `from` on; stays synchronous until a check returns a promise. */
function runChecks(
  checks: Check[],
  from: number,
  req: GateRequest,
  res: ServerResponse,
  caller: Caller,
): GateOutcome | Promise<GateOutcome> {
  for (let i = from; i < checks.length; i++) {
    const r = checks[i](req, res, caller);
    if (r instanceof Promise) {
      return r.then((refused) => refused ?? runChecks(checks, i + 1, req, res, caller));
    }
    if (r) return r;
  }
  return caller;
}
