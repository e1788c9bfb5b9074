import { ErrorCode, SqlError } from '../core/errors.js';
import type { CanonicalValue } from '../core/types.js';
import type { KbCondition, KbFilter } from '../sql/kb-port.js';

/** Columns of every chunk besides the metadata columns: filters may name them too. */
export const CHUNK_COLUMNS = ['id', 'chunk_id', 'chunk_content'] as const;

/** The filters with their columns spelled as the KB knows them; an unknown column is 1054 naming it. */
export function resolveFilters(kb: string, filters: KbFilter[], metadataColumns: string[]): KbFilter[] {
  const known = new Map<string, string>();
  for (const c of [...CHUNK_COLUMNS, ...metadataColumns]) known.set(c.toLowerCase(), c);
  return filters.map((f) => {
    const col = known.get(f.column.toLowerCase());
    if (!col)
      throw new SqlError(
        ErrorCode.UNKNOWN_COLUMN,
        `Unknown column '${f.column}' in knowledge base '${kb}': filter on id, chunk_id, chunk_content${metadataColumns.length ? ` or a metadata column (${metadataColumns.join(', ')})` : ' (it has no metadata columns)'}`,
      );
    return { ...f, column: col };
  });
}

export interface FilterTest {
  column: string;
  test: (v: unknown) => boolean;
}

/** The filters as tests on a column (the embedded store's form); unknown columns are 1054 naming them. */
export function compileFilters(kb: string, filters: KbFilter[], metadataColumns: string[]): FilterTest[] {
  return resolveFilters(kb, filters, metadataColumns).map((f) => ({ column: f.column, test: predicate(f) }));
}

/** A filter as a test on one value, with MySQL's semantics (text case-insensitive, NULL matches nothing). */
export function predicate(f: KbFilter): (v: unknown) => boolean {
  const cmp = (a: unknown, b: CanonicalValue): number | null => {
    if (a === null || a === undefined) return null;
    if (typeof b === 'number' || typeof b === 'boolean') {
      const x = typeof a === 'boolean' ? Number(a) : Number(a);
      const y = Number(b);
      return Number.isNaN(x) ? null : x - y;
    }
    // Text compares as MySQL's default collation does: case-insensitively.
    return String(a).toLowerCase().localeCompare(String(b).toLowerCase());
  };
  const list = Array.isArray(f.value) ? f.value : [f.value];
  // Equality on text is the common filter and runs once per chunk: no collation call.
  if ((f.op === '=' || f.op === 'IN') && list.every((x) => typeof x === 'string')) {
    const wanted = new Set(list.map((x) => String(x).toLowerCase()));
    return (v) => v !== null && v !== undefined && wanted.has(String(v).toLowerCase());
  }
  switch (f.op) {
    case '=':
      return (v) => cmp(v, list[0]) === 0;
    case '!=':
      return (v) => {
        const c = cmp(v, list[0]);
        return c !== null && c !== 0;
      };
    case '<':
      return (v) => (cmp(v, list[0]) ?? 0) < 0 && cmp(v, list[0]) !== null;
    case '<=':
      return (v) => cmp(v, list[0]) !== null && cmp(v, list[0])! <= 0;
    case '>':
      return (v) => cmp(v, list[0]) !== null && cmp(v, list[0])! > 0;
    case '>=':
      return (v) => cmp(v, list[0]) !== null && cmp(v, list[0])! >= 0;
    case 'IN':
      return (v) => list.some((x) => cmp(v, x) === 0);
    case 'NOT IN':
      return (v) => v !== null && v !== undefined && !list.some((x) => cmp(v, x) === 0);
    case 'LIKE':
    case 'NOT LIKE': {
      const re = likeRegex(String(list[0]));
      const neg = f.op === 'NOT LIKE';
      return (v) => v !== null && v !== undefined && re.test(String(v)) !== neg;
    }
    default:
      throw new SqlError(
        ErrorCode.NOT_SUPPORTED,
        `Knowledge base filter: ${f.op} is not evaluated by the store`,
      );
  }
}

function likeRegex(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) out += escapeRe(pattern[++i]);
    else if (c === '%') out += '[\\s\\S]*';
    else if (c === '_') out += '[\\s\\S]';
    else out += escapeRe(c);
  }
  return new RegExp(`^${out}$`, 'i');
}

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Whether the stores evaluate condition `c` before ranking: exactly for a leaf with one of
 * the operators `predicate` knows, on a chunk or metadata column, with a literal that MySQL's
 * collation would not read differently (trailing spaces pad); unsupported otherwise (the
 * engine then filters the search's rows itself).
 */
export function conditionSupport(
  c: KbCondition,
  metadataColumns: string[],
): 'exact' | 'inexact' | 'unsupported' {
  if (!('column' in c)) return 'unsupported';
  const known = new Set([...CHUNK_COLUMNS, ...metadataColumns].map((x) => x.toLowerCase()));
  if (!known.has(c.column.toLowerCase())) return 'unsupported';
  if (!['=', '!=', '<', '<=', '>', '>=', 'IN', 'NOT IN', 'LIKE', 'NOT LIKE'].includes(c.op))
    return 'unsupported';
  const values = Array.isArray(c.value) ? c.value : [c.value];
  if (values.some((v) => v === null || (typeof v === 'string' && /\s$/.test(v) && !c.op.includes('LIKE'))))
    return 'unsupported';
  return 'exact';
}
