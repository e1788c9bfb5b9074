/** What a column holds, as far as display and charts care. */
export type ColumnKind = 'number' | 'temporal' | 'text' | 'boolean' | 'json' | 'empty';

const DATE = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const NUMERIC_TEXT = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** A MySQL type name (DECIMAL(10,2), DATETIME, ...) as a kind, when a result carries types. */
export function kindOfType(type: string): ColumnKind {
  const t = type.toUpperCase();
  if (/^(TINYINT\(1\)|BOOL|BOOLEAN)/.test(t)) return 'boolean';
  if (/^(TINY|SMALL|MEDIUM|BIG)?INT|^INTEGER|^DECIMAL|^NUMERIC|^FLOAT|^DOUBLE|^REAL/.test(t)) return 'number';
  if (/^(DATE|DATETIME|TIMESTAMP|TIME|YEAR)/.test(t)) return 'temporal';
  if (/^JSON/.test(t)) return 'json';
  return 'text';
}

/**
 * The kind of each column: from the result's types when it has them, else from the values
 * (the JSON result carries names only). Large integers and decimals arrive as strings and
 * still count as numbers; a column of only NULLs is 'empty'.
 */
export function inferKinds(
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  types?: readonly string[],
): ColumnKind[] {
  if (types && types.length === columns.length) return types.map(kindOfType);
  const sample = rows.length > 500 ? rows.slice(0, 500) : rows;
  return columns.map((_, i) => {
    let kind: ColumnKind | null = null;
    for (const r of sample) {
      const v = r[i];
      if (v === null || v === undefined) continue;
      const k = valueKind(v);
      if (kind === null) kind = k;
      else if (kind !== k) kind = 'text';
    }
    return kind ?? 'empty';
  });
}

function valueKind(v: unknown): ColumnKind {
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'object') return 'json';
  const s = String(v);
  if (DATE.test(s)) return 'temporal';
  if (NUMERIC_TEXT.test(s)) return 'number';
  return 'text';
}

export type ChartType = 'line' | 'bar' | 'scatter' | 'area';
export const CHART_TYPES: readonly ChartType[] = ['bar', 'line', 'area', 'scatter'];

export interface ChartChoice {
  type: ChartType;
  /** Column index of the x axis. */
  x: number;
  /** Column indexes drawn as series. */
  ys: number[];
}

/**
 * The chart a result suggests, or a sentence saying why there is none:
 * a time column and numbers → line; a text column and numbers → bar (one bar per row);
 * only numbers (two or more) → scatter of the second against the first.
 */
export function chooseChart(kinds: readonly ColumnKind[]): ChartChoice | { reason: string } {
  const nums = kinds.flatMap((k, i) => (k === 'number' ? [i] : []));
  const time = kinds.indexOf('temporal');
  const text = kinds.indexOf('text');
  if (nums.length === 0) return { reason: 'No numeric column to draw.' };
  if (time >= 0) return { type: 'line', x: time, ys: nums.slice(0, 6) };
  if (text >= 0) return { type: 'bar', x: text, ys: nums.slice(0, 6) };
  if (nums.length >= 2) return { type: 'scatter', x: nums[0], ys: nums.slice(1, 6) };
  return { type: 'bar', x: -1, ys: nums.slice(0, 1) };
}

/** A value as a number for a chart (null when it is not one); dates as epoch seconds. */
export function chartNumber(v: unknown, kind: ColumnKind): number | null {
  if (v === null || v === undefined) return null;
  if (kind === 'temporal') {
    const s = String(v);
    const t = Date.parse(/^\d{4}-\d{2}-\d{2} /.test(s) ? s.replace(' ', 'T') : s);
    return Number.isNaN(t) ? null : t / 1000;
  }
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}
