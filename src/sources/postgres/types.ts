import pg from 'pg';
import type { CanonicalValue, MysqlType } from '../../core/types.js';
import { float32, intFromText, normalizeDateTime } from '../value-util.js';
import { parsePgArray } from './array-text.js';

/*
 * PostgreSQL values in text format → canonical values (sql/types.ts). These parsers are
 * handed to each pool client and cursor, never installed in pg's global registry, which
 * other code in the process (the catalog store) also uses.
 *
 * The session runs with DateStyle=ISO and TimeZone=UTC (see source.ts), so dates and
 * timestamps arrive as 'YYYY-MM-DD HH:MM:SS[.ffffff]' and timestamptz with a '+00' suffix.
 */

export const OID = {
  bool: 16,
  bytea: 17,
  char: 18,
  name: 19,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  json: 114,
  xml: 142,
  float4: 700,
  float8: 701,
  money: 790,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  timetz: 1266,
  numeric: 1700,
  uuid: 2950,
  jsonb: 3802,
} as const;

const MYSQL_TYPE: Record<number, MysqlType> = {
  [OID.bool]: 'BOOLEAN',
  [OID.bytea]: 'BLOB',
  [OID.char]: 'CHAR',
  [OID.name]: 'VARCHAR',
  [OID.int8]: 'BIGINT',
  [OID.int2]: 'SMALLINT',
  [OID.int4]: 'INT',
  [OID.text]: 'TEXT',
  [OID.oid]: 'BIGINT',
  [OID.json]: 'JSON',
  [OID.float4]: 'FLOAT',
  [OID.float8]: 'DOUBLE',
  [OID.bpchar]: 'CHAR',
  [OID.varchar]: 'VARCHAR',
  [OID.date]: 'DATE',
  [OID.time]: 'TIME',
  [OID.timestamp]: 'DATETIME',
  [OID.timestamptz]: 'TIMESTAMP',
  [OID.interval]: 'VARCHAR',
  // timetz keeps its offset, which no canonical TIME can hold.
  [OID.timetz]: 'VARCHAR',
  [OID.numeric]: 'DECIMAL',
  [OID.uuid]: 'VARCHAR',
  [OID.jsonb]: 'JSON',
};

/** Built-in array types → their element type. */
const ARRAY_ELEMENT: Record<number, number> = {
  1000: OID.bool,
  1001: OID.bytea,
  1002: OID.char,
  1003: OID.name,
  1005: OID.int2,
  1007: OID.int4,
  1009: OID.text,
  1014: OID.bpchar,
  1015: OID.varchar,
  1016: OID.int8,
  1021: OID.float4,
  1022: OID.float8,
  1028: OID.oid,
  1182: OID.date,
  1183: OID.time,
  1115: OID.timestamp,
  1185: OID.timestamptz,
  1187: OID.interval,
  1231: OID.numeric,
  1270: OID.timetz,
  2951: OID.uuid,
  199: OID.json,
  3807: OID.jsonb,
};

/** MySQL type name for a result column of this type OID (unknown and user types read as text). */
export function mysqlTypeForOid(oid: number): MysqlType {
  if (ARRAY_ELEMENT[oid] !== undefined) return 'JSON';
  return MYSQL_TYPE[oid] ?? 'TEXT';
}

type Parser = (text: string) => CanonicalValue;

const byteaParser = pg.types.getTypeParser(OID.bytea, 'text') as (s: string) => Buffer;
/** The parser of every type whose text is its canonical value (callers may skip the call). */
export const asText: Parser = (s) => s;

const SCALAR: Record<number, Parser> = {
  [OID.bool]: (s) => s === 't',
  [OID.int2]: Number,
  [OID.int4]: Number,
  [OID.oid]: Number,
  [OID.int8]: intFromText,
  [OID.float4]: (s) => float32(Number.parseFloat(s)),
  [OID.float8]: Number.parseFloat,
  [OID.timestamptz]: normalizeDateTime,
  [OID.bytea]: byteaParser,
};

const NUMERIC_JSON = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** One array element (text, or null) as a JSON fragment: numbers stay exact, json stays JSON. */
function elementJson(elem: number, v: string | null): string {
  if (v === null) return 'null';
  switch (elem) {
    case OID.bool:
      return v === 't' ? 'true' : 'false';
    case OID.int2:
    case OID.int4:
    case OID.int8:
    case OID.oid:
    case OID.float4:
    case OID.float8:
    case OID.numeric:
      return NUMERIC_JSON.test(v) ? v : JSON.stringify(v);
    case OID.json:
    case OID.jsonb:
      return v;
    case OID.bytea:
      return JSON.stringify(byteaParser(v).toString('base64'));
    case OID.timestamptz:
      return JSON.stringify(normalizeDateTime(v));
    default:
      return JSON.stringify(v);
  }
}

function arrayParser(elem: number): Parser {
  return (s) => parsePgArray(s, (v) => elementJson(elem, v));
}

/** Per-client/per-cursor type configuration (pg's `types` option). */
export const pgTypes: pg.CustomTypesConfig = {
  // pg types getTypeParser by overloads per format; one function serves both.
  getTypeParser: ((oid: number, format?: string) => {
    if (format === 'binary') return pg.types.getTypeParser(oid, 'binary');
    const scalar = SCALAR[oid];
    if (scalar) return scalar;
    const elem = ARRAY_ELEMENT[oid];
    if (elem !== undefined) return arrayParser(elem);
    // numeric, dates, times, json, uuid, interval, text and unknown types: the text as sent.
    return asText;
  }) as pg.CustomTypesConfig['getTypeParser'],
};
