import { ErrorCode, SqlError } from '../../core/errors.js';
import type { FieldInfo, MysqlType, Row } from '../../core/types.js';
import type { ShowCondition } from '../parse/statement.js';

/** A small in-memory table result (SHOW, DESCRIBE, EXPLAIN). */
export interface MemTable {
  columns: FieldInfo[];
  rows: Row[];
}

export function memTable(cols: [string, MysqlType][], rows: Row[]): MemTable {
  return { columns: cols.map(([name, type]) => ({ name, type })), rows };
}

/** MySQL LIKE pattern → predicate (case-insensitive, `\` escapes). */
export function likePredicate(pattern: string | null): (s: string) => boolean {
  if (pattern === null) return () => true;
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\' && i + 1 < pattern.length) re += escapeRe(pattern[++i]);
    else if (ch === '%') re += '.*';
    else if (ch === '_') re += '.';
    else re += escapeRe(ch);
  }
  const rx = new RegExp(`^${re}$`, 'is');
  return (s) => rx.test(s);
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Text as MySQL's default collation compares it: case-insensitive, trailing spaces ignored. */
const folded = (s: unknown) =>
  String(s ?? '')
    .replace(/ +$/, '')
    .toLowerCase();

/** The rows of a SHOW result that meet its WHERE conditions (1054 naming a column it lacks). */
export function whereFilter(cols: [string, MysqlType][], rows: Row[], where: ShowCondition[]): Row[] {
  const tests = where.map((c) => {
    const at = cols.findIndex(([name]) => name.toLowerCase() === c.column.toLowerCase());
    if (at < 0)
      throw new SqlError(ErrorCode.UNKNOWN_COLUMN, `Unknown column '${c.column}' in 'where clause'`);
    if (c.op === 'LIKE' || c.op === 'NOT LIKE') {
      const like = likePredicate(c.value);
      return (r: Row) => like(String(r[at] ?? '')) === (c.op === 'LIKE');
    }
    const want = folded(c.value);
    return (r: Row) => (folded(r[at]) === want) === (c.op === '=');
  });
  return rows.filter((r) => tests.every((t) => t(r)));
}
