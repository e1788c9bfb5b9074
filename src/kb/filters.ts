import { ErrorCode, SqlError } from '../core/errors.js';
import type { CanonicalValue, MysqlType } from '../core/types.js';
import { ACCENT_MAP, mysqlStringToNumber, upperChar } from '../sql/dialects/support.js';
import { kindOfMysqlType } from '../sql/dialects/types.js';
import type { KbCondition, KbFilter } from '../sql/kb-port.js';

/** Columns of every chunk besides the metadata columns: filters may name them too. */
export const CHUNK_COLUMNS = ['id', 'chunk_id', 'chunk_content'] as const;

/**
 * How a column's values compare, from the MySQL type the rows had when they were inserted
 * (`metadata_types` of the KB's definition): numbers as numbers, dates as dates, text under
 * MySQL's default collation (utf8mb4_general_ci: case, the accents it equates and trailing
 * spaces ignored). `json` compares only with IS [NOT] NULL. `unknown` (a KB filled before
 * types were kept): the literal decides, as before: a number compares numerically, text folds.
 */
export type ValueKind = 'number' | 'text' | 'date' | 'json' | 'unknown';

export function kindOf(t: MysqlType | null | undefined): ValueKind {
  const k = kindOfMysqlType(t);
  switch (k) {
    case 'number':
    case 'bool':
      return 'number';
    case 'string':
      return 'text';
    case 'date':
    case 'datetime':
      return 'date';
    case 'json':
    case 'binary':
      return 'json';
    default:
      return 'unknown';
  }
}

/** A leaf with its column spelled as the KB knows it and how its values compare. */
export interface ResolvedFilter extends KbFilter {
  kind: ValueKind;
}
export type ResolvedCondition = ResolvedFilter | { and: ResolvedCondition[] } | { or: ResolvedCondition[] };

/** What a KB knows of its columns: the metadata columns and their recorded types. */
export interface KbColumns {
  metadata: string[];
  types?: Record<string, MysqlType>;
}

function columnKind(column: string, cols: KbColumns): ValueKind {
  if (column === 'chunk_id' || column === 'chunk_content') return 'text';
  if (column === 'id') return 'unknown';
  return kindOf(cols.types?.[column]);
}

function spelled(cols: KbColumns): Map<string, string> {
  const known = new Map<string, string>();
  for (const c of [...CHUNK_COLUMNS, ...cols.metadata]) known.set(c.toLowerCase(), c);
  return known;
}

/** The conditions with their columns spelled as the KB knows them; an unknown column is 1054 naming it. */
export function resolveConditions(kb: string, conds: KbCondition[], cols: KbColumns): ResolvedCondition[] {
  const known = spelled(cols);
  const walk = (c: KbCondition): ResolvedCondition => {
    if ('and' in c) return { and: c.and.map(walk) };
    if ('or' in c) return { or: c.or.map(walk) };
    const col = known.get(c.column.toLowerCase());
    if (!col)
      throw new SqlError(
        ErrorCode.UNKNOWN_COLUMN,
        `Unknown column '${c.column}' in knowledge base '${kb}': filter on id, chunk_id, chunk_content${cols.metadata.length ? ` or a metadata column (${cols.metadata.join(', ')})` : ' (it has no metadata columns)'}`,
      );
    return { ...c, column: col, kind: columnKind(col, cols) };
  };
  return conds.map(walk);
}

/**
 * Whether the KB's stores evaluate a condition exactly as MySQL would (the planner's
 * negotiation, kb-port.ts `filterSupport`): every operator on numbers, text and dates;
 * unsupported where a store would answer differently (a JSON column compared with a value,
 * text compared with a number, a date with something that is not a date, an unknown column:
 * the local engine decides those, and names an unknown column).
 */
