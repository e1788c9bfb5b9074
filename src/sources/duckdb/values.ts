import {
  DuckDBArrayValue,
  DuckDBBlobValue,
  type DuckDBDataChunk,
  DuckDBDecimalValue,
  DuckDBListValue,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBTimestampTZValue,
  type DuckDBType,
  DuckDBTypeId,
  DuckDBUnionValue,
  type DuckDBValue,
  DuckDBVariantValue,
} from '@duckdb/node-api';
import type { CanonicalValue, FieldInfo, MysqlType, Row } from '../../core/types.js';
import { canonicalInt, float32, normalizeDateTime } from '../value-util.js';

/*
 * DuckDB values → canonical values (sql/types.ts). Shared: the duckdb source uses these, and
 * so can anything else that reads DuckDB results (the local engine).
 */

/** The MySQL type name a DuckDB column reports as. */
export function duckTypeToMysql(t: DuckDBType): MysqlType {
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return 'BOOLEAN';
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.UTINYINT:
      return 'TINYINT';
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.USMALLINT:
      return 'SMALLINT';
    case DuckDBTypeId.INTEGER:
      return 'INT';
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
      return 'BIGINT';
    case DuckDBTypeId.DECIMAL:
      return 'DECIMAL';
    case DuckDBTypeId.FLOAT:
      return 'FLOAT';
    case DuckDBTypeId.DOUBLE:
      return 'DOUBLE';
    case DuckDBTypeId.DATE:
      return 'DATE';
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIME_NS:
      return 'TIME';
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return 'DATETIME';
    case DuckDBTypeId.TIMESTAMP_TZ:
      return 'TIMESTAMP';
    case DuckDBTypeId.BLOB:
      return 'BLOB';
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.UNION:
    case DuckDBTypeId.VARIANT:
      return 'JSON';
    case DuckDBTypeId.VARCHAR:
      return t.alias?.toUpperCase() === 'JSON' ? 'JSON' : 'VARCHAR';
    case DuckDBTypeId.ENUM:
      return 'ENUM';
    default:
      // UUID, INTERVAL, BIT, TIME_TZ (its offset has no canonical TIME form), GEOMETRY.
      return 'VARCHAR';
  }
}

/** A DuckDB value as a JSON fragment: exact numbers (big integers, decimals) stay exact. */
export function duckValueToJson(v: DuckDBValue): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
    case 'bigint':
      return v.toString();
    case 'string':
      return JSON.stringify(v);
  }
  if (v instanceof DuckDBDecimalValue) return v.toString();
  if (v instanceof DuckDBListValue || v instanceof DuckDBArrayValue)
    return `[${v.items.map(duckValueToJson).join(',')}]`;
  if (v instanceof DuckDBStructValue) {
    const parts = Object.entries(v.entries).map(([k, x]) => `${JSON.stringify(k)}:${duckValueToJson(x)}`);
    return `{${parts.join(',')}}`;
  }
  if (v instanceof DuckDBMapValue) {
    // An object when every key is text (the usual MAP(VARCHAR, ...)), else a list of pairs.
    if (v.entries.every((e) => typeof e.key === 'string')) {
      return `{${v.entries.map((e) => `${JSON.stringify(e.key)}:${duckValueToJson(e.value)}`).join(',')}}`;
    }
    return `[${v.entries.map((e) => `{"key":${duckValueToJson(e.key)},"value":${duckValueToJson(e.value)}}`).join(',')}]`;
  }
  if (v instanceof DuckDBUnionValue || v instanceof DuckDBVariantValue) return duckValueToJson(v.value);
  if (v instanceof DuckDBBlobValue) return JSON.stringify(Buffer.from(v.bytes).toString('base64'));
  if (v instanceof DuckDBTimestampTZValue) return JSON.stringify(normalizeDateTime(v.toString()));
  return JSON.stringify(String(v));
}

export type DuckConverter = (v: DuckDBValue) => CanonicalValue;

const same: DuckConverter = (v) => v as CanonicalValue;
const text: DuckConverter = (v) => (v === null ? null : String(v));
const json: DuckConverter = (v) => (v === null ? null : duckValueToJson(v));

/** The converter for one column of type `t`. */
export function duckValueConverter(t: DuckDBType): DuckConverter {
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.DOUBLE:
    case DuckDBTypeId.VARCHAR:
      return same;
    case DuckDBTypeId.FLOAT:
      return (v) => (typeof v === 'number' ? float32(v) : (v as CanonicalValue));
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
      return (v) => (typeof v === 'bigint' ? canonicalInt(v) : (v as CanonicalValue));
    case DuckDBTypeId.BLOB:
      return (v) => (v instanceof DuckDBBlobValue ? v.bytes : (v as CanonicalValue));
    case DuckDBTypeId.TIMESTAMP_TZ:
      return (v) => (v === null ? null : normalizeDateTime(String(v)));
    case DuckDBTypeId.TIMESTAMP_NS:
    case DuckDBTypeId.TIME_NS:
      // Canonical values stop at microseconds.
      return (v) => (v === null ? null : String(v).replace(/(\.\d{6})\d+/, '$1'));
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.UNION:
    case DuckDBTypeId.VARIANT:
      return json;
    default:
      // DECIMAL (exact text), DATE, TIME, TIMESTAMP, UUID, INTERVAL, ENUM, BIT: their text.
      return text;
  }
}

/** Turns DuckDB data chunks into canonical rows, one converter per column. */
export class DuckChunkConverter {
  readonly fields: FieldInfo[];
  private readonly convs: DuckConverter[];

  constructor(names: readonly string[], types: readonly DuckDBType[]) {
    this.fields = names.map((name, i) => ({ name, type: duckTypeToMysql(types[i]) }));
    this.convs = types.map(duckValueConverter);
  }

  rows(chunk: DuckDBDataChunk): Row[] {
    const n = chunk.rowCount;
    const width = this.convs.length;
    const out: Row[] = new Array(n);
    for (let r = 0; r < n; r++) out[r] = new Array(width);
    for (let c = 0; c < width; c++) {
      const conv = this.convs[c];
      const col = chunk.getColumnVector(c);
      for (let r = 0; r < n; r++) out[r][c] = conv(col.getItem(r));
    }
    return out;
  }
}
