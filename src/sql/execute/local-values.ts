import { type DuckDBDataChunk, type DuckDBType, DuckDBTypeId } from '@duckdb/node-api';
import type { CanonicalValue, FieldInfo, MysqlType, Row } from '../types.js';

/** DuckDB result type → the MySQL type name results report. */
export function mysqlTypeOf(t: DuckDBType): MysqlType {
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
      return 'BIGINT';
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
    case DuckDBTypeId.DECIMAL:
      return 'DECIMAL';
    case DuckDBTypeId.FLOAT:
      return 'FLOAT';
    case DuckDBTypeId.DOUBLE:
      return 'DOUBLE';
    case DuckDBTypeId.DATE:
      return 'DATE';
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIME_TZ:
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
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.ARRAY:
      return 'JSON';
    default:
      return t.toString() === 'JSON' ? 'JSON' : 'VARCHAR';
  }
}

const MAX = BigInt(Number.MAX_SAFE_INTEGER);
const MIN = BigInt(Number.MIN_SAFE_INTEGER);

type Conv = (v: any) => CanonicalValue;

function converterFor(t: DuckDBType): Conv {
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
    case DuckDBTypeId.VARCHAR:
      return (v) => v;
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
      return (v) => (v === null ? null : v <= MAX && v >= MIN ? Number(v) : (v as bigint));
    case DuckDBTypeId.BLOB:
      return (v) => (v === null ? null : (v.bytes as Uint8Array));
    case DuckDBTypeId.TIMESTAMP_TZ:
      // DuckDB prints the zone offset; results carry UTC without a zone.
      return (v) => (v === null ? null : String(v).replace(/[+-]\d\d(:\d\d)?$/, ''));
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.ARRAY:
      return (v) => (v === null ? null : JSON.stringify(toJson(v)));
    default:
      return (v) => (v === null ? null : typeof v === 'object' ? String(v) : v);
  }
}

function toJson(v: any): unknown {
  if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? Number(v) : v;
  if (Array.isArray(v.items)) return v.items.map(toJson);
  if (v.entries && typeof v.entries === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(v.entries)) o[k] = toJson(val);
    return o;
  }
  return String(v);
}

/** Reads DuckDB chunks as canonical rows (sql/types.ts), one converter per column. */
export class ChunkReader {
  readonly fields: FieldInfo[];
  private readonly convs: Conv[];
  constructor(names: readonly string[], types: readonly DuckDBType[]) {
    this.fields = names.map((name, i) => ({ name, type: mysqlTypeOf(types[i]) }));
    this.convs = types.map(converterFor);
  }
  rows(chunk: DuckDBDataChunk): Row[] {
    const cols = chunk.getColumns();
    const n = chunk.rowCount;
    const out: Row[] = new Array(n);
    const width = cols.length;
    for (let r = 0; r < n; r++) {
      const row: Row = new Array(width);
      for (let c = 0; c < width; c++) row[c] = this.convs[c](cols[c][r]);
      out[r] = row;
    }
    return out;
  }
}
