import type { FieldInfo, MysqlType, Row } from '../../core/types.js';

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
