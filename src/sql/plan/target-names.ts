import type { DialectName } from '../../sources/types.js';
import { quoteIdentifier } from '../dialects/index.js';
import { mysqlStringLiteral } from '../dialects/support.js';

/** An identifier quoted for a source's dialect (the dialect compilers' own quoting). */
export function quoteFor(dialect: DialectName, name: string): string {
  return quoteIdentifier(dialect, name);
}

/** How a bound table is named in its source's own SQL: the source prefix is dropped. */
export function sourceTableText(dialect: DialectName, schema: string | null, table: string): string {
  return schema ? `${quoteFor(dialect, schema)}.${quoteFor(dialect, table)}` : quoteFor(dialect, table);
}

/** A literal for a source's INSERT ... VALUES (values never become SQL). */
export function literalFor(dialect: DialectName, v: unknown): string {
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
  const s = String(v);
  if (dialect === 'mysql') return mysqlStringLiteral(s);
  return "'" + s.replace(/'/g, "''") + "'";
}

/** A column type for CREATE TABLE ... AS SELECT into another source. */
export function columnTypeFor(dialect: DialectName, type: string): string {
  const pg: Record<string, string> = {
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
  const my: Record<string, string> = {
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
  const duck: Record<string, string> = {
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
  if (dialect === 'postgres') return pg[type] ?? 'text';
  if (dialect === 'mysql') return my[type] ?? 'LONGTEXT';
  if (dialect === 'duckdb') return duck[type] ?? 'VARCHAR';
  const affinity: Record<string, string> = {
    DECIMAL: 'NUMERIC',
    FLOAT: 'REAL',
    DOUBLE: 'REAL',
    BLOB: 'BLOB',
    BINARY: 'BLOB',
  };
  return affinity[type] ?? (/INT|YEAR|BOOLEAN/.test(type) ? 'INTEGER' : 'TEXT');
}
