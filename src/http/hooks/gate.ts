import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Principal } from '../../auth/types.js';
import type { Config } from '../../config/types.js';
import { clientIpResolver } from '../client-ip.js';
import { authCheck } from './authenticate.js';
import { corsCheck } from './cors.js';
import { hostCheck } from './host-check.js';
import { rateLimitCheck, rateLimitKey } from './rate-limit.js';
import type { Refusal } from './refusal.js';
import type { SecurityRuntime } from './runtime.js';

/** What the gate looks at: never the body, which is read only after the gate lets a request in. */
export interface GateRequest {
  method: string;
  /** The path the policy judges (paths.ts `policyPath`). */
  path: string;
  /** The request's own headers: a credential the gate accepts is deleted from them. */
  headers: IncomingHttpHeaders;
  /** The client address (rate limits without a principal). */
  ip: string;
}

export type GateOutcome = { principal: Principal | null } | Refusal;

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

const OPEN: GateOutcome = Object.freeze({ principal: null });

export function createSecurityGate(rt: SecurityRuntime, config: Config, logger: Logger): SecurityGate {
  const host = hostCheck(config);
  const cors = corsCheck(config);
  const auth = authCheck(rt, config, logger);
  const limit = rateLimitCheck(rt.requestLimiter);
  const checkCaller = async (req: GateRequest, res: ServerResponse): Promise<GateOutcome> => {
    let principal: Principal | null = null;
    if (auth) {
      const outcome = await auth(req, res);
      if (isRefusal(outcome)) return outcome;
      principal = outcome.principal;
    }
    if (limit) {
      const limited = await limit(req.path, rateLimitKey(principal, req.ip), res);
      if (limited) return limited;
    }
    return { principal };
  };
  return {
    clientIp: clientIpResolver(config.api.http.trust_proxy),
    check(req, res) {
      const refused = host?.(req.headers.host) ?? cors(req, res);
      if (refused) return refused;
      return auth || limit ? checkCaller(req, res) : OPEN;
    },
  };
}

export function isRefusal(o: GateOutcome): o is Refusal {
  return 'status' in o;
}
