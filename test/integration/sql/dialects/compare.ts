/**
 * How the differential tests compare a result with MariaDB's: the dialect test (compiled SQL
 * run directly on PostgreSQL/DuckDB) and the engine test (queries through the server) use
 * the same rules. Numbers are equal within the precision MariaDB printed, datetimes at
 * midnight equal their date, JSON compares as values, and a number printed as text equals
 * the number.
 */

export type Cell = null | number | string | { num: number; decimals: number | null };
export type Rows = Cell[][];

/** One value from any driver or from a SPEC §2 result, in comparable form. */
export function normCell(v: unknown): Cell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') {
    // MariaDB prints doubles with limited digits (PI() is 3.141593): keep the precision it showed.
    const m = /\.(\d+)$/.exec(String(v));
    return m ? { num: v, decimals: m[1].length } : v;
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (typeof v === 'object') return canonicalJson(v);
  const s = String(v);
  const num = /^-?(\d+)(?:\.(\d+))?(?:[eE][+-]?\d+)?$/.exec(s);
  if (num) return { num: Number(s), decimals: /[eE]/.test(s) ? null : (num[2]?.length ?? 0) };
  const dt = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/.exec(s);
  if (dt) {
    const frac = (dt[3] ?? '').replace(/0+$/, '');
    if (dt[2] === '00:00:00' && !frac) return dt[1];
    return `${dt[1]} ${dt[2]}${frac ? `.${frac}` : ''}`;
  }
  if (/^\s*[[{]/.test(s)) {
    try {
      return canonicalJson(JSON.parse(s));
    } catch {
      return s;
    }
  }
  return s;
}

export function normRows(rows: unknown[][]): Rows {
  return rows.map((row) => row.map(normCell));
}

export function canonicalJson(v: unknown): string {
  const sort = (x: any): any =>
    Array.isArray(x)
      ? x.map(sort)
      : x && typeof x === 'object'
        ? Object.fromEntries(
            Object.keys(x)
              .sort()
              .map((k) => [k, sort(x[k])]),
          )
        : x;
  return JSON.stringify(sort(v));
}

const numOf = (c: Cell): number | null =>
  typeof c === 'number' ? c : c && typeof c === 'object' ? c.num : null;

export interface CompareOptions {
  /**
   * A JSON string as MariaDB prints it (`"Paris"`, quotes included) equals the text it holds:
   * SPEC §2 encodes JSON results as JSON values, so the server's `"Paris"` JSON value is `Paris`.
   */
  jsonStrings?: boolean;
  /**
   * Text compares as MySQL's default collation does (case and trailing spaces ignored): for
   * a group or DISTINCT value whose spelling MySQL itself picks arbitrarily ('Berlin'/'berlin').
   */
  collationText?: boolean;
}

const fold = (c: Cell): Cell => (typeof c === 'string' ? c.toLowerCase().trimEnd() : c);

function jsonStringText(c: Cell): string | null {
  if (typeof c !== 'string' || c.length < 2 || c[0] !== '"' || c[c.length - 1] !== '"') return null;
  try {
    const v = JSON.parse(c);
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

export function cellsEqual(ref: Cell, got: Cell, opts: CompareOptions = {}): boolean {
  if (opts.jsonStrings && typeof got === 'string' && jsonStringText(ref) === got) return true;
  const a = numOf(ref);
  const b = numOf(got);
  if (a !== null && b !== null) {
    const decimals = ref && typeof ref === 'object' ? ref.decimals : null;
    let tol = 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
    if (decimals !== null) tol = Math.max(tol, 0.5 * 10 ** -decimals + 1e-12);
    return Math.abs(a - b) <= tol;
  }
  if (a !== null || b !== null) {
    // A number printed as text on one side (e.g. '1.50' vs 1.5) still compares as a number.
    return String(a ?? ref) === String(b ?? got);
  }
  return ref === got;
}

function sortKey(row: Cell[]): string {
  return JSON.stringify(row.map((c) => (numOf(c) !== null ? Number(numOf(c)).toFixed(2) : c)));
}

/** null when equal; else what differs. `ordered`: compare in order, else as multisets. */
export function compareRows(
  ref: Rows,
  got: Rows,
  ordered: boolean,
  opts: CompareOptions = {},
): string | null {
  if (ref.length !== got.length) return `row count ${got.length}, expected ${ref.length}`;
  if (opts.collationText) {
    ref = ref.map((r) => r.map(fold));
    got = got.map((r) => r.map(fold));
  }
  const a = ordered ? ref : [...ref].sort((x, y) => sortKey(x).localeCompare(sortKey(y)));
  const b = ordered ? got : [...got].sort((x, y) => sortKey(x).localeCompare(sortKey(y)));
  for (let i = 0; i < a.length; i++) {
    if (a[i].length !== b[i].length) return `row ${i}: ${b[i].length} columns, expected ${a[i].length}`;
    for (let j = 0; j < a[i].length; j++) {
      if (!cellsEqual(a[i][j], b[i][j], opts)) {
        return `row ${i} col ${j}: got ${JSON.stringify(b[i][j])}, expected ${JSON.stringify(a[i][j])}\n  got row ${JSON.stringify(b[i])}\n  expected ${JSON.stringify(a[i])}`;
      }
    }
  }
  return null;
}

/**
 * mysql2 connection options for the MariaDB reference: values as MariaDB prints them
 * (dates as text, exact big numbers, JSON and BLOB results as their text).
 */
export const REFERENCE_CONN_OPTIONS = {
  dateStrings: true,
  supportBigNumbers: true,
  bigNumberStrings: true,
  // mysql2 unquotes/parses JSON results from MariaDB; the comparison wants the text MySQL sends.
  typeCast: (field: any, next: () => unknown) => {
    if (!/BLOB|JSON/.test(String(field.type))) return next();
    const b = field.buffer();
    return b === null ? null : b.toString('utf8');
  },
};
