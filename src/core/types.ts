/** SQL dialects the compilers can target and sources speak. */
export type DialectName = 'mysql' | 'postgres' | 'sqlite' | 'duckdb';

/**
 * Column types as MySQL names them (docs/reference/mcp.md MYSQL_DATA_TYPE): upper case, no length.
 * Every source maps its native types onto these; value encoding is driven by them.
 */
export type MysqlType =
  | 'TINYINT'
  | 'SMALLINT'
  | 'INT'
  | 'BIGINT'
  | 'DECIMAL'
  | 'FLOAT'
  | 'DOUBLE'
  | 'BOOLEAN'
  | 'CHAR'
  | 'VARCHAR'
  | 'TEXT'
  | 'DATE'
  | 'TIME'
  | 'DATETIME'
  | 'TIMESTAMP'
  | 'YEAR'
  | 'JSON'
  | 'BLOB'
  | 'BINARY'
  | 'ENUM'
  | 'SET';

export interface ColumnInfo {
  name: string;
  type: MysqlType;
  /** The source's own type name, e.g. `character varying(20)`, shown in SHOW FULL COLUMNS / DESCRIBE. */
  nativeType: string;
  nullable: boolean;
  /** 'PRI' | 'UNI' | 'MUL' | '' as MySQL's DESCRIBE shows; '' when unknown. */
  key?: string;
  default?: string | null;
  /** The column's comment in the source; absent or '' when none. */
  comment?: string;
  /** `table.column` a foreign key of this column points at, when the source declares one. */
  references?: string | null;
  /** Set when the source numbers new rows itself (AUTO_INCREMENT, an identity or serial column). */
  autoIncrement?: true;
}

/** A result column as it leaves a source or the local engine. */
export interface FieldInfo {
  name: string;
  type: MysqlType;
  /**
   * A number column a MySQL source declared UNSIGNED: the wire face flags it, or a client
   * reads a BIGINT UNSIGNED past 2^63 (or an INT UNSIGNED past 2^31) as negative.
   */
  unsigned?: true;
  /** Set when the column is a plain column of a source table (the source's or the planner's word, plan/origins.ts). */
  origin?: ColumnOrigin;
}

/**
 * Where a result column comes from (MySQL's column definition: schema, table, org_table,
 * org_name, flags), for a plain column of a source table; absent for expressions.
 */
export interface ColumnOrigin {
  /** The data source's name (MySQL's schema of the column). */
  schema: string;
  /** The table as the statement named it (its alias). */
  table: string;
  /** The table's own name. */
  orgTable: string;
  /** The column's own name (the result column may be an alias of it). */
  orgName: string;
  /** MySQL column-definition flags the source gave (NOT_NULL, PRI_KEY, UNIQUE_KEY, MULTIPLE_KEY, AUTO_INCREMENT, ...). */
  flags: number;
}

/**
 * Canonical in-flight values (what sources yield and the local engine accepts):
 * - null
 * - number for integers that fit in 2^53 and for floats
 * - bigint for larger integers
 * - string for DECIMAL (exact decimal text), text, DATE 'YYYY-MM-DD', TIME 'HH:MM:SS[.ffffff]',
 *   DATETIME/TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.ffffff]' (no time zone; UTC for zoned types)
 * - boolean only for BOOLEAN columns (encoded as 0/1 in results, MySQL style)
 * - Uint8Array for binary
 * - JSON columns: the JSON text as a string (parsed when the result is encoded)
 */
export type CanonicalValue = null | number | bigint | string | boolean | Uint8Array;
export type Row = CanonicalValue[];
