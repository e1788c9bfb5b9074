/**
 * Result column names as MySQL gives them: an alias; else a column as written in the
 * select list (`ID` stays `ID`, `t.qty` is `qty`); else a string literal's value; else the
 * expression's text exactly as typed (`qty*2`, `COUNT(*)`, `CASE ... END`). Sources cannot
 * say this (PostgreSQL truncates names at 63 bytes; the SQL they run is recompiled text), so
 * the engine relabels the result of a SELECT with these names.
 */
import type { SelectStmt } from '../ast/nodes.js';
import { isKeyword, type Token, tokenize } from './lexer.js';

/** SELECT's modifiers that only advise MySQL's optimizer (clause-gaps.ts drops them). */
export const SELECT_MODIFIERS = new Set([
  'HIGH_PRIORITY',
  'STRAIGHT_JOIN',
  'SQL_SMALL_RESULT',
  'SQL_BIG_RESULT',
  'SQL_BUFFER_RESULT',
  'SQL_CACHE',
  'SQL_NO_CACHE',
]);
/** Every word that may stand between SELECT and its first item. */
export const SELECT_OPTIONS = new Set([
  ...SELECT_MODIFIERS,
  'ALL',
  'DISTINCT',
  'DISTINCTROW',
  'SQL_CALC_FOUND_ROWS',
]);

/** Keywords that end the select list at its own depth. */
const LIST_END = new Set([
  'FROM',
  'INTO',
  'WHERE',
  'GROUP',
  'HAVING',
  'ORDER',
  'LIMIT',
  'WINDOW',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'FOR',
  'LOCK',
]);

const isPunct = (t: Token | undefined, v: string): boolean => !!t && t.kind === 'punct' && t.value === v;

/** The token ranges of the first query block's select items, or null when they cannot be found. */
function selectItems(tokens: Token[]): Token[][] | null {
  let lead = 0;
  while (isPunct(tokens[lead], '(')) lead++;
  let depth = 0;
  let i = 0;
  for (; i < tokens.length; i++) {
    const t = tokens[i];
    if (isPunct(t, '(')) depth++;
    else if (isPunct(t, ')')) depth--;
    else if (depth === lead && isKeyword(t, 'SELECT')) break;
  }
  if (i >= tokens.length) return null;
  i++;
  while (i < tokens.length && tokens[i].kind === 'ident' && SELECT_OPTIONS.has(tokens[i].value.toUpperCase()))
    i++;
  const items: Token[][] = [];
  let cur: Token[] = [];
  let d = 0;
  for (; i < tokens.length; i++) {
    const t = tokens[i];
    if (d === 0) {
      if (isPunct(t, ')') || isPunct(t, ';')) break;
      if (t.kind === 'ident' && LIST_END.has(t.value.toUpperCase())) break;
      if (isPunct(t, ',')) {
        items.push(cur);
        cur = [];
        continue;
      }
    }
    if (isPunct(t, '(')) d++;
    else if (isPunct(t, ')')) d--;
    cur.push(t);
  }
  items.push(cur);
  return items.some((x) => x.length === 0) ? null : items;
}

function plain(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') {
    const o = v as { value?: unknown; expr?: { value?: unknown } };
    if (typeof o.value === 'string') return o.value;
    if (typeof o.expr?.value === 'string') return o.expr.value;
  }
  return null;
}

/**
 * MySQL's names for the columns of a SELECT (the first member of a set operation), or null
 * where they cannot be told from the text (a `*` item, an unreadable select list).
 * `ast` is the normalized AST of `sql`; `tokens`, when given, are `tokenize(sql)`.
 */
export function selectLabels(sql: string, ast: SelectStmt, tokens?: Token[]): string[] | null {
  const cols = ast?.type === 'select' ? ast.columns : null;
  if (!Array.isArray(cols) || cols.length === 0) return null;
  let items: Token[][] | null;
  try {
    items = selectItems(tokens ?? tokenize(sql));
  } catch {
    return null;
  }
  if (!items || items.length !== cols.length) return null;
  const out: string[] = [];
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i];
    const e = c?.expr;
    const alias = plain(c?.as);
    if (alias !== null) {
      out.push(alias);
      continue;
    }
    if (e?.type === 'column_ref') {
      const name = plain(e.column);
      if (name === null || name === '*') return null;
      out.push(name);
      continue;
    }
    if (e?.type === 'string' && typeof e.value === 'string') {
      out.push(e.value);
      continue;
    }
    const toks = items[i];
    out.push(sql.slice(toks[0].start, toks[toks.length - 1].end));
  }
  return out;
}
