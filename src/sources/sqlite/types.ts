import type { CanonicalValue, MysqlType } from '../../core/types.js';
import { normalizeDateTime } from '../value-util.js';

/*
 * SQLite columns have declared types but values of any storage class. A declared type is
 * read with SQLite's own affinity rules (https://sqlite.org/datatype3.html §3.1), refined by
 * the common names; a column without one (an expression) takes its type from its values.
 */

/** MySQL type for a declared column type; null when there is none to go by. */
export function mysqlTypeOfDeclared(declared: string | null | undefined): MysqlType | null {
  const d = (declared ?? '').trim().toUpperCase();
  if (!d) return null;
  const base = d.replace(/\(.*$/, '').trim();
  switch (base) {
    case 'TINYINT':
      return 'TINYINT';
    case 'SMALLINT':
      return 'SMALLINT';
    case 'INT':
    case 'MEDIUMINT':
      return 'INT';
    case 'BOOL':
    case 'BOOLEAN':
      return 'BOOLEAN';
    case 'DATE':
      return 'DATE';
    case 'DATETIME':
      return 'DATETIME';
    case 'TIMESTAMP':
      return 'TIMESTAMP';
    case 'TIME':
      return 'TIME';
    case 'JSON':
    case 'JSONB':
      return 'JSON';
    case 'DECIMAL':
    case 'NUMERIC':
      return 'DECIMAL';
    case 'FLOAT':
      return 'FLOAT';
    case 'CHAR':
    case 'NCHAR':
    case 'CHARACTER':
      return 'CHAR';
    case 'VARCHAR':
    case 'NVARCHAR':
    case 'VARYING CHARACTER':
    case 'NATIVE CHARACTER':
      return 'VARCHAR';
  }
  // The affinity rules, in SQLite's order.
  if (d.includes('INT')) return 'BIGINT';
  if (d.includes('CHAR') || d.includes('CLOB') || d.includes('TEXT')) return 'TEXT';
  if (d.includes('BLOB')) return 'BLOB';
  if (d.includes('REAL') || d.includes('FLOA') || d.includes('DOUB')) return 'DOUBLE';
  return 'DECIMAL';
}

/** Type of a column known only by its values (the first batch). */
export function mysqlTypeOfValues(values: CanonicalValue[]): MysqlType {
  let ints = 0;
  let floats = 0;
  let strings = 0;
  let blobs = 0;
  for (const v of values) {
    if (v === null) continue;
    if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) ints++;
    else if (typeof v === 'number') floats++;
    else if (typeof v === 'string') strings++;
    else blobs++;
  }
  if (strings === 0 && blobs === 0) return floats ? 'DOUBLE' : ints ? 'BIGINT' : 'TEXT';
  if (ints === 0 && floats === 0 && blobs === 0) return 'TEXT';
  if (ints === 0 && floats === 0 && strings === 0) return 'BLOB';
  return 'TEXT';
}

type Conv = (v: CanonicalValue) => CanonicalValue;

const TRUE_TEXT = new Set(['1', 'true', 't', 'yes', 'y', 'on']);
const FALSE_TEXT = new Set(['0', 'false', 'f', 'no', 'n', 'off']);

const CONVERTERS: Partial<Record<MysqlType, Conv>> = {
  BOOLEAN: (v) => {
    if (typeof v === 'number' || typeof v === 'bigint') return v !== 0 && v !== 0n;
    if (typeof v === 'string') {
      const t = v.trim().toLowerCase();
      if (TRUE_TEXT.has(t)) return true;
      if (FALSE_TEXT.has(t)) return false;
    }
    return v;
  },
  // SQLite keeps NUMERIC values as integers or doubles; DECIMAL values travel as text.
  DECIMAL: (v) => (typeof v === 'number' || typeof v === 'bigint' ? String(v) : v),
  DATETIME: (v) => (typeof v === 'string' ? normalizeDateTime(v) : v),
  TIMESTAMP: (v) => (typeof v === 'string' ? normalizeDateTime(v) : v),
  DOUBLE: (v) => (typeof v === 'bigint' ? Number(v) : v),
  FLOAT: (v) => (typeof v === 'bigint' ? Number(v) : v),
  BLOB: (v) => (typeof v === 'string' ? Buffer.from(v, 'utf8') : v),
  TEXT: (v) => (typeof v === 'number' || typeof v === 'bigint' ? String(v) : v),
  VARCHAR: (v) => (typeof v === 'number' || typeof v === 'bigint' ? String(v) : v),
  CHAR: (v) => (typeof v === 'number' || typeof v === 'bigint' ? String(v) : v),
};

/** The converter that makes a column's values canonical for its type (null: none needed). */
export function converterFor(type: MysqlType): Conv | null {
  return CONVERTERS[type] ?? null;
}
