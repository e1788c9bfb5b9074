/**
 * The one test of "does this aggregate": aggregate calls (node-sql-parser reads COUNT/SUM/...
 * as `aggr_func`, and STD/BIT_AND/JSON_ARRAYAGG/... as plain functions), windows, and
 * whether an expression contains either, outside its subqueries.
 */
/** Aggregates node-sql-parser reads as plain function calls. */
export const AGGREGATE_FUNCTIONS = new Set([
  'STD',
  'STDDEV',
  'STDDEV_POP',
  'STDDEV_SAMP',
  'VARIANCE',
  'VAR_POP',
  'VAR_SAMP',
  'BIT_AND',
  'BIT_OR',
  'BIT_XOR',
  'ANY_VALUE',
  'JSON_ARRAYAGG',
  'JSON_OBJECTAGG',
]);

/** Functions that exist only with OVER (...). */
export const WINDOW_ONLY = new Set([
  'ROW_NUMBER',
  'RANK',
  'DENSE_RANK',
  'PERCENT_RANK',
  'CUME_DIST',
  'NTILE',
  'LAG',
  'LEAD',
  'FIRST_VALUE',
  'LAST_VALUE',
  'NTH_VALUE',
]);

type Typed = { type?: unknown; over?: unknown; name?: unknown };

/** An aggregate call (not a window call). */
export function isAggregateCall(node: Typed | null | undefined): boolean {
  if (!node || node.over) return false;
  if (node.type === 'aggr_func') return true;
  return node.type === 'function' && AGGREGATE_FUNCTIONS.has(String(node.name).toUpperCase());
}

/** Whether an expression aggregates (outside subqueries and window calls). */
export function containsAggregate(node: unknown): boolean {
  return someNode(node, isAggregateCall);
}

/** Whether an expression calls a window function. */
export function containsWindow(node: unknown): boolean {
  return someNode(node, (n) => !!n.over);
}

function someNode(node: unknown, pred: (n: Typed) => boolean): boolean {
  if (!node || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some((n) => someNode(n, pred));
  const o = node as Typed & Record<string, unknown>;
  if (o.type === 'subquery') return false;
  if (o.type && pred(o)) return true;
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (v && typeof v === 'object' && someNode(v, pred)) return true;
  }
  return false;
}
