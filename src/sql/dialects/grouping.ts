/**
 * How a grouped select groups with MySQL's meaning: which expressions are its keys (GROUP BY
 * 2 and GROUP BY alias read the select list), which of them fold under the collation, and
 * whether a DISTINCT over text must be said as a grouping. Columns that are not grouped are
 * read through a representative value (MySQL allows them; strict targets do not): the
 * compiler does that per expression from the Grouping made here.
 */
import { containsAggregate, containsWindow } from '../ast/aggregates.js';
import { type Expr, isStar, type SelectItem, type SelectStmt } from '../ast/nodes.js';
import type { Compiler } from './compiler-api.js';
import type { Grouping } from './scope.js';

/** The grouping of a select, or null when it does not group. */
export function groupingPlan(c: Compiler, s: SelectStmt): Grouping | null {
  const cols: SelectItem[] = Array.isArray(s.columns) ? s.columns : [];
  const group: Expr[] | null = s.groupby?.columns?.length ? s.groupby.columns : null;
  const rollup = !!group && (s.groupby?.modifiers ?? []).some((m) => /rollup/i.test(String(m?.value ?? '')));
  let items: Expr[];
  if (group) items = group.map((g) => resolveGroupItem(g, cols));
  else if (s.distinct && distinctNeedsGrouping(c, cols)) items = cols.map((x) => x.expr);
  else if (aggregates(s)) items = [];
  else return null;
  const keys = items.map((node) => {
    const folded = c.folds(node);
    // Keys are grouped as they are (a boolean column stays boolean; the select list may cast it).
    return { node, folded, sql: folded ? c.foldSql(node) : c.exprInner(node, 'value') };
  });
  return { keys, rollup };
}

/** GROUP BY 2 and GROUP BY alias name a select-list expression. */
export function resolveGroupItem(g: Expr, cols: SelectItem[]): Expr {
  if (g?.type === 'number' && Number.isInteger(Number(g.value))) {
    const item = cols[Number(g.value) - 1];
    if (item && !isStar(item.expr)) return item.expr;
  }
  if (g?.type === 'column_ref' && !g.table) {
    const name = g.column.toLowerCase();
    const item = cols.find((x) => x.as != null && String(x.as).toLowerCase() === name);
    if (item && !containsAggregate(item.expr)) return item.expr;
  }
  return g;
}

/** A DISTINCT whose select list has text: MySQL dedups it by the collation, a grouping here. */
function distinctNeedsGrouping(c: Compiler, cols: SelectItem[]): boolean {
  if (cols.length === 0) return false;
  for (const item of cols) {
    const e = item.expr;
    if (isStar(e)) return false;
    if (containsAggregate(e) || containsWindow(e)) return false;
  }
  return cols.some((item) => c.folds(item.expr));
}

/** Whether the select list or HAVING aggregates. */
function aggregates(s: SelectStmt): boolean {
  const cols: SelectItem[] = Array.isArray(s.columns) ? s.columns : [];
  return cols.some((x) => containsAggregate(x.expr)) || containsAggregate(s.having);
}
