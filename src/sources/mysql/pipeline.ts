/**
 * Relayed statements pipelined on one connection (issue 16): statements that arrive in the
 * same turn of the event loop leave in one write, and the server answers them in order.
 *
 * Why: on loopback each write to a sleeping server thread pays for waking it, and that was
 * a quarter of the listener's CPU per point lookup; MariaDB's own CPU per statement fell by
 * half too, since one thread reads several statements per wake-up. Measured on this
 * 2-core machine: 120-135 -> 95-100 us of server CPU per point lookup at concurrency 16.
 *
 * Only statements that cannot hold the others up take part: the source hands over shapes
 * that already relayed quickly with few rows (MysqlSource.fastShapes), and none joins while
 * the statement at the head has run for STALL_MS. The MySQL protocol allows it: a server
 * reads each command after answering the one before, and an error ends only its own
 * statement. Cancelling one that waits drops its result when it comes; cancelling the one
 * running sends KILL QUERY, and a statement that the kill reaches instead (the one behind,
 * had the first just ended) is answered to the source as `collateral`, to be run again
 * alone: it is a plain SELECT that sent nothing to its client yet.
 */
import type { EventEmitter } from 'node:events';
import type { ResultPacketSink } from '../types.js';
import {
  type ColumnsMemo,
  connectionLost,
  queryPacketBytes,
  type RawConnection,
  RelayCommand,
  type RelayEnd,
} from './relay.js';

/** A statement whose head-of-line has run this long (ms) stops others from joining. */
const STALL_MS = 20;
/**
 * Pending statements wait while this many are unanswered, and leave together with the next
 * answer: fewer, larger writes (2.2 statements per write without, 3.5 with, at concurrency 16).
 */
const HOLD_DEPTH = 2;
/** Statements written and not yet answered, at most, on the connection. */
const DEPTH_MAX = 64;
/** The connection goes back to the pool after this long (ms) with nothing to do. */
const IDLE_RELEASE_MS = 1000;
/** MySQL's "Query execution was interrupted". */
const ER_QUERY_INTERRUPTED = 1317;

/** As RelayEnd, with how long the server took (ms from the one before it ending); or why it did not run. */
export type PipelineEnd =
  | { rows: number; ranMs: number }
  | { declined: true }
  | { error: unknown }
  | { collateral: true }
  | { interrupted: true };

export type PipeConnection = RawConnection & EventEmitter & { threadId: number; write(b: Buffer): void };

interface Entry {
  sql: string;
  sink: ResultPacketSink;
  memo: ColumnsMemo | null;
  signal: AbortSignal | undefined;
  resolve: (end: PipelineEnd) => void;
  cmd: RelayCommand | null;
  began: number;
  settled: boolean;
  aborted: boolean;
}

export interface PipelineDeps {
  /** A connection of the source's pool (READ WRITE session), held until `release`. */
  open(): Promise<PipeConnection>;
  release(conn: PipeConnection, broken: boolean): void;
  kill(threadId: number): Promise<void>;
}

export class RelayPipeline {
  private conn: PipeConnection | null = null;
  private opening: Promise<PipeConnection> | null = null;
  private pending: Entry[] = [];
  /** Written, answered in this order; the first is the one the server is on. */
  private readonly inFlight: Entry[] = [];
  private scheduled = false;
  private idleTimer: NodeJS.Timeout | null = null;
  /**
   * Signals listened to, once each: a face lends one signal to all of a connection's
   * statements, and a listener added and removed per statement cost about 1 us of a point
   * lookup (Node's EventTarget) and 370 bytes.
   */
  private readonly watched = new WeakSet<AbortSignal>();
  /** Statements written, and the writes they took (tests; the ratio is the batching). */
  written = 0;
  writes = 0;

  constructor(private readonly deps: PipelineDeps) {}

  /** Whether a statement may join now: nothing ahead of it has run long, and the queue is short. */
  accepting(): boolean {
    const n = this.inFlight.length + this.pending.length;
    if (n >= DEPTH_MAX) return false;
    const head = this.inFlight[0];
    return !head || head.began === 0 || performance.now() - head.began < STALL_MS;
  }

