import { savepointSql, transactionLost } from '../held.js';
import type { HeldConnection, SavepointOp } from '../types.js';
import type { Database } from './driver.js';
import { mapSqliteError } from './errors.js';

/**
 * A SQLite handle of its own, opened on the source's file for one transaction (BEGIN sent):
 * the source's shared handle does not see its writes until COMMIT. SQLite locks the file
 * while the transaction writes, so other handles' statements meanwhile answer that the
 * database is locked rather than wait (docs/reference/wire.md).
 */
export class SqliteHeld implements HeldConnection {
  private ended = false;
  readonly lost = false;

  constructor(
    readonly source: string,
    private readonly db: Database,
    private readonly path: string,
    private readonly onEnd: (h: SqliteHeld) => void,
  ) {}

  use(): Database {
    if (this.ended) throw transactionLost(this.source);
    return this.db;
  }

  async end(commit: boolean): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    try {
      this.db.exec(commit ? 'COMMIT' : 'ROLLBACK');
    } catch (e) {
      throw mapSqliteError(this.source, this.path, e);
    } finally {
      // Closing a handle rolls back whatever it still has open.
      if (this.db.isOpen) this.db.close();
      this.onEnd(this);
    }
  }

  async savepoint(op: SavepointOp, name: string): Promise<void> {
    try {
      this.use().exec(savepointSql('sqlite', op, name));
    } catch (e) {
      throw mapSqliteError(this.source, this.path, e);
    }
  }
}
