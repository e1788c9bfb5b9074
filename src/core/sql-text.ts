/**
 * SQL text for each dialect, written once: quoted identifiers, string literals, value
 * literals (for INSERT ... VALUES), column types (for CREATE TABLE) and table names. Every
 * layer that writes SQL by hand uses these, so quoting has one set of rules. Values never
 * become SQL: everything a caller passes is quoted here.
 */
import type { DialectName } from './types.js';

/** An identifier quoted for the dialect: backticks for MySQL, double quotes elsewhere. */
export function quoteIdent(dialect: DialectName, name: string): string {
  if (dialect === 'mysql') return `\`${name.replace(/`/g, '``')}\``;
  return `"${name.replace(/"/g, '""')}"`;
}

/** A string literal for the dialect: MySQL escapes with backslashes, the others double quotes. */
export function stringLiteral(dialect: DialectName, value: string): string {
  if (dialect === 'mysql') return mysqlStringLiteral(value);
  return `'${value.replace(/'/g, "''")}'`;
}

/** MySQL's escaped string literal (NUL, newlines, Ctrl-Z, backslash and quote escaped). */
function mysqlStringLiteral(v: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL and Ctrl-Z are exactly what MySQL escapes.
  return `'${v.replace(/[\\'\0\n\r\x1a]/g, (ch) => {
    switch (ch) {
      case '\0':
        return '\\0';
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\x1a':
        return '\\Z';
      default:
        return '\\' + ch;
    }
  })}'`;
}

/** How a table is named in its source's own SQL: `schema.table`, or the table alone. */
export function tableName(dialect: DialectName, schema: string | null, table: string): string {
  return schema ? `${quoteIdent(dialect, schema)}.${quoteIdent(dialect, table)}` : quoteIdent(dialect, table);
}

/** A canonical value as a literal of the dialect (INSERT ... VALUES). */
export function valueLiteral(dialect: DialectName, v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'NULL';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean')
    return dialect === 'mysql' || dialect === 'sqlite' ? (v ? '1' : '0') : v ? 'TRUE' : 'FALSE';
  if (v instanceof Uint8Array) {
    const hex = Buffer.from(v).toString('hex');
    if (dialect === 'postgres') return `'\\x${hex}'::bytea`;
    if (dialect === 'duckdb') return `from_hex('${hex}')`;
    return `X'${hex}'`;
  }
  return stringLiteral(dialect, String(v));
}

const POSTGRES_TYPES: Record<string, string> = {
  TINYINT: 'smallint',
  SMALLINT: 'smallint',
  INT: 'integer',
  BIGINT: 'bigint',
  YEAR: 'integer',
  DECIMAL: 'numeric',
  FLOAT: 'real',
  DOUBLE: 'double precision',
  BOOLEAN: 'boolean',
  DATE: 'date',
  TIME: 'time',
  DATETIME: 'timestamp',
  TIMESTAMP: 'timestamp',
  JSON: 'jsonb',
  BLOB: 'bytea',
  BINARY: 'bytea',
};

const MYSQL_TYPES: Record<string, string> = {
  TINYINT: 'TINYINT',
  SMALLINT: 'SMALLINT',
  INT: 'INT',
  BIGINT: 'BIGINT',
  YEAR: 'INT',
  DECIMAL: 'DECIMAL(38,10)',
  FLOAT: 'FLOAT',
  DOUBLE: 'DOUBLE',
  BOOLEAN: 'BOOLEAN',
  DATE: 'DATE',
  TIME: 'TIME(6)',
  DATETIME: 'DATETIME(6)',
  TIMESTAMP: 'DATETIME(6)',
  JSON: 'JSON',
  BLOB: 'LONGBLOB',
  BINARY: 'LONGBLOB',
};

const DUCKDB_TYPES: Record<string, string> = {
  TINYINT: 'SMALLINT',
  SMALLINT: 'SMALLINT',
  INT: 'INTEGER',
  BIGINT: 'BIGINT',
  YEAR: 'INTEGER',
  DECIMAL: 'DECIMAL(38,10)',
  FLOAT: 'FLOAT',
  DOUBLE: 'DOUBLE',
  BOOLEAN: 'BOOLEAN',
  DATE: 'DATE',
  TIME: 'TIME',
  DATETIME: 'TIMESTAMP',
  TIMESTAMP: 'TIMESTAMP',
  JSON: 'JSON',
  BLOB: 'BLOB',
  BINARY: 'BLOB',
};

const SQLITE_AFFINITY: Record<string, string> = {
  DECIMAL: 'NUMERIC',
  FLOAT: 'REAL',
  DOUBLE: 'REAL',
  BLOB: 'BLOB',
  BINARY: 'BLOB',
};

/** A column type of the dialect for a MySQL type (CREATE TABLE ... AS SELECT into another source). */
export function columnType(dialect: DialectName, type: string): string {
  if (dialect === 'postgres') return POSTGRES_TYPES[type] ?? 'text';
  if (dialect === 'mysql') return MYSQL_TYPES[type] ?? 'LONGTEXT';
  if (dialect === 'duckdb') return DUCKDB_TYPES[type] ?? 'VARCHAR';
  return SQLITE_AFFINITY[type] ?? (/INT|YEAR|BOOLEAN/.test(type) ? 'INTEGER' : 'TEXT');
}
