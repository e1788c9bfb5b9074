/**
 * A replica taken out of service (SIGTERM; docs/deploy.md): stop taking work on every face,
 * let what is in flight finish within `api.http.drain_ms`, cancel what is left (answered 1053),
 * then close. The HTTP side's decisions are http/drain.ts's; the MySQL listener's wire/server.ts's.
 */
import type { Logger } from 'pino';
import { httpDrain } from '../http/server.js';
import type { Running } from './start.js';

/** The cancelled statements' 1053 answers get this long to leave before connections are closed. */
const ANSWER_GRACE_MS = 2_000;
const TICK_MS = 20;
/**
 * A connection accepted just before the listener closed has its first request still on the way
 * (a proxy writes it right after connecting): it counts once it arrives, so wait this long first.
 */
const LAST_ARRIVALS_MS = 250;

export interface DrainReport {
  /** Work still in flight when drain_ms ran out, cancelled. 0: everything finished. */
  cancelled: number;
  ms: number;
}

/** Work in flight on every face: HTTP requests (event streams not counted), MySQL commands, statements. */
export function workInFlight(running: Running): number {
  const http = running.app ? (httpDrain(running.app)?.requestsInFlight ?? 0) : 0;
  return http + (running.mysql?.working() ?? 0) + (running.deps.engine.runningStatementCount?.() ?? 0);
}

export async function drainAndClose(running: Running, drainMs: number, log: Logger): Promise<DrainReport> {
  const started = Date.now();
  const http = running.app ? httpDrain(running.app) : undefined;
  const closed = http?.begin();
  running.mysql?.drain();
  log.info({ drain_ms: drainMs, in_flight: workInFlight(running) }, 'draining: no new requests taken');
  await closed;
  await new Promise((r) => setTimeout(r, Math.min(LAST_ARRIVALS_MS, drainMs)));
  await settle(running, started + drainMs);
  let cancelled = 0;
  if (workInFlight(running) > 0) {
    cancelled = running.deps.engine.stopStatements?.() ?? 0;
    log.warn({ statements_cancelled: cancelled }, 'drain time is over: cancelling what still runs');
    await settle(running, Date.now() + ANSWER_GRACE_MS);
  }
  // Legacy SSE streams carried their sessions' answers: they end now, told to reconnect.
  http?.finish();
  await running.close().catch((e) => log.warn({ err: (e as Error)?.message }, 'close after drain failed'));
  return { cancelled, ms: Date.now() - started };
}

async function settle(running: Running, until: number): Promise<void> {
  while (workInFlight(running) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, TICK_MS));
}
