import type pg from 'pg';
import type { Row } from '../../core/types.js';
import type { RowReader } from '../stream-util.js';
import { sendCancelRequest } from './cancel.js';
import { isBrokenConnection } from './errors.js';
import type { StreamedQuery } from './streamed-query.js';

const CANCEL_WAIT_MS = 5000;

function within<T>(p: Promise<T>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    const done = () => {
      clearTimeout(t);
      resolve(true);
    };
    p.then(done, done);
  });
}

/** How often a cancel is sent again while the statement still runs. */
const CANCEL_RETRY_MS = 250;

/**
 * CancelRequests until the statement on `client` has finished (true), or CANCEL_WAIT_MS
 * passed (false). PostgreSQL ignores a cancel that reaches the backend between protocol
 * messages (before Execute began), so one may be lost; another is sent while `finished` is
 * still pending. Each is sent only after the previous one was delivered, and none after the
 * statement finished, so none can reach a later statement on the connection.
 */
export async function cancelUntilFinished(
  server: { host: string; port: number },
  client: pg.PoolClient,
  finished: Promise<unknown>,
): Promise<boolean> {
  const c = client as pg.PoolClient & { processID?: number; secretKey?: number };
  if (typeof c.processID !== 'number' || typeof c.secretKey !== 'number')
    return within(finished, CANCEL_WAIT_MS);
  const end = performance.now() + CANCEL_WAIT_MS;
  do {
    await sendCancelRequest(server.host, server.port, c.processID, c.secretKey);
    if (await within(finished, CANCEL_RETRY_MS)) return true;
  } while (performance.now() < end);
  return false;
}

/**
 * Reads a StreamedQuery's batches; gives the client back once the connection is ready for
 * another statement, or discards it when it is broken or would not stop in time.
 */
export class PgStreamReader implements RowReader {
  private broken = false;

  constructor(
    private readonly query: StreamedQuery,
    private readonly client: pg.PoolClient,
    private readonly server: { host: string; port: number },
    private readonly checkin: (client: pg.PoolClient, discard: boolean) => void,
  ) {}

  async next(): Promise<Row[] | null> {
    try {
      return await this.query.next();
    } catch (e) {
      if (isBrokenConnection(e)) this.broken = true;
      throw e;
    }
  }

  /**
   * Stop the statement if it is still sending rows: a protocol CancelRequest, then wait for
   * the connection to be ready again. The client goes back to the pool only after both, so a
   * late cancel can never hit the next statement on that connection.
   */
  async cancel(): Promise<void> {
    if (this.query.done) return;
    this.query.discard();
    if (!(await cancelUntilFinished(this.server, this.client, this.query.finished))) this.broken = true;
  }

  async release(): Promise<void> {
    if (!this.query.done) await this.cancel();
    // Usually ReadyForQuery came with the last rows: no timer for a wait that cannot happen.
    else {
      // The reader may leave before reading every batch: the socket can be paused on the
      // unread ones (even after ReadyForQuery, which came in the same chunk), and a client
      // must never go back to the pool paused, or its next statement waits forever.
      this.query.discard();
      if (!this.query.isFinished && !(await within(this.query.finished, CANCEL_WAIT_MS))) this.broken = true;
    }
    this.checkin(this.client, this.broken);
  }
}
