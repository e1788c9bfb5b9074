import { isTooDeep, SqlError, tooDeep } from '../core/errors.js';
import { StorageFullError } from '../core/storage-full.js';
import type { FieldInfo, MysqlType } from '../core/types.js';

/** docs/reference/sql.md result shapes: the same object from MCP and from POST /api/sql/query. */
export interface TableResult {
  type: 'table';
  column_names: string[];
  data: unknown[][];
  truncated?: true;
}
/** What INSERT INTO a knowledge base did, row by row (extra fields of its ok result). */
export interface RowCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  failed: number;
}
export interface OkResult extends Partial<RowCounts> {
  type: 'ok';
  affected_rows: number | null;
}
export interface ErrorResult {
  type: 'error';
  error_code: number;
  error_message: string;
}
export type Result = TableResult | OkResult | ErrorResult;

export function errorResult(e: unknown): ErrorResult {
  if (e instanceof SqlError) return { type: 'error', error_code: e.code, error_message: e.message };
  if (isTooDeep(e)) return errorResult(tooDeep());
  // MySQL's ER_DISK_FULL: the statement needed the storage dir (a new source, a file table).
  if (e instanceof StorageFullError) return { type: 'error', error_code: 1021, error_message: e.message };
  return { type: 'error', error_code: 1105, error_message: 'internal error' };
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

/** Encode one canonical value for a result (docs/reference/sql.md "Values"). */
export function encodeValue(v: unknown, type: MysqlType): unknown {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? v : String(v);
    case 'bigint':
      return v <= MAX_SAFE && v >= MIN_SAFE ? Number(v) : v.toString();
    case 'boolean':
      return v ? 1 : 0;
    case 'string':
      if (type === 'JSON') {
        try {
          return JSON.parse(v);
        } catch {
          return v;
        }
      }
      return v;
    default:
      if (v instanceof Uint8Array)
        return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
      if (v instanceof Date) return formatDateTime(v);
      return v;
  }
}

/**
 * Encode rows in place (the rows are the caller's own fresh arrays). Plain strings and
 * finite numbers are already what a result holds, so only other values pay for encoding.
 */
export function encodeRows(fields: FieldInfo[], rows: unknown[][]): unknown[][] {
  const types = fields.map((f) => f.type);
  const json = types.map((t) => t === 'JSON');
  const n = types.length;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    for (let c = 0; c < n; c++) {
      const v = row[c];
      if (v === null) continue;
      const t = typeof v;
      if ((t === 'string' && !json[c]) || (t === 'number' && Number.isFinite(v))) continue;
      row[c] = encodeValue(v, types[c]);
    }
  }
  return rows;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** UTC 'YYYY-MM-DD HH:MM:SS[.ffffff]' for a JS Date (milliseconds only). */
function formatDateTime(d: Date): string {
  const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const ms = d.getUTCMilliseconds();
  return ms ? `${base}.${pad(ms, 3)}000` : base;
}
