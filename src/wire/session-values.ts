/**
 * The connection's own values inside real statements: `SELECT USER(), 1+1`,
 * `SELECT @@version, NOW()`, `... WHERE TABLE_SCHEMA = DATABASE()` (DBeaver, Metabase and
 * JDBC send these). The engine knows nothing of a connection, so system variables and the
 * connection's functions become literals before the statement goes to it; a select item
 * that was only such a value keeps its MySQL column name (`USER()`) through an alias.
 */
import { stringLiteral } from '../core/sql-text.js';
import { isKeyword, isPunct, type Token, tokenize } from '../sql/parse/lexer.js';
import { type SessionInfo, sessionFunction, type VarValue, variables } from './chatter.js';

const QUICK =
  /@@|\b(?:DATABASE|SCHEMA|USER|SESSION_USER|SYSTEM_USER|CURRENT_USER|CURRENT_GROUPS|CONNECTION_ID|VERSION|LAST_INSERT_ID|FOUND_ROWS|ROW_COUNT)\b/i;

/** Words that end a SELECT list at the depth it was opened. */
const AFTER_LIST = new Set([
  'FROM',
  'WHERE',
  'GROUP',
  'HAVING',
  'ORDER',
  'LIMIT',
  'UNION',
  'INTO',
  'WINDOW',
  'FOR',
]);

export class UnknownVariable extends Error {
  constructor(readonly variable: string) {
    super(`Unknown system variable '${variable}'`);
  }
}

function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return stringLiteral('mysql', String(v));
}

interface Found {
  first: number;
  last: number;
  value: unknown;
}

/** A session value starting at token i: `@@[scope.]name`, `FN()`, or bare `CURRENT_USER`. */
function valueAt(t: Token[], i: number, s: SessionInfo, vars: Map<string, VarValue>): Found | null {
  if (isPunct(t[i], '@') && isPunct(t[i + 1], '@') && t[i + 2]?.kind === 'ident') {
    let j = i + 2;
    if (/^(session|global|local)$/i.test(t[j].value) && isPunct(t[j + 1], '.') && t[j + 2]) j += 2;
    const name = t[j].value.toLowerCase();
    if (!vars.has(name)) throw new UnknownVariable(t[j].value);
    return { first: i, last: j, value: vars.get(name) };
  }
  // A user variable `@x` is not ours; nor is `@@x` split across tokens differently.
  if (t[i]?.kind !== 'ident' || isPunct(t[i - 1], '@') || isPunct(t[i - 1], '.')) return null;
  if (isPunct(t[i + 1], '(') && isPunct(t[i + 2], ')')) {
    const v = sessionFunction(t[i].value, s);
    return v ? { first: i, last: i + 2, value: v[0] } : null;
  }
  if (isKeyword(t[i], 'CURRENT_USER') && !isPunct(t[i + 1], '(')) {
    const v = sessionFunction('CURRENT_USER', s);
    return v ? { first: i, last: i, value: v[0] } : null;
  }
  return null;
}

/**
 * `sql` with the session's values written in as literals; `sql` itself when it names none.
 * Throws UnknownVariable for an `@@name` MySQL would refuse (1193).
 */
export function inlineSessionValues(sql: string, s: SessionInfo): string {
  if (!QUICK.test(sql)) return sql;
  let t: Token[];
  try {
    t = tokenize(sql);
  } catch {
    return sql;
  }
  const vars = variables(s);
  let out = '';
  let at = 0;
  let depth = 0;
  // The paren depth of the SELECT list being read, or -1 outside one.
  let listDepth = -1;
  for (let i = 0; i < t.length; i++) {
    const tok = t[i];
    if (isPunct(tok, '(')) depth++;
    else if (isPunct(tok, ')')) {
      depth--;
      if (listDepth > depth) listDepth = -1;
    } else if (isKeyword(tok, 'SELECT')) listDepth = depth;
    else if (tok.kind === 'ident' && depth === listDepth && AFTER_LIST.has(tok.value.toUpperCase()))
      listDepth = -1;
    const found = valueAt(t, i, s, vars);
    if (!found) continue;
    const next = t[found.last + 1];
    const prev = t[found.first - 1];
    const wholeItem =
      listDepth === depth &&
      (isKeyword(prev, 'SELECT', 'DISTINCT', 'ALL') || isPunct(prev, ',')) &&
      (next === undefined ||
        isPunct(next, ',') ||
        isPunct(next, ';') ||
        isPunct(next, ')') ||
        (next.kind === 'ident' && AFTER_LIST.has(next.value.toUpperCase())));
    const text = sql.slice(t[found.first].start, t[found.last].end);
    out += sql.slice(at, t[found.first].start) + literal(found.value);
    if (wholeItem) out += ` AS \`${text.replace(/`/g, '``')}\``;
    at = t[found.last].end;
    i = found.last;
  }
  return at === 0 ? sql : out + sql.slice(at);
}
