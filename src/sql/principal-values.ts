/**
 * The principal's own values in SQL (docs/reference/sql.md#who-am-i): `CURRENT_USER()` (or bare
 * `CURRENT_USER`) is the user the statement runs as, `CURRENT_GROUPS()` its groups joined by
 * commas (for `FIND_IN_SET`), and `USER()`, `SESSION_USER()`, `SYSTEM_USER()` the user too
 * (the MySQL listener answers those `name@address` itself, as clients expect). They are
 * written into the statement as string literals before it is parsed, so every face, cache and
 * source sees a constant, and a plan is never shared between two principals' values.
 */
import { stringLiteral } from '../core/sql-text.js';
import type { StatementPrincipal } from './engine-types.js';
import { isKeyword, isPunct, type Token, tokenize } from './parse/lexer.js';

/** The value of a principal function; undefined for any other name. */
export function principalFunction(name: string, p: StatementPrincipal): string | undefined {
  switch (name.toUpperCase()) {
    case 'CURRENT_USER':
    case 'USER':
    case 'SESSION_USER':
    case 'SYSTEM_USER':
      return p.user;
    case 'CURRENT_GROUPS':
      return p.groups.join(',');
    default:
      return undefined;
  }
}

const QUICK = /\b(?:CURRENT_USER|CURRENT_GROUPS|(?:SESSION_|SYSTEM_)?USER\s*\()/i;

/**
 * `sql` with the principal's functions written in as literals; `sql` itself when it names
 * none, has no principal, or is a SHOW (`SHOW GRANTS FOR CURRENT_USER()` names an account).
 * A select item that was only such a call keeps its MySQL column name (`CURRENT_USER()`).
 */
export function inlinePrincipalValues(sql: string, p: StatementPrincipal | undefined): string {
  if (!p || !QUICK.test(sql)) return sql;
  let t: Token[];
  try {
    t = tokenize(sql);
  } catch {
    return sql;
  }
  if (isKeyword(t[0], 'SHOW')) return sql;
  let out = '';
  let at = 0;
  for (let i = 0; i < t.length; i++) {
    const tok = t[i];
    // `t.user`, `@user`, and quoted names are names, not calls.
    if (tok.kind !== 'ident' || isPunct(t[i - 1], '.') || isPunct(t[i - 1], '@')) continue;
    let last: number;
    if (isPunct(t[i + 1], '(') && isPunct(t[i + 2], ')')) last = i + 2;
    else if (isKeyword(tok, 'CURRENT_USER') && !isPunct(t[i + 1], '(')) last = i;
    else continue;
    const value = principalFunction(tok.value, p);
    if (value === undefined) continue;
    const prev = t[i - 1];
    const next = t[last + 1];
    // A whole select item keeps its name as MySQL would show it.
    const item =
      (isKeyword(prev, 'SELECT', 'DISTINCT', 'ALL') || isPunct(prev, ',')) &&
      (next === undefined ||
        isPunct(next, ',') ||
        isPunct(next, ';') ||
        isKeyword(next, 'FROM', 'WHERE', 'UNION', 'ORDER', 'LIMIT', 'GROUP', 'HAVING', 'INTO'));
    const text = sql.slice(tok.start, t[last].end);
    out += sql.slice(at, tok.start) + stringLiteral('mysql', value);
    if (item) out += ` AS \`${text.replace(/`/g, '``')}\``;
    at = t[last].end;
    i = last;
  }
  return at === 0 ? sql : out + sql.slice(at);
}
