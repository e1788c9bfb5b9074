import type { DuckDBConnection } from '@duckdb/node-api';
import { savepointSql, transactionLost } from '../held.js';
import type { HeldConnection, SavepointOp } from '../types.js';
import { mapDuckError } from './errors.js';

/**
 * A DuckDB connection kept for one transaction (BEGIN TRANSACTION sent). DuckDB has no
 * savepoints, and a failed statement aborts its transaction: later ones are refused until
 * ROLLBACK (docs/reference/wire.md).
 */
export class DuckHeld implements HeldConnection {
  private ended = false;
  readonly lost = false;

  constructor(
    readonly source: string,
    private readonly conn: DuckDBConnection,
    private readonly path: string,
    private readonly onEnd: (h: DuckHeld) => void,
  ) {}

  use(): DuckDBConnection {
    if (this.ended) throw transactionLost(this.source);
    return this.conn;
  }

  async end(commit: boolean): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    try {
      await this.conn.run(commit ? 'COMMIT' : 'ROLLBACK');
    } catch (e) {
      throw mapDuckError(this.source, this.path, e);
    } finally {
      this.conn.closeSync();
      this.onEnd(this);
    }
  }

  async savepoint(op: SavepointOp, name: string): Promise<void> {
    try {
      await this.use().run(savepointSql('duckdb', op, name));
    } catch (e) {
      throw mapDuckError(this.source, this.path, e);
    }
  }
}
