/**
 * Helpers shared by the compilers and function maps: interval arithmetic, MySQL's reading
 * of strings as numbers, collation folding tables, MySQL's string literal.
 */
import type { Expr } from '../ast/nodes.js';

const BINARY_COLLATION = /_bin$|_cs$|^binary$/i;

export const DATE_UNITS = new Set(['DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR']);

/** Unit → [multiplier, standard unit] for one-number intervals. */
export const SIMPLE_UNITS: Record<string, [number, string]> = {
  MICROSECOND: [1, 'microsecond'],
  SECOND: [1, 'second'],
  MINUTE: [1, 'minute'],
  HOUR: [1, 'hour'],
  DAY: [1, 'day'],
  WEEK: [7, 'day'],
  MONTH: [1, 'month'],
  QUARTER: [3, 'month'],
  YEAR: [1, 'year'],
};

/** Compound units: which standard units the parts of '1:30' / '1 2:03' fill, last part first. */
const COMPOUND_UNITS: Record<string, string[]> = {
  YEAR_MONTH: ['year', 'month'],
  DAY_HOUR: ['day', 'hour'],
  DAY_MINUTE: ['day', 'hour', 'minute'],
  DAY_SECOND: ['day', 'hour', 'minute', 'second'],
  DAY_MICROSECOND: ['day', 'hour', 'minute', 'second', 'microsecond'],
  HOUR_MINUTE: ['hour', 'minute'],
  HOUR_SECOND: ['hour', 'minute', 'second'],
  HOUR_MICROSECOND: ['hour', 'minute', 'second', 'microsecond'],
  MINUTE_SECOND: ['minute', 'second'],
  MINUTE_MICROSECOND: ['minute', 'second', 'microsecond'],
  SECOND_MICROSECOND: ['second', 'microsecond'],
};

/**
 * A literal interval as [value, unit] pairs (signs applied), or null when `n` is not a
 * literal. Throws UnsupportedError-worthy Error for an unknown unit.
 */
export function intervalParts(n: Expr, unit: string, sign: 1 | -1): [number, string][] | null {
  if (n?.type !== 'number' && n?.type !== 'string') {
    if (n?.type === 'unary_expr' && n.operator === '-' && n.expr?.type === 'number') {
      return intervalParts({ type: 'number', value: -Number(n.expr.value) }, unit, sign);
    }
    return null;
  }
  const single = SIMPLE_UNITS[unit];
  if (single) {
    const v = n.type === 'number' ? Number(n.value) : mysqlStringToNumber(n.value);
    if (!Number.isFinite(v)) return null;
    const value = unit === 'MICROSECOND' || unit === 'SECOND' ? v : Math.round(v);
    return [[sign * single[0] * value, single[1]]];
  }
  const names = COMPOUND_UNITS[unit];
  if (!names) throw new Error(`INTERVAL unit ${unit}`);
  const text = String(n.value).trim();
  const neg = text.startsWith('-');
  const nums = text
    .replace(/^-/, '')
    .split(/[^0-9]+/)
    .filter((x) => x !== '')
    .map(Number);
  const used = names.slice(names.length - Math.min(nums.length, names.length));
  const vals = nums.slice(nums.length - used.length);
  const s = (neg ? -1 : 1) * sign;
  return used.map((u, i) => [s * vals[i], u] as [number, string]).filter(([v]) => v !== 0);
}

/** MySQL's reading of a string as a number: the longest numeric prefix, else 0. */
export function mysqlStringToNumber(s: string): number {
  const m = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(String(s));
  return m ? Number(m[0]) : 0;
}

/**
 * Accented letters utf8mb4_general_ci weighs as a base letter, upper-cased as the fold
 * upper-cases them, and those base letters. MySQL's weights are upper case, which is why the
 * fold is upper() and not lower(): '_' (0x5F) and '[', '\\', ']', '^', '`' sort after 'Z' as
 * MySQL sorts them ('ab' < 'aZ' < 'a_'), where lower() would put them before 'a'. 'ß' has no
 * one-letter upper case: PostgreSQL keeps it, DuckDB gives 'ẞ'; both are listed.
 */
export const ACCENTED = 'ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝŸŠŽßẞ';
export const UNACCENTED = 'AAAAAACEEEEIIIINOOOOOUUUUYYSZSS';
export const ACCENT_MAP = new Map([...ACCENTED].map((ch, i) => [ch, UNACCENTED[i]]));

/** A character upper-cased as SQL's upper() does it: one character for one (JS would turn 'ß' into 'SS'). */
export function upperChar(ch: string): string {
  const u = ch.toUpperCase();
  return u.length === ch.length ? u : ch;
}

/** Whether an expression compares byte for byte: `x COLLATE utf8mb4_bin`, `BINARY x`. */
export function hasBinaryCollation(node: Expr | null | undefined): boolean {
  if (!node) return false;
  const c = node.collate?.collate?.name ?? node.collate?.name;
  if (typeof c === 'string' && BINARY_COLLATION.test(c)) return true;
  if (node.type === 'cast' && /BINARY/i.test(String(node.target?.[0]?.dataType ?? ''))) return true;
  return false;
}
