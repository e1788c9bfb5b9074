import net from 'node:net';
import Cursor from 'pg-cursor';
import { pgTypes } from './types.js';

export interface PgField {
  name: string;
  dataTypeID: number;
}

const base = Cursor.prototype as any;

/**
 * A pg-cursor that reports the result's columns as soon as the server describes the portal
 * (after Parse/Bind/Describe, before anything executes), so a QueryStream knows its columns
 * while a slow query has produced nothing yet and can still be cancelled.
 */
export class DescribedCursor extends Cursor<unknown[]> {
  /** Resolves with the columns ([] for a statement without rows), rejects with the first error. */
  readonly described: Promise<PgField[]>;
  private settle!: { resolve: (f: PgField[]) => void; reject: (e: unknown) => void };

  constructor(sql: string) {
    super(sql, undefined, { rowMode: 'array', types: pgTypes });
    this.described = new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Errors after `described` settles reach the reader through read(); this keeps an early
    // rejection from being reported as unhandled when nobody awaits it yet.
    this.described.catch(() => {});
  }

  handleRowDescription(msg: { fields: PgField[] }): void {
    base.handleRowDescription.call(this, msg);
    this.settle.resolve(msg.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })));
  }

  _ifNoData(): void {
    base._ifNoData.call(this);
    this.settle.resolve([]);
  }

  handleError(msg: unknown): void {
    this.settle.reject(msg);
    base.handleError.call(this, msg);
  }

  handleReadyForQuery(): void {
    base.handleReadyForQuery.call(this);
    // An empty query string gets neither a description nor an error.
    this.settle.resolve([]);
  }
}

/**
 * PostgreSQL's CancelRequest on a fresh socket (libpq's PQcancel): it needs no login and no
 * pool slot, and stops the statement the backend is running.
 */
export function sendCancelRequest(
  host: string,
  port: number,
  processID: number,
  secretKey: number,
): Promise<void> {
  return new Promise((resolve) => {
    const msg = Buffer.alloc(16);
    msg.writeInt32BE(16, 0);
    msg.writeInt32BE(80877102, 4);
    msg.writeInt32BE(processID, 8);
    msg.writeInt32BE(secretKey, 12);
    const sock = net.connect({ host, port });
    const done = () => {
      sock.destroy();
      resolve();
    };
    sock.setTimeout(3000, done);
    sock.once('connect', () => sock.end(msg));
    sock.once('close', done);
    sock.once('error', done);
  });
}
