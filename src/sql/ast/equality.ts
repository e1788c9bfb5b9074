/** When two expressions are the same: structurally, or as GROUP BY keys. */
import type { Expr, SelectStmt } from './nodes.js';

/** Two expressions that group the same way (column names compared case-insensitively). */
export function sameGroupExpr(a: Expr, b: Expr): boolean {
  if (a?.type === 'column_ref' && b?.type === 'column_ref') {
    if (a.column.toLowerCase() !== b.column.toLowerCase()) return false;
    return !a.table || !b.table || String(a.table).toLowerCase() === String(b.table).toLowerCase();
  }
  return exprKey(a) === exprKey(b);
}

function exprKey(n: Expr): string {
  return JSON.stringify(n, (k, v) => {
    if (k === 'parentheses' || k === 'loc' || k === 'tableList' || k === 'columnList') return undefined;
    if (v && typeof v === 'object' && v.type === 'column_ref') {
      return { c: String(v.column).toLowerCase(), t: v.table ? String(v.table).toLowerCase() : null };
    }
    return v;
  });
}

/** Structural equality of two expressions (for ORDER BY inside DISTINCT aggregates). */
export function sameExpr(a: Expr, b: Expr): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A select whose output columns are renamed (a shallow copy; the AST is not changed). */
export function aliasColumns(ast: SelectStmt, names: string[]): SelectStmt {
  const cols = Array.isArray(ast.columns) ? ast.columns : [];
  return { ...ast, columns: cols.map((c, i) => (i < names.length ? { ...c, as: names[i] } : c)) };
}
