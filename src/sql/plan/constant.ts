import type { FieldInfo, Row } from '../../core/types.js';
import { isKeyword, isName, type Token, tokenize } from '../parse/lexer.js';

const INT_MAX = 2 ** 31 - 1;

export interface ConstantRow {
  columns: FieldInfo[];
  row: Row;
}

/**
 * `SELECT 1`, `SELECT 'ok' AS status`: a select list of plain literals and nothing else,
 * the statement clients send as a health check. MySQL answers these without touching
 * storage, and so does the engine: no DuckDB round trip, which is most of such a call's
 * cost. Only literals whose type is beyond doubt qualify (integers in INT range, quoted
 * strings without escapes), so the answer and its column types are exactly what the normal
 * path gives (an integer is BIGINT, as infer.ts settles it); anything else returns null and
 * runs as usual. Names come from the statement's labels, as for every SELECT.
 */
export function constantSelect(sql: string): ConstantRow | null {
  // Comments may hide MySQL's executable comments; escapes are the parser's business.
  if (sql.length > 512 || /\/\*|#|--|\\/.test(sql)) return null;
  let toks: Token[];
  try {
    toks = tokenize(sql);
  } catch {
    return null;
  }
  if (toks.at(-1)?.kind === 'punct' && toks.at(-1)!.value === ';') toks.pop();
  if (!isKeyword(toks[0], 'SELECT')) return null;
  const columns: FieldInfo[] = [];
  const row: unknown[] = [];
  let i = 1;
  for (;;) {
    const negative = toks[i]?.kind === 'punct' && toks[i].value === '-';
    if (negative) i++;
    const t = toks[i++];
    if (t?.kind === 'number' && /^\d+$/.test(t.value)) {
      const v = Number(t.value);
      if (v > INT_MAX) return null;
      // MySQL 8 types an integer literal BIGINT (infer.ts settles the same elsewhere).
      columns.push({ name: t.value, type: 'BIGINT' });
      row.push(negative && v !== 0 ? -v : v);
    } else if (t?.kind === 'string' && !negative) {
      columns.push({ name: t.value, type: 'VARCHAR' });
      row.push(t.value);
    } else return null;
    if (isKeyword(toks[i], 'AS')) {
      if (!isName(toks[i + 1])) return null;
      i += 2;
    }
    if (i === toks.length) break;
    if (toks[i].kind !== 'punct' || toks[i].value !== ',') return null;
    i++;
  }
  return { columns, row: row as Row };
}
