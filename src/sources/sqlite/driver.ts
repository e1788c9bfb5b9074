import sqlite from 'node-sqlite3-wasm';
import type { CanonicalValue } from '../../core/types.js';

export const { Database } = sqlite;
export type Database = InstanceType<typeof sqlite.Database>;

/**
 * The parts of node-sqlite3-wasm's Statement we drive directly. Its public API returns rows
 * as objects keyed by column name, which loses columns with the same name (`a.id, b.id`);
 * stepping ourselves and keying each row by column index keeps every column, and the
 * "expand" row tells which table a column comes from. Checked once at start-up so a changed
 * library fails loudly, not with wrong rows.
 */
interface RawStatement {
  _bind(values?: unknown): void;
  _getColumnNames(): string[];
  _step(): boolean | undefined;
  // SQLite hands out only null, number, bigint (safeIntegers), string and Buffer: all canonical.
  _getRow(columns: string[], expand: false): Record<string, CanonicalValue>;
  /** Expanded: keyed by table ('$' for expressions), then by column index. */
  _getRow(columns: string[], expand: true): Record<string, Record<string, CanonicalValue>>;
  finalize(): void;
  readonly isFinalized: boolean;
}

function assertInternals(s: unknown): asserts s is RawStatement {
  const r = s as Partial<RawStatement>;
  if (
    typeof r._bind !== 'function' ||
    typeof r._getColumnNames !== 'function' ||
    typeof r._step !== 'function' ||
    typeof r._getRow !== 'function'
  ) {
    throw new Error('node-sqlite3-wasm internals changed: Statement._step/_getRow are missing');
  }
}

/** One prepared statement read row by row as arrays. */
export class StatementCursor {
  readonly names: string[];
  private readonly stmt: RawStatement;
  private readonly keys: string[];

  constructor(db: Database, sql: string) {
    const stmt = db.prepare(sql);
    assertInternals(stmt);
    this.stmt = stmt;
    try {
      stmt._bind(undefined);
      this.names = stmt._getColumnNames();
    } catch (e) {
      stmt.finalize();
      throw e;
    }
    this.keys = this.names.map((_, i) => String(i));
  }

  /** The next row, or null at the end; the first call may also report each column's table. */
  next(withTables = false): { row: CanonicalValue[]; tables?: (string | null)[] } | null {
    if (!this.stmt._step()) return null;
    const n = this.keys.length;
    const row: CanonicalValue[] = new Array(n);
    if (!withTables) {
      const o = this.stmt._getRow(this.keys, false);
      for (let i = 0; i < n; i++) row[i] = o[i];
      return { row };
    }
    // Expanded rows are keyed by table ('$' for expressions), then by column index.
    const o = this.stmt._getRow(this.keys, true);
    const tables: (string | null)[] = new Array(n).fill(null);
    for (const [table, cols] of Object.entries(o)) {
      for (const [k, v] of Object.entries(cols)) {
        row[Number(k)] = v;
        if (table !== '$') tables[Number(k)] = table;
      }
    }
    return { row, tables };
  }

  finalize(): void {
    if (!this.stmt.isFinalized) this.stmt.finalize();
  }
}
