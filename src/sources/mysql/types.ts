import type { CanonicalValue, FieldInfo, MysqlType } from '../../core/types.js';
import { canonicalInt } from '../value-util.js';

/*
 * mysql2 result fields → MySQL type names, and the few value conversions the pool options
 * (dateStrings, supportBigNumbers, decimalNumbers false, jsonStrings) leave to us.
 */

/** Protocol column types (include/mysql_com.h enum_field_types). */
export const T = {
  DECIMAL: 0,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  NULL: 6,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  NEWDATE: 14,
  VARCHAR: 15,
  BIT: 16,
  JSON: 245,
  NEWDECIMAL: 246,
  ENUM: 247,
  SET: 248,
  TINY_BLOB: 249,
  MEDIUM_BLOB: 250,
  LONG_BLOB: 251,
  BLOB: 252,
  VAR_STRING: 253,
  STRING: 254,
  GEOMETRY: 255,
} as const;

const UNSIGNED_FLAG = 32;
const ENUM_FLAG = 256;
const SET_FLAG = 2048;
const BINARY_CHARSET = 63;

export interface MysqlField {
  name: string;
  columnType?: number;
  characterSet?: number;
  flags?: number | string[];
  table?: string;
  orgTable?: string;
  orgName?: string;
}

function flagSet(f: MysqlField, flag: number): boolean {
  return typeof f.flags === 'number' && (f.flags & flag) !== 0;
}

/**
 * A result column of a MySQL source as the engine describes it (FieldInfo), `type` when known
 * otherwise; a plain column of a table keeps where it comes from, under the source's name
 * `schema` (the wire face writes it into its column definition, as MySQL would).
 */
export function fieldInfoOf(
  f: MysqlField & { name: string },
  type = mysqlTypeOfField(f),
  schema?: string,
): FieldInfo {
  const info: FieldInfo =
    NUMERIC.has(type) && flagSet(f, UNSIGNED_FLAG)
      ? { name: f.name, type, unsigned: true }
      : { name: f.name, type };
  const orgTable = schema === undefined ? '' : f.orgTable;
  if (orgTable)
    info.origin = {
      schema: schema!,
      table: f.table || orgTable,
      orgTable,
      orgName: f.orgName || f.name,
      flags: typeof f.flags === 'number' ? f.flags : 0,
    };
  return info;
}

const NUMERIC = new Set<MysqlType>(['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'DECIMAL', 'FLOAT', 'DOUBLE']);

export function mysqlTypeOfField(f: MysqlField): MysqlType {
  const binary = f.characterSet === BINARY_CHARSET;
  switch (f.columnType) {
    case T.DECIMAL:
    case T.NEWDECIMAL:
      return 'DECIMAL';
    case T.TINY:
      return 'TINYINT';
    case T.SHORT:
      return 'SMALLINT';
    case T.LONG:
    case T.INT24:
      return 'INT';
    case T.LONGLONG:
    case T.BIT:
      return 'BIGINT';
    case T.FLOAT:
      return 'FLOAT';
    case T.DOUBLE:
      return 'DOUBLE';
    case T.TIMESTAMP:
      return 'TIMESTAMP';
    case T.DATETIME:
      return 'DATETIME';
    case T.DATE:
    case T.NEWDATE:
      return 'DATE';
    case T.TIME:
      return 'TIME';
    case T.YEAR:
      return 'YEAR';
    case T.JSON:
      return 'JSON';
    case T.ENUM:
      return 'ENUM';
    case T.SET:
      return 'SET';
    case T.TINY_BLOB:
    case T.MEDIUM_BLOB:
    case T.LONG_BLOB:
    case T.BLOB:
      return binary ? 'BLOB' : 'TEXT';
    case T.GEOMETRY:
      return 'BLOB';
    case T.VARCHAR:
    case T.VAR_STRING:
    case T.STRING:
      if (flagSet(f, ENUM_FLAG)) return 'ENUM';
      if (flagSet(f, SET_FLAG)) return 'SET';
      if (binary) return 'BINARY';
      return f.columnType === T.STRING ? 'CHAR' : 'VARCHAR';
    default:
      return 'TEXT';
  }
}

/** The driver already gives canonical kinds (numbers, strings, bytes); some columns need another. */
type Conv = (v: CanonicalValue) => CanonicalValue;

/** BIGINT beyond 2^53 arrives as text (supportBigNumbers without bigNumberStrings). */
const bigint: Conv = (v) => (typeof v === 'string' ? canonicalInt(BigInt(v)) : v);

/** BIT(n) arrives as big-endian bytes. */
const bits: Conv = (v) => {
  if (!(v instanceof Uint8Array)) return v;
  let n = 0n;
  for (const b of v) n = (n << 8n) | BigInt(b);
  return canonicalInt(n);
};

/** Per-column converters; null where the driver's value is already canonical. */
export function convertersFor(fields: MysqlField[]): (Conv | null)[] {
  return fields.map((f) => (f.columnType === T.LONGLONG ? bigint : f.columnType === T.BIT ? bits : null));
}

/** information_schema DATA_TYPE → MySQL type name. TINYINT(1) stays TINYINT, as MySQL reports it. */
export function mysqlTypeOfDataType(dataType: string): MysqlType {
  switch (dataType.toLowerCase()) {
    case 'tinyint':
      return 'TINYINT';
    case 'smallint':
      return 'SMALLINT';
    case 'mediumint':
    case 'int':
    case 'integer':
      return 'INT';
    case 'bigint':
    case 'bit':
      return 'BIGINT';
    case 'decimal':
    case 'numeric':
      return 'DECIMAL';
    case 'float':
      return 'FLOAT';
    case 'double':
    case 'real':
    case 'double precision':
      return 'DOUBLE';
    case 'char':
      return 'CHAR';
    case 'varchar':
      return 'VARCHAR';
    case 'tinytext':
    case 'text':
    case 'mediumtext':
    case 'longtext':
      return 'TEXT';
    case 'binary':
    case 'varbinary':
      return 'BINARY';
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
    case 'geometry':
    case 'point':
    case 'linestring':
    case 'polygon':
    case 'multipoint':
    case 'multilinestring':
    case 'multipolygon':
    case 'geometrycollection':
      return 'BLOB';
    case 'date':
      return 'DATE';
    case 'time':
      return 'TIME';
    case 'datetime':
      return 'DATETIME';
    case 'timestamp':
      return 'TIMESTAMP';
    case 'year':
      return 'YEAR';
    case 'json':
      return 'JSON';
    case 'enum':
      return 'ENUM';
    case 'set':
      return 'SET';
    case 'boolean':
    case 'bool':
      return 'BOOLEAN';
    default:
      return 'VARCHAR';
  }
}
