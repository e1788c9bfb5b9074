import type { Logger } from 'pino';
import { ErrorCode, SqlError } from '../core/errors.js';
import { interrupted } from './error-util.js';

/** How long a statement waits for one of its source's connections before 1040. */
export const POOL_WAIT_MS = 30_000;
/** Statements that may wait for one source's connections at once; more are refused at once. */
export const POOL_MAX_WAITING = 1_000;
/** At most one "pool wait" log line per source this often. */
const LOG_EVERY_MS = 5_000;

export interface PoolStats {
  inUse: number;
  waiting: number;
  max: number;
}

interface Waiter {
  grant: () => void;
  fail: (e: unknown) => void;
}

/**
 * The queue in front of a source's connection pool, which the drivers' own pools do not
 * bound or tell apart from connecting: waiting for a busy pool is not an outage. The
 * driver's pool gets exactly `permits` connections, so it never queues itself; a statement
 * that waits too long, or finds the queue full, gets MySQL's 1040 naming the source, and a
 * connection that cannot be made still gets the driver's own 2003.
 */
export class PoolGate {
  private inUse = 0;
  private readonly queue: Waiter[] = [];
  private waited = 0;
  private refused = 0;
  private lastLog = 0;

  constructor(
    private readonly source: string,
    readonly permits: number,
    private readonly logger: Logger,
    private readonly waitMs = POOL_WAIT_MS,
    private readonly maxWaiting = POOL_MAX_WAITING,
  ) {}

  /** Connections in use and statements waiting for one, now (metrics). */
  stats(): PoolStats {
    return { inUse: this.inUse, waiting: this.queue.length, max: this.permits };
  }

  /** A permit; call the returned function exactly when the connection goes back (it is idempotent). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(interrupted(this.source));
    if (this.inUse < this.permits) {
      this.inUse++;
      return Promise.resolve(this.releaser());
    }
    if (this.queue.length >= this.maxWaiting) {
      this.refused++;
      this.report();
      return Promise.reject(this.busy());
    }
    this.waited++;
    this.report();
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
      };
      const waiter: Waiter = {
        grant: () => {
          done();
          resolve(this.releaser());
        },
        fail: (e) => {
          done();
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        this.refused++;
        this.report();
        waiter.fail(this.busy());
      }, this.waitMs);
      const onAbort = () => waiter.fail(interrupted(this.source));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** Statements waiting now (for tests and logs). */
  get waiting(): number {
    return this.queue.length;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      // The permit passes straight to the next waiter: inUse stays the same.
      if (next) next.grant();
      else this.inUse--;
    };
  }

  private busy(): SqlError {
    return new SqlError(
      ErrorCode.TOO_MANY_CONNECTIONS,
      `Too many connections: source '${this.source}' is busy (${this.inUse} connections in use, ${this.queue.length} statements waiting); try again shortly`,
    );
  }

  private report(): void {
    const now = Date.now();
    if (now - this.lastLog < LOG_EVERY_MS) return;
    this.lastLog = now;
    const line = {
      source: this.source,
      in_use: this.inUse,
      waiting: this.queue.length,
      waited: this.waited,
      refused: this.refused,
    };
    if (this.refused) this.logger.warn(line, 'pool wait');
    else this.logger.info(line, 'pool wait');
    this.waited = 0;
    this.refused = 0;
  }
}