  run(
    sql: string,
    sink: ResultPacketSink,
    signal?: AbortSignal,
    memo: ColumnsMemo | null = null,
  ): Promise<PipelineEnd> {
    return new Promise((resolve) => {
      const e: Entry = {
        sql,
        sink,
        memo,
        signal,
        resolve,
        cmd: null,
        began: 0,
        settled: false,
        aborted: false,
      };
      if (signal && !this.watched.has(signal)) this.watch(signal);
      this.pending.push(e);
      if (this.idleTimer) {
        clearTimeout(this.idleTimer);
        this.idleTimer = null;
      }
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  /** Fails what is queued and lets the connection go (the source is closing). */
  close(): void {
    this.fail(new Error('Source closed'), false);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (!this.conn) {
      this.opening ??= this.deps.open().then(
        (c) => {
          this.opening = null;
          this.attach(c);
          this.flush();
          return c;
        },
        (err: unknown) => {
          this.opening = null;
          for (const e of this.pending.splice(0)) this.settle(e, { error: err });
          throw err;
        },
      );
      this.opening.catch(() => {});
      return;
    }
    if (this.inFlight.length >= HOLD_DEPTH) return;
    const batch = this.pending.filter((e) => !e.settled);
    this.pending = [];
    if (!batch.length) {
      if (!this.inFlight.length) this.idleSoon();
      return;
    }
    const c = this.conn;
    const packets = batch.map((e) => queryPacketBytes(c, e.sql));
    c.write(packets.length === 1 ? packets[0] : Buffer.concat(packets));
    this.writes++;
    this.written += packets.length;
    for (const e of batch) {
      this.inFlight.push(e);
      e.cmd = new RelayCommand(
        e.sql,
        e.sink,
        (end) => this.answered(e, end),
        {
          began: () => {
            e.began = performance.now();
          },
        },
        e.memo,
      );
      c.addCommand(e.cmd);
    }
  };

  /** The server's answer to `e`, in order: the next statement is now the head. */
  private answered(e: Entry, end: RelayEnd): void {
    if (this.inFlight[0] === e) this.inFlight.shift();
    else {
      const i = this.inFlight.indexOf(e);
      if (i >= 0) this.inFlight.splice(i, 1);
    }
    const killedInstead =
      !e.aborted &&
      !e.cmd?.headed &&
      'error' in end &&
      (end.error as { errno?: number } | null)?.errno === ER_QUERY_INTERRUPTED;
    if (killedInstead) this.settle(e, { collateral: true });
    else if ('rows' in end) this.settle(e, { rows: end.rows, ranMs: performance.now() - e.began });
    else this.settle(e, end);
    if (this.pending.length) {
      if (!this.scheduled && this.inFlight.length < HOLD_DEPTH) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    } else if (!this.inFlight.length) this.idleSoon();
  }

  private watch(signal: AbortSignal): void {
    this.watched.add(signal);
    signal.addEventListener(
      'abort',
      () => {
        for (const e of [...this.inFlight, ...this.pending]) if (e.signal === signal) this.abort(e);
      },
      { once: true },
    );
  }

  private abort(e: Entry): void {
    if (e.settled || e.aborted) return;
    e.aborted = true;
    const c = this.conn;
    // The one the server is on is killed there; one still waiting just has its answer dropped.
    if (c && e.cmd) {
      if (this.inFlight[0] === e && e.began) void this.deps.kill(c.threadId);
      e.cmd.stop(c);
    }
    this.settle(e, { interrupted: true });
  }

  private settle(e: Entry, end: PipelineEnd): void {
    if (e.settled) return;
    e.settled = true;
    e.resolve(end);
  }

  private attach(c: PipeConnection): void {
    this.conn = c;
    c.on('error', this.gone);
    c.on('end', this.gone);
  }

  private readonly gone = (err?: Error): void => {
    if (this.conn) this.fail(err ?? connectionLost(), true);
  };

  /** Everything waiting or written fails with `err`; the connection goes back (or away). */
  private fail(err: unknown, broken: boolean): void {
    const c = this.conn;
    this.conn = null;
    for (const e of this.inFlight.splice(0)) this.settle(e, { error: err });
    for (const e of this.pending.splice(0)) this.settle(e, { error: err });
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (c) this.detach(c, broken);
  }

  private detach(c: PipeConnection, broken: boolean): void {
    c.off('error', this.gone);
    c.off('end', this.gone);
    this.deps.release(c, broken);
  }

  private idleSoon(): void {
    if (this.idleTimer || !this.conn) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      const c = this.conn;
      if (!c || this.inFlight.length || this.pending.length) return;
      this.conn = null;
      this.detach(c, false);
    }, IDLE_RELEASE_MS);
    this.idleTimer.unref();
  }
}
