import { SqlError } from '../core/errors.js';

export const STATEMENT_TIMEOUT = 3024;

export function shutdownError(): SqlError {
  return new SqlError(1053, 'Server shutdown in progress');
}

export function killedError(): SqlError {
  return new SqlError(1317, 'Query execution was interrupted');
}

export function timeoutError(): SqlError {
  return new SqlError(
    STATEMENT_TIMEOUT,
    'Query execution was interrupted, maximum statement execution time exceeded',
  );
}

/**
 * One statement's time limit (query.timeout_ms): its signal aborts when the caller's does or
 * when the time is up. Every source the statement reached listens to that signal and cancels
 * for real (PostgreSQL cancel request, MySQL KILL QUERY, DuckDB interrupt, leaving a pool's
 * queue), so the statement is gone from the source, not just abandoned.
 */
export class Deadline {
  private readonly controller: AbortController;
  private expired = false;
  private stopped = false;
  private killed = false;
  private readonly onOuterAbort: (() => void) | null;
  /** performance.now() past which the statement is cancelled; Infinity without a limit. */
  readonly expiresAt: number;

  /**
   * No timer of its own (a timer per statement is a measurable share of a point lookup):
   * whoever keeps the running statements calls `expireIfDue` from one shared interval.
   */
  constructor(
    /** 0: no time limit (the statement can still be stopped). */
    ms: number,
    private readonly outer?: AbortSignal,
    private readonly onClear?: (d: Deadline) => void,
    /**
     * The caller's own switch for this one statement (ExecOptions.abort), aborted here on
     * time-out or shutdown instead of a controller chained to `outer`: a fresh AbortSignal's
     * first listener costs about 5 us in Node 20, a tenth of a point lookup's CPU.
     */
    lent?: AbortController,
  ) {
    this.expiresAt = ms ? performance.now() + ms : Number.POSITIVE_INFINITY;
    this.controller = lent ?? new AbortController();
    if (lent) {
      this.onOuterAbort = null;
      return;
    }
    this.onOuterAbort = outer ? () => this.controller.abort(outer.reason) : null;
    if (outer?.aborted) this.controller.abort(outer.reason);
    else if (this.onOuterAbort) outer?.addEventListener('abort', this.onOuterAbort, { once: true });
  }

  /** Cancels the statement when its time is up. */
  expireIfDue(now: number): void {
    if (now < this.expiresAt || this.expired || this.controller.signal.aborted) return;
    this.expired = true;
    this.controller.abort(timeoutError());
  }

  /** The server is stopping: cancel the statement everywhere; it is answered 1053. */
  stop(): void {
    this.stopped = true;
    this.controller.abort(shutdownError());
  }

  /** KILL QUERY (execute/processlist.ts): cancel the statement everywhere; it is answered 1317. */
  kill(): void {
    if (this.controller.signal.aborted) return;
    this.killed = true;
    this.controller.abort(killedError());
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The statement is over: stop the clock. */
  clear(): void {
    if (this.onOuterAbort) this.outer?.removeEventListener('abort', this.onOuterAbort);
    this.onClear?.(this);
  }

  /** What to answer for `e`: 3024 once the time is up (the source saw a cancel, not a failure). */
  map(e: unknown): unknown {
    if (this.stopped) return shutdownError();
    if (this.killed) return killedError();
    return this.expired ? timeoutError() : e;
  }
}
