/**
 * Helpers shared by the compilers and function maps: interval arithmetic, MySQL's reading
 * of strings as numbers, collation folding tables, aggregate detection, expression identity.
 */
import { type AstNode, columnName } from '../parse/normalize.js';

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
export function intervalParts(n: AstNode, unit: string, sign: 1 | -1): [number, string][] | null {
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

/** Lower-case accented letters utf8mb4_general_ci compares equal to a base letter, and those letters. */
export const ACCENTED = 'àáâãäåçèéêëìíîïñòóôõöùúûüýÿšžß';
export const UNACCENTED = 'aaaaaaceeeeiiiinooooouuuuyyszs';
export const ACCENT_MAP = new Map([...ACCENTED].map((ch, i) => [ch, UNACCENTED[i]]));

export function hasBinaryCollation(node: AstNode | null | undefined): boolean {
  const c = node?.collate?.collate?.name ?? node?.collate?.name;
  if (typeof c === 'string' && BINARY_COLLATION.test(c)) return true;
  if (node?.type === 'cast' && /BINARY/i.test(String(node.target?.[0]?.dataType ?? ''))) return true;
  return false;
}

export const AGGREGATE_FUNCTIONS = new Set([
  'STD',
  'STDDEV',
  'STDDEV_POP',
  'STDDEV_SAMP',
  'VARIANCE',
  'VAR_POP',
  'VAR_SAMP',
  'BIT_AND',
  'BIT_OR',
  'BIT_XOR',
  'ANY_VALUE',
  'JSON_ARRAYAGG',
  'JSON_OBJECTAGG',
]);

export function isAggregateCall(node: AstNode | null | undefined): boolean {
  if (!node || node.over) return false;
  if (node.type === 'aggr_func') return true;
  return node.type === 'function' && AGGREGATE_FUNCTIONS.has(String(node.name).toUpperCase());
}

/** Whether an expression aggregates (outside subqueries and window calls). */
export function containsAggregate(node: AstNode | null | undefined): boolean {
  return someNode(node, isAggregateCall);
}

export function containsWindow(node: AstNode | null | undefined): boolean {
  return someNode(node, (n) => !!n.over);
}

function someNode(node: AstNode | null | undefined, pred: (n: AstNode) => boolean): boolean {
  if (!node || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some((n) => someNode(n, pred));
  if (node.type === 'subquery') return false;
  if (node.type && pred(node)) return true;
  for (const k of Object.keys(node)) {
    const v = node[k];
    if (v && typeof v === 'object' && someNode(v, pred)) return true;
  }
  return false;
}

/** Two expressions that group the same way (column names compared case-insensitively). */
export function sameGroupExpr(a: AstNode, b: AstNode): boolean {
  if (a?.type === 'column_ref' && b?.type === 'column_ref') {
    if (columnName(a).toLowerCase() !== columnName(b).toLowerCase()) return false;
    return !a.table || !b.table || String(a.table).toLowerCase() === String(b.table).toLowerCase();
  }
  return exprKey(a) === exprKey(b);
}

function exprKey(n: AstNode): string {
  return JSON.stringify(n, (k, v) => {
    if (k === 'parentheses' || k === 'loc' || k === 'tableList' || k === 'columnList') return undefined;
    if (v && typeof v === 'object' && v.type === 'column_ref') {
      return { c: columnName(v).toLowerCase(), t: v.table ? String(v.table).toLowerCase() : null };
    }
    return v;
  });
}

/** A select whose output columns are renamed (a shallow copy; the AST is not changed). */
export function aliasColumns(ast: AstNode, names: string[]): AstNode {
  const cols: AstNode[] = Array.isArray(ast.columns) ? ast.columns : [];
  return { ...ast, columns: cols.map((c, i) => (i < names.length ? { ...c, as: names[i] } : c)) };
}

/** Structural equality of two expressions (for ORDER BY inside DISTINCT aggregates). */
export function sameExpr(a: AstNode, b: AstNode): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** MySQL-escaped string literal. */
export function mysqlStringLiteral(v: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL and Ctrl-Z are exactly what MySQL escapes.
  return `'${v.replace(/[\\'\0\n\r\x1a]/g, (ch) => {
    switch (ch) {
      case '\0':
        return '\\0';
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\x1a':
        return '\\Z';
      default:
        return '\\' + ch;
    }
  })}'`;
}

export const WINDOW_ONLY = new Set([
  'ROW_NUMBER',
  'RANK',
  'DENSE_RANK',
  'PERCENT_RANK',
  'CUME_DIST',
  'NTILE',
  'LAG',
  'LEAD',
  'FIRST_VALUE',
  'LAST_VALUE',
  'NTH_VALUE',
]);

let displayNameProvider: ((e: AstNode) => string) | null = null;

/** mysql.ts registers its renderer here (a direct import would be a module cycle). */
export function setDisplayNameProvider(f: (e: AstNode) => string): void {
  displayNameProvider = f;
}

/**
 * MySQL-style label for an unaliased computed select item (`COUNT(*)`, `a + 1`), as MySQL
 * names the column after the expression's text.
 */
export function displayName(e: AstNode): string {
  try {
    return displayNameProvider ? displayNameProvider(e) : 'expr';
  } catch {
    return 'expr';
  }
}
