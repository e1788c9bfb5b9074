/**
 * NATURAL JOIN as MySQL means it: a join USING every column name both sides share (compared
 * case-insensitively, spelled as the left side spells it), so each common column appears once
 * and first in `SELECT *`, as with USING. The parser marks the join (parse/clause-gaps.ts);
 * the columns are only known once the tables are bound, so the list is filled here, before
 * anything is compiled, and every later stage sees an ordinary USING join. No shared column:
 * a cross join (an outer join keeps every row of its side, as MySQL does).
 * A derived table or a CTE brings the names of its select list (a `*` there: the columns
 * of its own FROM).
 */
import { ErrorCode, SqlError } from '../../core/errors.js';
import { columnName, type FromItem, type SelectStmt, type SqlStatement, type With } from '../ast/nodes.js';
import { visit } from '../ast/walk.js';
import { displayName } from '../dialects/display.js';

/** Column names of a base table of FROM, or null when the item is not one (a derived table, a CTE). */
export type ColumnsOf = (item: FromItem) => string[] | null;

export function hasNaturalJoin(ast: SqlStatement): boolean {
  let found = false;
  visit(ast, (n) => {
    if (n.natural === true) found = true;
    return !found;
  });
  return found;
}

/** Fills the USING list of every NATURAL JOIN of the statement (in place). */
export function resolveNaturalJoins(ast: SqlStatement, baseColumns: ColumnsOf): void {
  const lists: FromItem[][] = [];
  const ctes = new Map<string, With>();
  visit(ast, (n) => {
    if (Array.isArray(n.with)) for (const w of n.with as With[]) ctes.set(String(w.name).toLowerCase(), w);
  });
  const columnsOf: ColumnsOf = (item) => {
    const base = baseColumns(item);
    if (base) return base;
    if (item.type !== 'join_group' && item.expr) return selectColumns(item.expr.ast, columnsOf);
    const cte = item.table && !item.db ? ctes.get(item.table.toLowerCase()) : undefined;
    if (!cte) return null;
    if (Array.isArray(cte.columns) && cte.columns.length) return cte.columns.map(String);
    return selectColumns(cte.stmt.ast, columnsOf);
  };
  visit(ast, (n) => {
    for (const k of ['from', 'expr'] as const) {
      const v = n[k];
      if (Array.isArray(v) && v.some((x) => x && typeof x === 'object' && (x as FromItem).natural))
        if (k === 'from' || n.type === 'join_group') lists.push(v as FromItem[]);
    }
  });
  for (const items of lists) {
    for (let i = 1; i < items.length; i++) {
      const item = items[i];
      if (!item.natural) continue;
      const left = items.slice(0, i).flatMap((x) => itemColumns(x, columnsOf));
      const right = itemColumns(item, columnsOf);
      const byLower = new Map(right.map((c) => [c.toLowerCase(), c]));
      const seen = new Set<string>();
      const common: string[] = [];
      for (const c of left) {
        const k = c.toLowerCase();
        if (byLower.has(k) && !seen.has(k)) {
          seen.add(k);
          common.push(c);
        }
      }
      item.natural = false;
      item.using = common.length ? common : null;
    }
  }
}

/** The output names of a SELECT (its first member for a set operation), or null when unknown. */
function selectColumns(s: SelectStmt, columnsOf: ColumnsOf): string[] | null {
  if (!Array.isArray(s?.columns)) return null;
  const from: FromItem[] = Array.isArray(s.from) ? s.from : [];
  const out: string[] = [];
  for (const item of s.columns) {
    const e = item.expr;
    if (e?.type === 'column_ref' && columnName(e) === '*') {
      const q = e.table ? String(e.table).toLowerCase() : null;
      const chosen = q
        ? from.filter((f) => String(f.as ?? f.table ?? '').toLowerCase() === q)
        : from.filter((f) => f.type !== 'dual');
      if (q && chosen.length === 0) return null;
      out.push(...chosen.flatMap((f) => itemColumns(f, columnsOf)));
    } else if (item.as != null) out.push(String(item.as));
    else out.push(e?.type === 'column_ref' ? columnName(e) : displayName(e));
  }
  return out;
}

function itemColumns(item: FromItem, columnsOf: ColumnsOf): string[] {
  if (item.type === 'join_group') return item.expr.flatMap((x) => itemColumns(x, columnsOf));
  const cols = columnsOf(item);
  if (cols) return cols;
  throw new SqlError(
    ErrorCode.NOT_SUPPORTED,
    `Not supported: NATURAL JOIN with ${item.expr ? 'a derived table' : `'${item.as ?? item.table}' (a CTE)`}; name the shared columns with USING (...)`,
  );
}
