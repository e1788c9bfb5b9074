import type { PoolConnection } from 'mysql2';
import { savepointSql, transactionLost } from '../held.js';
import type { HeldConnection, SavepointOp } from '../types.js';
import { isBrokenConnection, type MysqlErrorContext, mapMysqlError } from './errors.js';

/** Runs one statement on a connection (callback API), resolving with its result. */
export function run(conn: PoolConnection, sql: string): Promise<unknown> {
  return new Promise((resolve, reject) =>
    conn.query(sql, (e: unknown, r: unknown) => (e ? reject(e) : resolve(r))),
  );
}

/**
 * A MySQL/MariaDB connection held for a transaction. It is begun with `SET autocommit = 0`
 * rather than START TRANSACTION: a statement that commits implicitly (DDL) then starts the
 * next transaction, as in a MySQL session with autocommit off; the end sets it back.
 */
export class MysqlHeld implements HeldConnection {
  private gone = false;
  private ended = false;

  constructor(
    readonly source: string,
    private readonly conn: PoolConnection,
    private readonly ctx: MysqlErrorContext,
    private readonly giveBack: (conn: PoolConnection, destroy: boolean) => void,
  ) {}

  get lost(): boolean {
    return this.gone;
  }

  use(): PoolConnection {
    if (this.gone || this.ended) throw transactionLost(this.source);
    return this.conn;
  }

  /** A statement on it ended; `lost`: the connection was destroyed or may be broken. */
  done(lost: boolean): void {
    if (!lost || this.gone || this.ended) return;
    this.gone = true;
    this.ended = true;
    this.giveBack(this.conn, true);
  }

  async end(commit: boolean): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    try {
      await run(this.conn, commit ? 'COMMIT' : 'ROLLBACK');
      await run(this.conn, 'SET autocommit = 1');
    } catch (e) {
      this.giveBack(this.conn, true);
      throw mapMysqlError(this.ctx, e);
    }
    this.giveBack(this.conn, false);
  }

  async savepoint(op: SavepointOp, name: string): Promise<void> {
    const conn = this.use();
    try {
      await run(conn, savepointSql('mysql', op, name));
    } catch (e) {
      if (isBrokenConnection(e)) this.done(true);
      throw mapMysqlError(this.ctx, e);
    }
  }
}
