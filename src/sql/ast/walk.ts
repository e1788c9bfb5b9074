/**
 * The one walker over statement trees, and the small queries built on it. `visit` goes
 * depth-first over every object of the tree (typed nodes and the untyped parts between
 * them: select items, FROM items, ORDER BY items, argument lists), so a question like
 * "which columns does this read" is asked the same way everywhere.
 */
import type { ColumnRef, Expr, FromItem, SelectStmt, SqlStatement, TableItem } from './nodes.js';

/** Any object of the tree (a typed node or a part holding nodes). */
export type TreeObject = { [key: string]: unknown };

/** Node types whose values are never objects (normalize.ts: numbers, booleans, NULL). */
const LEAVES = new Set(['number', 'bool', 'null']);

/** Visit every object (depth-first); return false from `fn` to skip an object's children. */
export function visit(
  node: unknown,
  fn: (n: TreeObject, key: string | null, parent: TreeObject | null) => unknown,
  key: string | null = null,
  parent: TreeObject | null = null,
): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) visit(node[i], fn, key, parent);
    return;
  }
  const o = node as TreeObject;
  if (fn(o, key, parent) === false) return;
  // Literals without parts of their own: a 100,000-value IN list is 100,000 of them.
  if (LEAVES.has(o.type as string)) return;
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    // Keys starting `__` (planner annotations) are not part of the tree.
    if (k.charCodeAt(0) === 95 && k.charCodeAt(1) === 95) continue;
    const v = o[k];
    if (v && typeof v === 'object') visit(v, fn, k, o);
  }
}

/** A name that is a string, or absent. */
export function nameOf(v: string | null | undefined): string | null {
  return typeof v === 'string' ? v : null;
}

/** Every FROM/JOIN/target item that names a table (not subqueries, not DUAL), nested joins included. */
export function tableItems(ast: SqlStatement | SelectStmt): TableItem[] {
  const out: TableItem[] = [];
  visit(ast, (n, key, parent) => {
    if (isTableItem(n, key, parent)) out.push(n as unknown as TableItem);
  });
  return out;
}

/** Whether a visited object (visit's arguments) is an item that names a table (tableItems). */
export function isTableItem(n: TreeObject, key: string | null, parent: TreeObject | null): boolean {
  // `a LEFT JOIN (b JOIN c ON ...) ON ...` holds b and c in a join_group's `expr`.
  const place = key === 'from' || key === 'table' || (key === 'expr' && parent?.type === 'join_group');
  return place && typeof n.table === 'string' && !n.expr;
}

/** Names of CTEs anywhere in the statement (lower case). */
export function cteNames(ast: SqlStatement): Set<string> {
  const out = new Set<string>();
  visit(ast, (n, key) => {
    if (key === 'with' && typeof n.name === 'string' && n.stmt !== undefined) out.add(n.name.toLowerCase());
  });
  return out;
}

/** Every column reference, in subqueries too. */
export function columnRefs(ast: unknown): ColumnRef[] {
  const out: ColumnRef[] = [];
  visit(ast, (n) => {
    if (n.type === 'column_ref') out.push(n as unknown as ColumnRef);
  });
  return out;
}

export function hasSubquery(expr: unknown): boolean {
  let found = false;
  visit(expr, (n) => {
    if (n.ast || n.type === 'select') found = true;
    return !found;
  });
  return found;
}

/** Top-level AND conjuncts of a condition (parenthesized ANDs are flattened too). */
export function conjuncts(expr: Expr | null | undefined): Expr[] {
  if (!expr) return [];
  if (expr.type === 'binary_expr' && String(expr.operator).toUpperCase() === 'AND')
    return [...conjuncts(expr.left), ...conjuncts(expr.right)];
  return [expr];
}

export function andAll(exprs: Expr[]): Expr | null {
  return exprs.reduce<Expr | null>(
    (acc, e) => (acc ? { type: 'binary_expr', operator: 'AND', left: acc, right: e } : e),
    null,
  );
}

export function clone<T>(x: T): T {
  return structuredClone(x);
}

/** FROM items with parenthesized join groups flattened, in order. */
export function flatFrom(from: FromItem[] | null | undefined): FromItem[] {
  const out: FromItem[] = [];
  for (const f of from ?? []) {
    if (f.type === 'join_group') out.push(...flatFrom(f.expr));
    else out.push(f);
  }
  return out;
}

/**
 * A copy of `node` where `fn` replaced the expressions it returns a replacement for; it is
 * asked about every typed node, outermost first, and not about the inside of what it replaced.
 */
export function mapTree<T>(node: T, fn: (n: Expr) => Expr | undefined): T {
  const copy = (v: unknown): unknown => {
    if (!v || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map(copy);
    const o = v as TreeObject;
    if (typeof o.type === 'string') {
      const r = fn(o as unknown as Expr);
      if (r !== undefined) return r;
    }
    const out: TreeObject = {};
    for (const k of Object.keys(o)) out[k] = copy(o[k]);
    return out;
  };
  return copy(node) as T;
}