export function conditionSupport(c: KbCondition, cols: KbColumns): 'exact' | 'unsupported' {
  if ('and' in c) return c.and.every((x) => conditionSupport(x, cols) === 'exact') ? 'exact' : 'unsupported';
  if ('or' in c) return c.or.every((x) => conditionSupport(x, cols) === 'exact') ? 'exact' : 'unsupported';
  const col = spelled(cols).get(c.column.toLowerCase());
  if (!col) return 'unsupported';
  if (c.op === 'IS NULL' || c.op === 'IS NOT NULL') return 'exact';
  const kind = columnKind(col, cols);
  // A metadata column with no recorded type (a KB filled before types were kept): the local
  // engine compares it by the type guessed from its values, which a store cannot know.
  if (kind === 'unknown' && col !== 'id') return 'unsupported';
  const values = Array.isArray(c.value) ? c.value : [c.value];
  if (c.op === 'BETWEEN' || c.op === 'NOT BETWEEN') {
    if (!Array.isArray(c.value) || c.value.length !== 2) return 'unsupported';
  }
  if (values.some((v) => v === null || v instanceof Uint8Array)) return 'unsupported';
  if (c.op === 'LIKE' || c.op === 'NOT LIKE')
    return kind !== 'json' && typeof values[0] === 'string' ? 'exact' : 'unsupported';
  switch (kind) {
    case 'json':
      return 'unsupported';
    case 'text':
      return values.every((v) => typeof v === 'string') ? 'exact' : 'unsupported';
    case 'date':
      return values.every((v) => typeof v === 'string' && dateKey(v) !== null) ? 'exact' : 'unsupported';
    default:
      return 'exact';
  }
}

export interface FilterTest {
  column: string;
  test: (v: unknown) => boolean;
}

/** A top-level condition as the embedded store runs it: a test on one column, or on a whole row. */
export type ConditionTest = FilterTest | { row: (get: (column: string) => unknown) => boolean };

/** The conditions as tests (the embedded store's form); unknown columns are 1054 naming them. */
export function compileConditions(kb: string, conds: KbCondition[], cols: KbColumns): ConditionTest[] {
  return resolveConditions(kb, conds, cols).map(conditionTest);
}

export function conditionTest(c: ResolvedCondition): ConditionTest {
  if (!('and' in c) && !('or' in c)) return { column: c.column, test: predicate(c) };
  const row = rowTest(c);
  return { row };
}

function rowTest(c: ResolvedCondition): (get: (column: string) => unknown) => boolean {
  if ('and' in c) {
    const parts = c.and.map(rowTest);
    return (get) => parts.every((p) => p(get));
  }
  if ('or' in c) {
    const parts = c.or.map(rowTest);
    return (get) => parts.some((p) => p(get));
  }
  const test = predicate(c);
  const col = c.column;
  return (get) => test(get(col));
}

/** MySQL's default collation's key for text: upper case, base letters, no trailing spaces. */
export function foldText(s: string): string {
  let out = '';
  for (const ch of s.replace(/ +$/, '')) out += ACCENT_MAP.get(upperChar(ch)) ?? upperChar(ch);
  return out;
}

/** A date or date-time as one comparable text (`YYYY-MM-DD HH:MM:SS.ffffff`), or null when it is not one. */
export function dateKey(v: unknown): string | null {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6}))?)?)?Z?$/.exec(
    String(v).trim(),
  );
  if (!m) return null;
  const p = (x: string | undefined, n = 2) => (x ?? '').padStart(n, '0');
  return `${m[1]}-${p(m[2])}-${p(m[3])} ${p(m[4])}:${p(m[5])}:${p(m[6])}.${(m[7] ?? '').padEnd(6, '0')}`;
}

