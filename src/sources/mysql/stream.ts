import type { Readable } from 'node:stream';
import type { PoolConnection } from 'mysql2';
import type { CanonicalValue, Row } from '../../core/types.js';
import { type RowReader, readableBatches } from '../stream-util.js';
import { isBrokenConnection } from './errors.js';

type Conv = ((v: CanonicalValue) => CanonicalValue) | null;

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
