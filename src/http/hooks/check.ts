import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Principal } from '../../auth/types.js';
import type { Refusal } from './refusal.js';

/**
 * The shapes every security check shares (a leaf: the checks and the gate import it, it
 * imports none of them). Each check has one signature, so the gate is an ordered list.
 */

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

/** Who is calling, as far as the checks so far know; authentication sets it, later checks read it. */
export interface Caller {
  principal: Principal | null;
}

export type GateOutcome = Caller | Refusal;

/**
 * One check: a refusal ends the request; null passes it to the next check. Headers a check
 * adds (CORS, challenges, Retry-After) go on the raw response. Synchronous unless it needs I/O.
 */
export type Check = (
  req: GateRequest,
  res: ServerResponse,
  caller: Caller,
) => Refusal | null | Promise<Refusal | null>;

export function isRefusal(o: GateOutcome): o is Refusal {
  return 'status' in o;
}