const NUMBER_TEXT = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A stored value as a number: numbers and booleans as they are, numeric text (DECIMAL's form) read; else null, as the PostgreSQL store reads it. */
function toNumber(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return Number(v);
  const s = String(v);
  return NUMBER_TEXT.test(s) ? Number(s) : null;
}

/**
 * One value's comparison with a literal as MySQL makes it for the column's kind: the sign of
 * value minus literal, or null when the value is NULL (or, for an unknown kind, not a number
 * compared with a number).
 */
function comparer(kind: ValueKind, lit: CanonicalValue): (v: unknown) => number | null {
  const numeric =
    kind === 'number' || (kind === 'unknown' && (typeof lit === 'number' || typeof lit === 'boolean'));
  if (numeric) {
    const y = typeof lit === 'string' ? mysqlStringToNumber(lit) : toNumber(lit)!;
    return (v) => {
      const x = toNumber(v);
      return x === null || Number.isNaN(x) ? null : Math.sign(x - y);
    };
  }
  if (kind === 'date') {
    const y = dateKey(lit);
    return (v) => {
      const x = v === null || v === undefined ? null : dateKey(v);
      return x === null || y === null ? null : x < y ? -1 : x > y ? 1 : 0;
    };
  }
  const y = foldText(String(lit));
  return (v) => {
    if (v === null || v === undefined) return null;
    const x = foldText(typeof v === 'object' ? JSON.stringify(v) : String(v));
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

/** A leaf as a test on one value, with MySQL's semantics for the column's kind (NULL matches no comparison). */
export function predicate(f: ResolvedFilter | KbFilter): (v: unknown) => boolean {
  const kind = 'kind' in f ? f.kind : 'unknown';
  const list = Array.isArray(f.value) ? f.value : [f.value];
  const isNull = (v: unknown) => v === null || v === undefined;
  switch (f.op) {
    case 'IS NULL':
      return isNull;
    case 'IS NOT NULL':
      return (v) => !isNull(v);
    case 'LIKE':
    case 'NOT LIKE': {
      const re = likeRegex(String(list[0]));
      const neg = f.op === 'NOT LIKE';
      return (v) => !isNull(v) && re.test(likeText(v)) !== neg;
    }
    case 'BETWEEN':
    case 'NOT BETWEEN': {
      const lo = comparer(kind, list[0]);
      const hi = comparer(kind, list[1]);
      const neg = f.op === 'NOT BETWEEN';
      return (v) => {
        const a = lo(v);
        const b = hi(v);
        if (a === null || b === null) return false;
        return neg ? a < 0 || b > 0 : a >= 0 && b <= 0;
      };
    }
    case 'IN':
    case 'NOT IN': {
      const tests = list.filter((x) => x !== null).map((x) => comparer(kind, x));
      const hasNull = list.some((x) => x === null);
      if (f.op === 'IN') return (v) => tests.some((t) => t(v) === 0);
      return (v) => !hasNull && !isNull(v) && tests.every((t) => t(v) !== null && t(v) !== 0);
    }
  }
  const cmp = comparer(kind, list[0]);
  const ok: Record<string, (n: number) => boolean> = {
    '=': (n) => n === 0,
    '!=': (n) => n !== 0,
    '<': (n) => n < 0,
    '<=': (n) => n <= 0,
    '>': (n) => n > 0,
    '>=': (n) => n >= 0,
  };
  const want = ok[f.op];
  return (v) => {
    const n = cmp(v);
    return n !== null && want(n);
  };
}

/** A value as LIKE reads it: its text (JSON for objects), folded for case and accents but not trailing spaces. */
function likeText(v: unknown): string {
  const s = typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
  let out = '';
  for (const ch of s) out += ACCENT_MAP.get(upperChar(ch)) ?? upperChar(ch);
  return out;
}

/** A MySQL LIKE pattern (backslash escapes) as a regex over `likeText`. */
function likeRegex(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) out += escapeRe(likeText(pattern[++i]));
    else if (c === '%') out += '[\\s\\S]*';
    else if (c === '_') out += '[\\s\\S]';
    else out += escapeRe(likeText(c));
  }
  return new RegExp(`^${out}$`);
}

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
