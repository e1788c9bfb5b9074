/**
 * Which text columns are worth asking the source's statistics about: those a statement
 * compares with text literals (`col = 'x'`, `col <> 'x'`, `col IN ('x', 'y')`). Their known
 * spellings let the compiler decide the comparison without folding every row
 * (dialects/collation.ts).
 */

import type { ColumnInfo } from '../../core/types.js';
import type { BinaryExpr, ColumnRef, SqlStatement } from '../ast/nodes.js';
import { nameOf, visit } from '../ast/walk.js';

const TEXT_TYPES = new Set(['CHAR', 'VARCHAR', 'TEXT', 'ENUM', 'SET']);

/** Column references compared with text literals, anywhere in the statement. */
export function literalComparedColumns(ast: SqlStatement): ColumnRef[] {
  const out: ColumnRef[] = [];
  visit(ast, (o) => {
    if (o.type !== 'binary_expr') return;
    const n = o as unknown as BinaryExpr;
    const op = String(n.operator).toUpperCase();
    if (op === '=' || op === '<>' || op === '!=') {
      if (n.left?.type === 'column_ref' && n.right?.type === 'string') out.push(n.left);
      else if (n.right?.type === 'column_ref' && n.left?.type === 'string') out.push(n.right);
    } else if (op === 'IN' || op === 'NOT IN') {
      const items = n.right?.type === 'expr_list' ? n.right.value : null;
      if (n.left?.type === 'column_ref' && Array.isArray(items) && items.every((i) => i?.type === 'string'))
        out.push(n.left);
    }
  });
  return out;
}

/** A table of the statement, as the owner of column references. */
export interface OwnerTable {
  qualifier: string;
  cols: ColumnInfo[];
}

/**
 * The real names of text columns of `table` that `refs` point at: qualified by its
 * qualifier, or unqualified and found in no other table.
 */
export function textColumnsOf(table: OwnerTable, all: OwnerTable[], refs: ColumnRef[]): string[] {
  const q = table.qualifier.toLowerCase();
  const out = new Set<string>();
  for (const ref of refs) {
    const col = (nameOf(ref.column) ?? '').toLowerCase();
    const t = nameOf(ref.table)?.toLowerCase() ?? null;
    if (t !== null && t !== q) continue;
    const info = table.cols.find((c) => c.name.toLowerCase() === col);
    if (!info || !TEXT_TYPES.has(info.type)) continue;
    if (t === null && all.some((o) => o !== table && o.cols.some((c) => c.name.toLowerCase() === col)))
      continue;
    out.add(info.name);
  }
  return [...out];
}
