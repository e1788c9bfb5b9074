/**
 * UNION / INTERSECT / EXCEPT with MySQL's meaning: rows are told apart as the default
 * collation tells them ('Paris' = 'paris '), so a set operation over text columns is said
 * as a grouping (UNION) or a semi-join (INTERSECT, EXCEPT) on folded values, and its ORDER
 * BY sorts a wrapper by the fold.
 */
import { aliasColumns } from '../ast/equality.js';
import {
  columnName,
  type Expr,
  isStar,
  type OrderItem,
  type SelectItem,
  type SelectStmt,
} from '../ast/nodes.js';
import type { Compiler } from './compiler-api.js';

/**
 * The body of a set-operation chain (`members` from its head `s`) with its ORDER BY and
 * LIMIT. `rewrite` is false where the text must stay as written (a recursive CTE's body).
 */
export function setOperation(c: Compiler, s: SelectStmt, members: SelectStmt[], rewrite: boolean): string {
  rewrite &&= c.emulate;
  const ci = rewrite && members.length === 2 ? caseInsensitiveSetOp(c, members[0], members[1]) : null;
  if (ci) return setOpTail(c, s, members, ci);
  const names = rewrite ? caseInsensitiveUnion(c, members) : null;
  const op = (m: SelectStmt) => (names ? 'UNION ALL' : c.setOperator(String(m.set_op ?? 'UNION')));
  let body = c.setMember(members[0]);
  for (let i = 1; i < members.length; i++) body += ` ${op(members[i - 1])} ${c.setMember(members[i])}`;
  if (names) {
    // MySQL's UNION removes rows equal under the default collation ('Paris' = 'paris ').
    const u = c.quoteIdent('_union');
    const cols = names.map(({ name, folded }) => {
      const ref = `${u}.${c.quoteIdent(name)}`;
      return {
        sel: folded ? `${c.representative(ref)} AS ${c.quoteIdent(name)}` : ref,
        key: folded ? c.foldColumnSql(ref) : ref,
      };
    });
    body = `SELECT ${cols.map((x) => x.sel).join(', ')} FROM (${body}) AS ${u} GROUP BY ${cols.map((x) => x.key).join(', ')}`;
  }
  return setOpTail(c, s, members, body);
}

/** ORDER BY / LIMIT of a set operation, wrapping the body when strings must sort as MySQL sorts them. */
function setOpTail(c: Compiler, s: SelectStmt, members: SelectStmt[], body = ''): string {
  let sql = '';
  const scope = c.scopes.push(null);
  scope.outputNames = true;
  try {
    const orderby: OrderItem[] = c.sortItems(s._orderby);
    const folds = c.emulate ? orderby.map((o) => setOrderFold(c, members, o.expr)) : [];
    if (folds.some((f) => f !== null)) {
      // ORDER BY of a set operation may only name columns; sort a wrapper to fold strings.
      const u = c.quoteIdent('_union');
      body = `SELECT * FROM (${body}) AS ${u}`;
      sql += `${body} ORDER BY ${orderby
        .map((o, i) => {
          const desc = String(o.type ?? '').toUpperCase() === 'DESC';
          const f = folds[i];
          const e = f ? c.foldColumnSql(`${u}.${c.quoteIdent(f)}`) : c.expr(o.expr);
          return `${e}${desc ? ' DESC' : ''}${c.nullsOrder(desc)}`;
        })
        .join(', ')}`;
    } else {
      sql += body;
      if (orderby.length) sql += ` ORDER BY ${orderby.map((o) => c.orderItem(o, false)).join(', ')}`;
    }
    sql += c.limitClause(s, '_limit');
  } finally {
    c.scopes.pop();
  }
  return sql;
}

/**
 * INTERSECT / EXCEPT of two selects over strings: rows match under MySQL's collation
 * (case, trailing spaces). Said as a semi-join (anti-join) on folded values. With ALL (kept
 * duplicates), the n-th copy of a row on the left matches the n-th copy on the right: both
 * sides number their copies, and the number joins the match. ALL is said so on every
 * target that emulates MySQL (SQLite has no INTERSECT ALL at all).
 */
