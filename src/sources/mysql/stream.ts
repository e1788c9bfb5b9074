import type { Readable } from 'node:stream';
import type { PoolConnection } from 'mysql2';
import type { CanonicalValue, Row } from '../../core/types.js';
import { type RowReader, readableBatches } from '../stream-util.js';
import { isBrokenConnection } from './errors.js';

type Conv = ((v: CanonicalValue) => CanonicalValue) | null;

/** How long a held connection's killed statement may take to end before the connection is closed instead. */
const HELD_STOP_MS = 5_000;

/** Reads and drops what is left of a result until it ends; false when `ms` pass first. */
async function drain(stream: Readable, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  for (;;) {
    while (stream.read() !== null);
    if (stream.errored || stream.readableEnded || stream.destroyed) return true;
    const left = until - performance.now();
    if (left <= 0) return false;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stream.off('readable', done);
        stream.off('end', done);
        stream.off('error', done);
        stream.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, left);
      stream.on('readable', done);
      stream.on('end', done);
      stream.on('error', done);
      stream.on('close', done);
    });
  }
}

/**
 * Batches from a mysql2 query stream (rowsAsArray). A stream not read to its end is
 * killed on the server and its connection destroyed: the rest of the result would
 * otherwise still be on the wire when the pool hands the connection out again.
 */
export class MysqlStreamReader implements RowReader {
  private readonly it: AsyncGenerator<unknown[]>;
  private ended = false;
  private broken = false;
  private gone = false;

  constructor(
    private readonly conn: PoolConnection,
    private readonly stream: Readable,
    size: number,
    private readonly convs: Conv[],
    private readonly kill: (threadId: number) => Promise<void>,
    /** `lost`: the connection was destroyed (or may be broken). */
    private readonly done: (lost: boolean) => void,
    /** The connection is held for a transaction: it stays out of the pool at the end. */
    private readonly held = false,
  ) {
    this.it = readableBatches<unknown[]>(stream, size);
  }

  async next(): Promise<Row[] | null> {
    if (this.ended) return null;
    let r: IteratorResult<unknown[]>;
    try {
      r = await this.it.next();
    } catch (e) {
      this.ended = true;
      if (isBrokenConnection(e)) this.broken = true;
      throw e;
    }
    if (r.done) {
      this.ended = true;
      return null;
    }
    const out: Row[] = [];
    const convs = this.convs;
    const needs = convs.some((c) => c !== null);
    for (const item of r.value) {
      // A statement without rows yields its OK packet through the same stream.
      if (!Array.isArray(item)) continue;
      if (needs)
        for (let i = 0; i < convs.length; i++) if (convs[i] && item[i] !== null) item[i] = convs[i]!(item[i]);
      out.push(item as Row);
    }
    return out;
  }

  async cancel(): Promise<void> {
    if (this.ended || this.gone) return;
    // A held connection keeps its transaction: the statement alone is killed, as MySQL's
    // KILL QUERY does, and the rest of its result read away; the connection goes only if
    // that does not end in time.
    if (this.held) {
      await this.kill(this.conn.threadId);
      if (await drain(this.stream, HELD_STOP_MS)) {
        this.ended = true;
        return;
      }
    }
    this.gone = true;
    await this.kill(this.conn.threadId);
    // Wakes a read in flight; the consumer sees the end of the batches.
    this.stream.destroy();
    this.conn.destroy();
  }

  async release(): Promise<void> {
    if (!this.ended && !this.gone) await this.cancel();
    const lost = this.gone || this.broken;
    if (lost) {
      if (!this.gone) this.conn.destroy();
    } else if (!this.held) {
      this.conn.release();
    }
    this.done(lost);
  }
}
