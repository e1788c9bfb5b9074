import { SqlError } from '../core/errors.js';

export const STATEMENT_TIMEOUT = 3024;

export function shutdownError(): SqlError {
  return new SqlError(1053, 'Server shutdown in progress');
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
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | null;
  private expired = false;
  private stopped = false;
  private readonly onOuterAbort: () => void;

  constructor(
    /** 0: no time limit (the statement can still be stopped). */
    ms: number,
    private readonly outer?: AbortSignal,
    private readonly onClear?: (d: Deadline) => void,
  ) {
    this.onOuterAbort = () => this.controller.abort(outer?.reason);
    if (outer?.aborted) this.controller.abort(outer.reason);
    else outer?.addEventListener('abort', this.onOuterAbort, { once: true });
    this.timer = ms
      ? setTimeout(() => {
          this.expired = true;
          this.controller.abort(timeoutError());
        }, ms)
      : null;
    // A pending deadline never keeps the process alive.
    this.timer?.unref();
  }

  /** The server is stopping: cancel the statement everywhere; it is answered 1053. */
  stop(): void {
    this.stopped = true;
    this.controller.abort(shutdownError());
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The statement is over: stop the clock. */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onOuterAbort);
    this.onClear?.(this);
  }

  /** What to answer for `e`: 3024 once the time is up (the source saw a cancel, not a failure). */
  map(e: unknown): unknown {
    if (this.stopped) return shutdownError();
    return this.expired ? timeoutError() : e;
  }
}
