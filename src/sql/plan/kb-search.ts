import { ErrorCode, SqlError } from '../../core/errors.js';
import type { CanonicalValue } from '../../core/types.js';
import { type Expr, literalValue, type SqlStatement } from '../ast/nodes.js';
import { andAll, conjuncts, nameOf } from '../ast/walk.js';
import type { KbFilter, KbFilterOp, KbSearch } from '../kb-port.js';
import type { BoundRef } from './bind.js';

const OPS = new Set(['=', '!=', '<>', '<', '<=', '>', '>=', 'IN', 'NOT IN', 'LIKE', 'NOT LIKE']);
const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
/** Conditions that steer the search rather than filter rows (MindsDB's names). */
const SEARCH_COLUMNS = new Set([
  'content',
  'relevance',
  'relevance_threshold',
  'hybrid_search',
  'hybrid_search_alpha',
]);

/**
 * Take a knowledge base's part of a SELECT's WHERE: the question (`content = '...'`), the
 * ranking options, and the metadata conditions `column op literal` the KB evaluates before
 * it ranks. Those conjuncts leave the statement's WHERE (the KB answers them exactly); the
 * rest is evaluated locally over the KB's rows. A column belongs to the KB when qualified by
 * its name or alias, or unqualified when the KB is the statement's only table.
 */
export function takeKbSearch(ast: SqlStatement, ref: BoundRef, refs: BoundRef[]): KbSearch {
  const search: KbSearch = {
    query: null,
    filters: [],
    minRelevance: null,
    hybrid: false,
    alpha: null,
    limit: null,
    reranking: true,
  };
  if (ast.type !== 'select') return search;
  const only = refs.length === 1;
  const mine = (e: Expr | undefined): string | null => {
    if (e?.type !== 'column_ref') return null;
    const q = nameOf(e.table);
    const col = nameOf(e.column);
    if (!col || col === '*') return null;
    if (q ? q.toLowerCase() === ref.qualifier.toLowerCase() : only || SEARCH_COLUMNS.has(col.toLowerCase()))
      return col;
    return null;
  };
  const kept: Expr[] = [];
  for (const c of conjuncts(ast.where)) {
    if (!take(c)) kept.push(c);
  }
  ast.where = andAll(kept);
  if (only && ast.limit?.value?.length) {
    const nums = ast.limit.value.map((v) => (v.type === 'number' ? Number(v.value) : Number.NaN));
    if (nums.every(Number.isFinite)) search.limit = nums.reduce((a, b) => a + b, 0);
  }
  return search;

  function take(c: Expr): boolean {
    if (c.type !== 'binary_expr') return false;
    let op = String(c.operator).toUpperCase();
    if (!OPS.has(op)) return false;
    let col = mine(c.left);
    let lit = c.right;
    if ((!col && FLIP[op] !== undefined) || (!col && op === '=')) {
      col = mine(c.right);
      lit = c.left;
      op = FLIP[op] ?? op;
    }
    if (!col) return false;
    const value = op === 'IN' || op === 'NOT IN' ? listOf(lit) : literalValue(lit);
    if (value === undefined) return false;
    const lower = col.toLowerCase();
    if (lower === 'content') {
      if (op !== '=' || typeof value !== 'string')
        throw new SqlError(
          ErrorCode.NOT_SUPPORTED,
          `Knowledge base '${ref.table}': search with content = 'question'`,
        );
      search.query = value;
      return true;
    }
    if (lower === 'relevance' || lower === 'relevance_threshold') {
      if (
        !(op === '>=' || op === '>' || (lower === 'relevance_threshold' && op === '=')) ||
        typeof value !== 'number'
      )
        return false;
      search.minRelevance = value;
      return true;
    }
    if (lower === 'hybrid_search') {
      search.hybrid = value === true || value === 1 || value === 'true';
      return true;
    }
    if (lower === 'hybrid_search_alpha') {
      if (typeof value !== 'number' || value < 0 || value > 1)
        throw new SqlError(
          ErrorCode.SYNTAX,
          `Knowledge base '${ref.table}': hybrid_search_alpha must be a number in [0,1]`,
        );
      search.alpha = value;
      search.hybrid = true;
      return true;
    }
    if (value === null) return false;
    search.filters.push({
      column: col,
      op: (op === '<>' ? '!=' : op) as KbFilterOp,
      value,
    } satisfies KbFilter);
    return true;
  }
}

function listOf(e: Expr | undefined): CanonicalValue[] | undefined {
  if (e?.type !== 'expr_list') return undefined;
  const out: CanonicalValue[] = [];
  for (const x of e.value as Expr[]) {
    const v = literalValue(x);
    if (v === undefined || v === null) return undefined;
    out.push(v);
  }
  return out;
}