function caseInsensitiveSetOp(c: Compiler, a: SelectStmt, b: SelectStmt): string | null {
  // Not c.setOperator: a target without INTERSECT ALL refuses it there, and it is said here.
  const full = String(a.set_op ?? '')
    .toUpperCase()
    .replace(/^MINUS\b/, 'EXCEPT');
  const all = full.endsWith(' ALL');
  const op = all ? full.slice(0, -4) : full;
  if (op !== 'INTERSECT' && op !== 'EXCEPT') return null;
  const cols = a.columns;
  if (!Array.isArray(cols) || !Array.isArray(b.columns) || cols.length !== b.columns.length) return null;
  const names: string[] = [];
  const folded: boolean[] = [];
  for (let i = 0; i < cols.length; i++) {
    const e = cols[i].expr;
    const f = b.columns[i].expr;
    if (
      (e?.type === 'column_ref' && columnName(e) === '*') ||
      (f?.type === 'column_ref' && columnName(f) === '*')
    )
      return all ? c.unsupported(`${full} of SELECT *`) : null;
    names.push(String(cols[i].as ?? (e?.type === 'column_ref' ? columnName(e) : c.display(e))));
    folded.push([e, f].some((x) => c.kind(x) === 'string' && !c.caseSensitive(x)));
  }
  if (!all && !folded.some(Boolean)) return null;
  const qa = c.quoteIdent('_a');
  const qb = c.quoteIdent('_b');
  const col = (i: number) => c.quoteIdent(`c${i + 1}`);
  const key = (t: string, i: number) => (folded[i] ? c.foldColumnSql(`${t}.${col(i)}`) : `${t}.${col(i)}`);
  const sel = names.map(
    (n, i) => `${folded[i] ? c.representative(`${qa}.${col(i)}`) : `${qa}.${col(i)}`} AS ${c.quoteIdent(n)}`,
  );
  const cn = names.map((_, i) => `c${i + 1}`);
  let left = c.selectStatement(aliasColumns({ ...a, _next: null, set_op: null }, cn));
  let right = c.selectStatement(aliasColumns({ ...b, _next: null, set_op: null }, cn));
  const conds = names.map((_, i) => `${key(qa, i)} IS NOT DISTINCT FROM ${key(qb, i)}`);
  let out = sel;
  if (all) {
    // The n-th copy matches the n-th copy; a folded column shows its group's first spelling
    // (first in the left side's own order, `_p`).
    const n = c.quoteIdent('_n');
    const p = c.quoteIdent('_p');
    const part = (t: string) => `PARTITION BY ${names.map((_, i) => key(t, i)).join(', ')}`;
    const firsts = names
      .map((_, i) =>
        folded[i]
          ? `, first_value(${qa}.${col(i)}) OVER (${part(qa)} ORDER BY ${qa}.${p}) AS ${c.quoteIdent(`r${i + 1}`)}`
          : '',
      )
      .join('');
    left = `SELECT ${qa}.*, ROW_NUMBER() OVER () AS ${p} FROM (${left}) AS ${qa}`;
    left = `SELECT ${qa}.*, ROW_NUMBER() OVER (${part(qa)} ORDER BY ${qa}.${p}) AS ${n}${firsts} FROM (${left}) AS ${qa}`;
    right = `SELECT ${qb}.*, ROW_NUMBER() OVER (${part(qb)}) AS ${n} FROM (${right}) AS ${qb}`;
    conds.push(`${qa}.${n} = ${qb}.${n}`);
    out = names.map(
      (nm, i) => `${qa}.${folded[i] ? c.quoteIdent(`r${i + 1}`) : col(i)} AS ${c.quoteIdent(nm)}`,
    );
  }
  const match = conds.join(' AND ');
  const head =
    `SELECT ${out.join(', ')} FROM (${left}) AS ${qa} WHERE ${op === 'EXCEPT' ? 'NOT ' : ''}EXISTS ` +
    `(SELECT 1 FROM (${right}) AS ${qb} WHERE ${match})`;
  return all ? head : `${head} GROUP BY ${names.map((_, i) => key(qa, i)).join(', ')}`;
}

/** The output column an ORDER BY item of a set operation sorts by, when it is a string column. */
function setOrderFold(c: Compiler, members: SelectStmt[], e: Expr): string | null {
  const cols = members[0].columns;
  if (!Array.isArray(cols)) return null;
  let idx = -1;
  if (e?.type === 'number' && Number.isInteger(Number(e.value))) idx = Number(e.value) - 1;
  else if (e?.type === 'column_ref') {
    const name = columnName(e).toLowerCase();
    idx = cols.findIndex((it: SelectItem) => {
      const n = it.as ?? (it.expr?.type === 'column_ref' ? columnName(it.expr) : null);
      return n != null && String(n).toLowerCase() === name;
    });
  }
  const item = cols[idx];
  if (!item || isStar(item.expr)) return null;
  const stringy = members.some((m) => {
    const x = m.columns?.[idx]?.expr;
    return !!x && c.kind(x) === 'string' && !c.caseSensitive(x);
  });
  if (!stringy) return null;
  return String(item.as ?? (item.expr?.type === 'column_ref' ? columnName(item.expr) : c.display(item.expr)));
}

/**
 * Output column names of a UNION (DISTINCT) chain whose result has string columns, or
 * null when plain UNION already means what MySQL means (or the names are unknown).
 */
function caseInsensitiveUnion(
  c: Compiler,
  members: SelectStmt[],
): { name: string; folded: boolean }[] | null {
  if (members.slice(0, -1).some((m) => c.setOperator(String(m.set_op ?? 'UNION')) !== 'UNION')) return null;
  const cols = members[0].columns;
  if (!Array.isArray(cols) || cols.length === 0) return null;
  const out: { name: string; folded: boolean }[] = [];
  for (let i = 0; i < cols.length; i++) {
    const e = cols[i].expr;
    if (e?.type === 'column_ref' && columnName(e) === '*') return null;
    const name = cols[i].as ?? (e?.type === 'column_ref' ? columnName(e) : c.display(e));
    const folded = members.some((m) => {
      const x = m.columns?.[i]?.expr;
      return !!x && c.kind(x) === 'string' && !c.caseSensitive(x);
    });
    out.push({ name: String(name), folded });
  }
  return out.some((o) => o.folded) ? out : null;
}
