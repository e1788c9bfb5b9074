/** Generic walks over node-sql-parser ASTs (normalized). */

/** Visit every object node (depth-first); return false from `fn` to skip a node's children. */
export function visit(
  node: unknown,
  fn: (n: any, key: string | null, parent: any) => unknown,
  key: string | null = null,
  parent: any = null,
): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const x of node) visit(x, fn, key, parent);
    return;
  }
  if (fn(node, key, parent) === false) return;
  for (const k of Object.keys(node)) {
    if (k.startsWith('__')) continue;
    const v = (node as any)[k];
    if (v && typeof v === 'object') visit(v, fn, k, node);
  }
}

/** Plain text of a name that node-sql-parser may give as a string or as {type, value} / {expr:{value}}. */
export function nameOf(v: any): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v.value === 'string') return v.value;
  if (v.expr && typeof v.expr.value === 'string') return v.expr.value;
  return null;
}

/** Every FROM/JOIN/target item that names a table (not subqueries, not DUAL), nested joins included. */
export function tableItems(ast: any): any[] {
  const out: any[] = [];
  visit(ast, (n, key, parent) => {
    // `a LEFT JOIN (b JOIN c ON ...) ON ...` holds b and c in a join_group's `expr`.
    const place = key === 'from' || key === 'table' || (key === 'expr' && parent?.type === 'join_group');
    if (place && typeof n.table === 'string' && !n.expr) out.push(n);
  });
  return out;
}

/** Names of CTEs anywhere in the statement (lower case). */
export function cteNames(ast: any): Set<string> {
  const out = new Set<string>();
  visit(ast, (n, key) => {
    if (key === 'with' && n.name !== undefined && n.stmt !== undefined) {
      const name = nameOf(n.name);
      if (name) out.add(name.toLowerCase());
    }
  });
  return out;
}

export function columnRefs(ast: any): any[] {
  const out: any[] = [];
  visit(ast, (n) => {
    if (n.type === 'column_ref') out.push(n);
  });
  return out;
}

export function hasSubquery(expr: any): boolean {
  let found = false;
  visit(expr, (n) => {
    if (n.ast || n.type === 'select') found = true;
    return !found;
  });
  return found;
}

export function hasAggregate(expr: any): boolean {
  let found = false;
  visit(expr, (n) => {
    if (n.type === 'aggr_func' || n.over) found = true;
    return !found;
  });
  return found;
}

/** Top-level AND conjuncts of a WHERE expression. */
export function conjuncts(expr: any): any[] {
  if (!expr) return [];
  if (expr.type === 'binary_expr' && String(expr.operator).toUpperCase() === 'AND' && !expr.parentheses)
    return [...conjuncts(expr.left), ...conjuncts(expr.right)];
  if (expr.type === 'binary_expr' && String(expr.operator).toUpperCase() === 'AND')
    return [...conjuncts(expr.left), ...conjuncts(expr.right)];
  return [expr];
}

export function andAll(exprs: any[]): any {
  return exprs.reduce(
    (acc, e) => (acc ? { type: 'binary_expr', operator: 'AND', left: acc, right: e } : e),
    null,
  );
}

export function clone<T>(x: T): T {
  return structuredClone(x);
}
