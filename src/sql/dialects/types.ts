import type { MysqlType } from '../../core/types.js';
import type { Expr } from '../ast/nodes.js';

export type Target = 'mysql' | 'postgres' | 'sqlite' | 'duckdb';

/** A table as the statement names it; `schema` is set for folded three-part names. */
export interface TableRefName {
  db: string | null;
  schema?: string | null;
  table: string;
}

/** A column as the statement names it: `table` is the qualifier as written (alias or table), or null. */
export interface ColumnRefName {
  db?: string | null;
  schema?: string | null;
  table: string | null;
  column: string;
}

export interface CompileOptions {
  /**
   * SQL text for a base table (already quoted for the target), e.g. `pg1.orders` →
   * `"public"."orders"` or a local temp table. The compiler keeps the name the statement
   * used visible by aliasing (`... AS "orders"`), so qualified column references still bind.
   * Default: the written parts, quoted for the target.
   */
  tableName?: (ref: TableRefName) => string;
  /**
   * The MySQL type of a column when the planner knows it. Drives string-comparison
   * semantics (case-insensitive, trailing spaces), boolean handling and date results.
   */
  columnType?: (ref: ColumnRefName) => MysqlType | null | undefined;
  /**
   * The column's real spelling in the source (MySQL column names are case-insensitive,
   * PostgreSQL quoted names are not). Default: as written.
   */
  columnName?: (ref: ColumnRefName) => string;
  /**
   * Spellings of a text column the source's statistics know (most common values), so a
   * MySQL-equal comparison with a literal can be decided by plain comparisons for them
   * (collation.ts). Only speed depends on it: any other value is still folded.
   */
  knownValues?: (ref: ColumnRefName) => readonly string[] | undefined;
  /**
   * How text compares: 'mysql' (default), MySQL's case- and accent-insensitive collation
   * with trailing spaces ignored; 'source', as the target itself compares (a source whose
   * `collation` parameter says so: its rules, its indexes).
   */
  collation?: 'mysql' | 'source';
  /**
   * The pseudo-column giving a base table's row positions in scan order (`ctid`, `rowid`),
   * or null (a view, or a target without one). Grouping on text in two phases needs it to
   * keep MySQL's choice of a group's spelling (two-phase.ts); without it, one phase.
   */
  rowMarker?: (ref: TableRefName) => string | null | undefined;
  /** The label MySQL gives an unaliased expression (dialects/display.ts; index.ts passes it). */
  displayName?: (e: Expr) => string;
  /**
   * Give unaliased computed select items a MySQL-style name (`COUNT(*)`), as MySQL would
   * label the column. Default true.
   */
  autoAlias?: boolean;
}

/** A construct the target cannot say with MySQL's meaning. */
export class UnsupportedError extends Error {
  constructor(
    readonly target: Target,
    readonly reason: string,
  ) {
    super(`cannot be translated for ${target}: ${reason}`);
    this.name = 'UnsupportedError';
  }
}

/** What the compiler knows of an expression's type; null when it cannot tell. */
export type Kind = 'string' | 'number' | 'date' | 'datetime' | 'time' | 'bool' | 'json' | 'binary' | null;

export function kindOfMysqlType(t: MysqlType | null | undefined): Kind {
  switch (t) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'DECIMAL':
    case 'FLOAT':
    case 'DOUBLE':
    case 'YEAR':
      return 'number';
    case 'BOOLEAN':
      return 'bool';
    case 'CHAR':
    case 'VARCHAR':
    case 'TEXT':
    case 'ENUM':
    case 'SET':
      return 'string';
    case 'DATE':
      return 'date';
    case 'DATETIME':
    case 'TIMESTAMP':
      return 'datetime';
    case 'TIME':
      return 'time';
    case 'JSON':
      return 'json';
    case 'BLOB':
    case 'BINARY':
      return 'binary';
    default:
      return null;
  }
}
