import type { CanonicalValue, Row } from '../../core/types.js';
import { asText, pgTypes } from './types.js';

export interface PgField {
  name: string;
  dataTypeID: number;
}

type ValueParser = (text: string) => CanonicalValue;

/** The part of pg's Connection a submittable drives. */
interface PgConnection {
  stream: NodeJS.WritableStream & { cork(): void; uncork(): void; pause(): void; resume(): void };
  parse(q: { text: string }): void;
  bind(q: { values: unknown[] }): void;
  describe(q: { type: 'P'; name: string }): void;
  execute(q: { portal: string; rows: number }): void;
  sync(): void;
}

/** Complete batches waiting for the reader before the socket is paused (backpressure). */
const HIGH_WATER_BATCHES = 2;

/**
 * One SELECT as a single round trip: Parse, Bind, Describe, Execute (all rows) and Sync go
 * out in one write, and the rows stream back in batches, the socket paused while the reader
 * is behind. pg-cursor needs three round trips for the same answer (describe, fetch, close
 * the portal), which made it most of a point lookup's cost. A reader that stops early
 * cancels the statement (see PgStreamReader) instead of closing a portal.
 *
 * pg drives this object as its active query: it calls `submit` and the `handle*` methods.
 */
export class StreamedQuery {
  /** Resolves with the columns ([] for a statement without rows), rejects with the first error. */
  readonly described: Promise<PgField[]>;
  /** Resolves when the connection is ready for the next statement (or has failed). */
  readonly finished: Promise<void>;

  /**
   * One text parser per column. pg's own Result also builds a prototype row object per
   * statement for object rows, which we never use (4% of a point lookup).
   */
  private parsers: (ValueParser | null)[] = [];
  private settleDescribed!: { resolve: (f: PgField[]) => void; reject: (e: unknown) => void };
  private settleFinished!: () => void;
  /** `finished` has settled: the connection is ready for the next statement. */
  private settled = false;
  private con: PgConnection | null = null;
  private current: Row[] = [];
  private readonly ready: Row[][] = [];
  private waiter: { resolve: (b: Row[] | null) => void; reject: (e: unknown) => void } | null = null;
  private error: unknown = null;
  /** All rows are in (CommandComplete, or an error/empty query ended the statement). */
  private complete = false;
  private paused = false;
  /** Rows are dropped rather than kept: the reader has gone. */
  private discarding = false;

  constructor(
    readonly text: string,
    private readonly batchRows: number,
  ) {
    this.described = new Promise((resolve, reject) => {
      this.settleDescribed = { resolve, reject };
    });
    // Errors after `described` settles reach the reader through next(); an early rejection
    // must not be reported as unhandled when nobody awaits it yet.
    this.described.catch(() => {});
    this.finished = new Promise((resolve) => {
      this.settleFinished = resolve;
    });
  }

  get done(): boolean {
    return this.complete;
  }

  /** Whether the statement failed (an error from the server, a cancel included). */
  get failed(): boolean {
    return this.error !== null;
  }

  /** Whether `finished` has already settled (nothing left to wait for). */
  get isFinished(): boolean {
    return this.settled;
  }

  submit(con: PgConnection): void {
    this.con = con;
    // One write (writev) for all five messages; unnamed statement and portal. No Flush after
    // Describe: the columns come in the same packet as the first rows (a Flush costs every
    // quick statement a second packet, ~15% of a point lookup's CPU). A statement slow to
    // give its first rows is waited for in PostgresSource.query, where an abort cancels it,
    // as the MariaDB source does.
    con.stream.cork();
    con.parse({ text: this.text });
    con.bind({ values: [] });
    con.describe({ type: 'P', name: '' });
    con.execute({ portal: '', rows: 0 });
    con.sync();
    con.stream.uncork();
  }

  handleRowDescription(msg: { fields: PgField[] }): void {
    // null: the text is the value (text, numeric, dates...), no call per field.
    this.parsers = msg.fields.map((f) => {
      const p = pgTypes.getTypeParser(f.dataTypeID, 'text') as ValueParser;
      return p === asText ? null : p;
    });
    this.settleDescribed.resolve(msg.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })));
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    if (this.discarding) return;
    const fields = msg.fields as (string | null)[];
    const parsers = this.parsers;
    // Pushed, not preallocated: a holey array (new Array(n)) sends JSON.stringify to its
    // slow element-by-element path, a quarter slower for a 1,000-row result.
    const row: Row = [];
    for (let i = 0; i < fields.length; i++) {
      const v = fields[i];
      const p = parsers[i];
      row.push(v === null || p === null ? v : p(v));
    }
    this.current.push(row);
    if (this.current.length >= this.batchRows) {
      const batch = this.current;
      this.current = [];
      this.deliver(batch);
    }
  }

  handleCommandComplete(): void {
    this.end();
  }

  handleEmptyQuery(): void {
    this.end();
  }

  handlePortalSuspended(): void {
    // Execute asks for all rows; a suspended portal cannot happen.
  }

  handleCopyInResponse(): void {
    this.fail(new Error('COPY FROM STDIN is not supported here'));
  }

  handleCopyData(): void {}

  handleError(err: unknown): void {
    this.fail(err);
    // pg clears its active query on an error; the Sync already sent brings ReadyForQuery,
    // which then goes to no query, so the connection is ready once the error is in. A
    // broken connection never sends one either.
    this.resumeSocket();
    this.settled = true;
    this.settleFinished();
  }

  handleReadyForQuery(): void {
    this.end();
    this.settled = true;
    this.settleFinished();
  }

  /** The next batch, or null at the end of the rows; throws the statement's error. */
  next(): Promise<Row[] | null> {
    const batch = this.ready.shift();
    if (batch) {
      if (this.paused && this.ready.length < HIGH_WATER_BATCHES) this.resumeSocket();
      return Promise.resolve(batch);
    }
    if (this.error) return Promise.reject(this.error);
    if (this.complete) {
      if (this.current.length === 0) return Promise.resolve(null);
      const last = this.current;
      this.current = [];
      return Promise.resolve(last);
    }
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** The reader is gone: drop whatever else arrives, and let the socket run so the statement can end. */
  discard(): void {
    this.discarding = true;
    this.current = [];
    this.ready.length = 0;
    this.resumeSocket();
  }

  private deliver(batch: Row[]): void {
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w.resolve(batch);
      return;
    }
    this.ready.push(batch);
    if (this.ready.length >= HIGH_WATER_BATCHES && !this.paused && this.con) {
      this.paused = true;
      this.con.stream.pause();
    }
  }

  private end(): void {
    if (this.complete) return;
    this.complete = true;
    // A statement without rows never describes any.
    this.settleDescribed.resolve([]);
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      const last = this.current;
      this.current = [];
      w.resolve(last.length ? last : null);
    }
  }

  private fail(err: unknown): void {
    // Rows all in: a later error (a broken socket) leaves the answer whole; the pool
    // learns of the dead client from its own error event.
    if (this.complete) return;
    this.complete = true;
    this.error = err;
    this.settleDescribed.reject(err);
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w.reject(err);
    }
  }

  private resumeSocket(): void {
    if (this.paused && this.con) {
      this.paused = false;
      this.con.stream.resume();
    }
  }
}
