import type pg from 'pg';
import { commitRolledBack, savepointSql, transactionLost } from '../held.js';
import type { HeldConnection, SavepointOp } from '../types.js';
import { isBrokenConnection, mapPgError, type PgErrorContext } from './errors.js';

/**
 * A PostgreSQL client held for a transaction (BEGIN sent). Statements run on it through
 * `PostgresSource` with `QueryOptions.held`; a write runs inside a savepoint of its own, so a
 * failed one is undone alone and the transaction goes on, as in MySQL (PostgreSQL would
 * otherwise refuse every later statement of the transaction).
 */
export class PgHeld implements HeldConnection {
  private gone = false;
  private ended = false;

  constructor(
    readonly source: string,
    private readonly client: pg.PoolClient,
    private readonly ctx: PgErrorContext,
    /** Back to the pool (discard: it may be broken). */
    private readonly giveBack: (client: pg.PoolClient, discard: boolean) => void,
  ) {}

  get lost(): boolean {
    return this.gone;
  }

  /** The client, for one statement; throws once the connection is gone. */
  use(): pg.PoolClient {
    if (this.gone || this.ended) throw transactionLost(this.source);
    return this.client;
  }

  /** A statement on it ended; `discard`: the connection may be broken, and the transaction with it. */
  done(discard: boolean): void {
    if (!discard || this.gone || this.ended) return;
    this.gone = true;
    this.ended = true;
    this.giveBack(this.client, true);
  }

  async end(commit: boolean): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    let r: pg.QueryResult;
    try {
      r = await this.client.query(commit ? 'COMMIT' : 'ROLLBACK');
    } catch (e) {
      this.giveBack(this.client, true);
      throw mapPgError(this.ctx, e);
    }
    this.giveBack(this.client, false);
    // COMMIT of a transaction PostgreSQL had aborted answers ROLLBACK, not an error.
    if (commit && r.command === 'ROLLBACK') throw commitRolledBack(this.source);
  }

  async savepoint(op: SavepointOp, name: string): Promise<void> {
    const client = this.use();
    try {
      await client.query(savepointSql('postgres', op, name));
    } catch (e) {
      if (isBrokenConnection(e)) this.done(true);
      throw mapPgError(this.ctx, e);
    }
  }
}

/** The savepoint each write of a held transaction runs in (statement-level rollback). */
export const STATEMENT_SAVEPOINT = 'tributary_statement';
