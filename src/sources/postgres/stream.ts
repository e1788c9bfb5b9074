import type pg from 'pg';
import type { Row } from '../../sql/types.js';
import type { RowReader } from '../stream-util.js';
import { type DescribedCursor, sendCancelRequest } from './cursor.js';
import { isBrokenConnection } from './errors.js';

const CANCEL_WAIT_MS = 5000;
const CLOSE_WAIT_MS = 5000;

function within<T>(p: Promise<T>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    p.then(
      () => {
        clearTimeout(t);
        resolve(true);
      },
      () => {
        clearTimeout(t);
        resolve(true);
      },
    );
  });
}

/** Reads a described cursor in batches; gives the client back (or discards it when broken). */
export class PgCursorReader implements RowReader {
  private reading: Promise<unknown[][]> | null = null;
  private done = false;
  private broken = false;

  constructor(
    private readonly cursor: DescribedCursor,
    private readonly client: pg.PoolClient,
    private readonly size: number,
    private readonly server: { host: string; port: number },
    private readonly checkin: (client: pg.PoolClient, discard: boolean) => void,
  ) {}

  async next(): Promise<Row[] | null> {
    if (this.done) return null;
    this.reading = this.cursor.read(this.size);
    let rows: unknown[][];
    try {
      rows = await this.reading;
    } catch (e) {
      this.done = true;
      if (isBrokenConnection(e)) this.broken = true;
      throw e;
    } finally {
      this.reading = null;
    }
    // A short batch means the portal is complete: no extra round trip to learn that.
    if (rows.length < this.size) this.done = true;
    return rows.length ? (rows as Row[]) : null;
  }

  async cancel(): Promise<void> {
    const reading = this.reading;
    if (!reading) return;
    const c = this.client as pg.PoolClient & { processID?: number; secretKey?: number };
    if (typeof c.processID === 'number' && typeof c.secretKey === 'number') {
      await sendCancelRequest(this.server.host, this.server.port, c.processID, c.secretKey);
    }
    if (!(await within(reading, CANCEL_WAIT_MS))) this.broken = true;
  }

  async release(): Promise<void> {
    if (!this.broken) {
      // Closing the portal ends the implicit transaction the cursor holds open.
      if (!(await within(this.cursor.close(), CLOSE_WAIT_MS))) this.broken = true;
    }
    this.checkin(this.client, this.broken);
  }
}
