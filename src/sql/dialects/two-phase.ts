/**
 * Grouping on text in two phases, so MySQL's collation costs per distinct value, not per row.
 *
 * `SELECT kind, COUNT(*) FROM events GROUP BY kind` must group 'purchase', 'Purchase' and
 * 'PURCHASE ' together. Grouping by the folded value (`GROUP BY translate(upper(rtrim(kind)))`)
 * folds every row: 13x the raw GROUP BY on PostgreSQL over 1,000,000 rows. Instead the
 * statement is rewritten, as an AST, into
 *
 *     SELECT <select list over the groups> FROM (
 *       SELECT <raw keys>, <partial aggregates>, <representatives> FROM ... WHERE ...
 *       GROUP BY <raw keys>              -- phase 1, where the rows are: cheap raw grouping
 *     ) AS __grouped
 *     GROUP BY __grouped.<keys>          -- phase 2: the compiler folds these, per raw group
 *     HAVING ... ORDER BY ... LIMIT ...
 *
 * Aggregates merge across raw groups: COUNT → SUM of counts, SUM → SUM, MIN/MAX → MIN/MAX,
 * AVG → SUM / SUM of counts; a DISTINCT aggregate's argument becomes one more raw key and
 * the aggregate runs in phase 2. Anything else (GROUP_CONCAT without DISTINCT, STD, ROLLUP,
 * windows, subqueries in the select list, set operations) keeps the one-phase translation.
 * Result names and types stay what the one-phase translation gives.
 */

import type { MysqlType } from '../../core/types.js';
import { containsAggregate, containsWindow, isAggregateCall } from '../ast/aggregates.js';
import { sameGroupExpr } from '../ast/equality.js';
import {
  type AggrFunc,
  type ColumnRef,
  type Expr,
  isStar,
  isTableItem,
  type SelectItem,
  type SelectStmt,
  type SqlStatement,
} from '../ast/nodes.js';
import { hasSubquery, mapTree, visit } from '../ast/walk.js';
import { resolveGroupItem } from './grouping.js';
import { type ColumnKind, kindOf } from './infer.js';
import { hasBinaryCollation } from './support.js';
import { type CompileOptions, type Kind, kindOfMysqlType } from './types.js';

/** The derived table phase 1 becomes (a name no statement of ours or a user's is expected to use). */
export const GROUPED = '__grouped';
/**
 * Phase 1's column holding where each raw group was first seen (the least row position of
 * the first table: PostgreSQL's ctid, DuckDB's rowid). Where MySQL returns a group's first
 * spelling ('Paris' of 'Paris', 'paris '), phase 2 takes the raw group seen first.
 */
export const FIRST_SEEN = '__first';

const MERGEABLE = new Set(['COUNT', 'SUM', 'MIN', 'MAX', 'AVG']);
const SMALL_INTEGERS = new Set<MysqlType>(['TINYINT', 'SMALLINT', 'INT', 'YEAR', 'BOOLEAN']);

const TYPE_OF_KIND: Record<Exclude<Kind, null>, MysqlType> = {
  string: 'VARCHAR',
  number: 'DOUBLE',
  date: 'DATE',
  datetime: 'DATETIME',
  time: 'TIME',
  bool: 'BOOLEAN',
  json: 'JSON',
  binary: 'BLOB',
};

interface Rewrite {
  ast: SelectStmt;
  opts: CompileOptions;
}

/** The two-phase form of a grouped SELECT over text, or null when one phase is right or needed. */
export function twoPhase(ast: SqlStatement, opts: CompileOptions): Rewrite | null {
  if (ast?.type !== 'select' || ast._next || !Array.isArray(ast.from) || ast.from.length === 0) return null;
  if (ast.window?.expr?.length || ast.into?.type) return null;
  const cols: SelectItem[] = Array.isArray(ast.columns) ? ast.columns : [];
  if (cols.length === 0 || cols.some((c) => isStar(c.expr))) return null;
  // Without a row position, which spelling stands for a group would change: one phase then.
  const first = ast.from[0];
  const cte = (ast.with ?? []).some((w) => w.name.toLowerCase() === String(first?.table).toLowerCase());
  const firstTable = isTableItem(first) && !cte ? first : null;
  const marker = firstTable
    ? opts.rowMarker?.({
        db: firstTable.db ?? null,
        schema: firstTable.schema ?? null,
        table: firstTable.table,
      })
    : null;
  if (!firstTable || !marker) return null;
  const modifiers = ast.groupby?.modifiers ?? [];
  if (modifiers.some((m) => /rollup/i.test(String(m?.value ?? '')))) return null;
  const outerParts: (Expr | null)[] = [
    ...cols.map((c) => c.expr),
    ast.having,
    ...(ast.orderby ?? []).map((o) => o.expr),
  ];
  if (outerParts.some((e) => containsWindow(e) || hasSubquery(e))) return null;

  const types = opts.columnType;
  const colKind: ColumnKind = (ref) =>
    kindOfMysqlType(
      types?.({
        db: null,
        schema: null,
        table: ref.table ? String(ref.table) : null,
        column: ref.column,
      }),
    );
  const aliases = new Map<string, Expr>();
  for (const c of cols) if (c.as != null) aliases.set(String(c.as).toLowerCase(), c.expr);
  const kind: ColumnKind = (ref) => {
    const a = !ref.table ? aliases.get(ref.column.toLowerCase()) : undefined;
    return a && a !== ref ? kindOf(a, kind) : colKind(ref);
  };
  const folds = (e: Expr | null | undefined) => !!e && kindOf(e, kind) === 'string' && !hasBinaryCollation(e);

  const groupCols = ast.groupby?.columns ?? [];
  const grouped = groupCols.length > 0;
  const aggregated = cols.some((c) => containsAggregate(c.expr)) || containsAggregate(ast.having);
  let keys: Expr[];
  if (grouped) keys = groupCols.map((g) => resolveGroupItem(g, cols));
  else if (ast.distinct && !aggregated) keys = cols.map((c) => c.expr);
  else if (aggregated) keys = [];
  else return null;
  if (keys.some((k) => containsAggregate(k) || containsWindow(k) || hasSubquery(k))) return null;

  const aggregates = collectAggregates(outerParts);
  if (!aggregates) return null;
  // Aggregates that must see each raw value (DISTINCT, and MIN/MAX of folded text) run in
  // phase 2 over their arguments, added to phase 1's raw keys.
  const wholeValues = (a: AggrFunc) =>
    !!a.args?.distinct || (/^(MIN|MAX)$/i.test(String(a.name)) && folds(a.args?.expr));
  const distinctArgs: Expr[] = [];
  for (const a of aggregates) if (wholeValues(a)) distinctArgs.push(...aggregateArgs(a));
  // Only worth it when something folds: a text key or the argument of a DISTINCT aggregate.
  if (!keys.some(folds) && !distinctArgs.some(folds)) return null;

  const inner: SelectItem[] = [];
  const outerTypes = new Map<string, MysqlType | null>();
  const ref = (name: string): ColumnRef => ({ type: 'column_ref', table: GROUPED, column: name });
  const add = (name: string, expr: Expr, type: MysqlType | null) => {
    inner.push({ expr, as: name });
    outerTypes.set(name.toLowerCase(), type);
    return ref(name);
  };
  const typeOf = (e: Expr): MysqlType | null => {
    if (e?.type === 'column_ref') {
      const t = types?.({
        db: null,
        schema: null,
        table: e.table ? String(e.table) : null,
        column: e.column,
      });
      if (t) return t;
    }
    const k = kindOf(e, kind);
    return k ? TYPE_OF_KIND[k] : null;
  };
  // Raw keys: a binary collation makes the compiler group them as they are.
  const raw = (e: Expr): Expr => ({ ...structuredClone(e), collate: { collate: { name: 'binary' } } });
  const keyRefs: { node: Expr; ref: ColumnRef }[] = [];
  const allKeys: Expr[] = [...keys];
  for (const d of distinctArgs) if (!allKeys.some((k) => sameGroupExpr(k, d))) allKeys.push(d);
  allKeys.forEach((k, i) => {
    keyRefs.push({ node: k, ref: add(`k${i + 1}`, raw(k), typeOf(k)) });
  });
  add(
    FIRST_SEEN,
    {
      type: 'aggr_func',
      name: 'MIN',
      args: { expr: { type: 'column_ref', table: firstTable.as ?? firstTable.table, column: marker } },
    },
    null,
  );
  const innerGroup = allKeys.map((k) => raw(k));

  let n = 0;
  const reps = new Map<string, ColumnRef>();
  const isAliasRef = (node: Expr) =>
    node.type === 'column_ref' && !node.table && aliases.has(node.column.toLowerCase());
  /** A group key, or a column read through its group's representative. */
  const keyOrColumn = (node: Expr): Expr | undefined => {
    const key = keyRefs.find((k) => sameGroupExpr(k.node, node));
    if (key) return structuredClone(key.ref);
    if (node.type !== 'column_ref') return undefined;
    const id = `${node.table ?? ''}.${node.column}`.toLowerCase();
    let r = reps.get(id);
    if (!r) {
      r = add(`r${reps.size + 1}`, structuredClone(node), typeOf(node));
      reps.set(id, r);
    }
    return structuredClone(r);
  };
  /** An expression of the select list (aliases: false) or of HAVING / ORDER BY (they may name select aliases). */
  const mapped = (e: Expr, aliasesVisible = false): Expr =>
    mapTree(e, (node) => {
      if (aliasesVisible && isAliasRef(node)) return structuredClone(node);
      if (node.type === 'aggr_func') return merge(node);
      return keyOrColumn(node);
    });
  const merged = new Map<string, Expr>();
  const merge = (a: AggrFunc): Expr => {
    // The same aggregate twice (select list and HAVING) reads the same partial columns.
    const id = JSON.stringify(a);
    const hit = merged.get(id);
    if (hit) return structuredClone(hit);
    const m = mergeOnce(a);
    merged.set(id, m);
    return structuredClone(m);
  };
  const mergeOnce = (a: AggrFunc): Expr => {
    const name = String(a.name).toUpperCase();
    const args = a.args ?? {};
    if (wholeValues(a)) {
      // Phase 2 runs the aggregate itself over the raw keys it added.
      return { ...structuredClone(a), args: mapTree(args, keyOrColumn) };
    }
    const arg = args.expr;
    const fn = (f: string, e: Expr): AggrFunc => ({ type: 'aggr_func', name: f, args: { expr: e } });
    n++;
    if (name === 'COUNT') {
      const count = fn('SUM', add(`a${n}`, structuredClone(a), 'BIGINT'));
      const merged = castTo('SIGNED', count);
      // A count over no rows at all is 0, a SUM over them NULL.
      return grouped
        ? merged
        : {
            type: 'function',
            name: 'COALESCE',
            args: { type: 'expr_list', value: [merged, { type: 'number', value: 0 }] },
          };
    }
    if (name === 'SUM') {
      const t = typeOf(arg);
      const sum = fn(
        'SUM',
        add(`a${n}`, structuredClone(a), t && SMALL_INTEGERS.has(t) ? 'BIGINT' : 'DECIMAL'),
      );
      return t && SMALL_INTEGERS.has(t) ? castTo('SIGNED', sum) : sum;
    }
    if (name === 'MIN' || name === 'MAX') return fn(name, add(`a${n}`, structuredClone(a), typeOf(arg)));
    // AVG: the sum over the count, as exact as AVG itself is for the argument's type.
    const t = typeOf(arg);
    const floating = t === 'DOUBLE' || t === 'FLOAT' || kindOf(arg, kind) === 'string' || t === null;
    const sum = fn('SUM', add(`a${n}`, fn('SUM', structuredClone(arg)), floating ? 'DOUBLE' : 'DECIMAL'));
    const count = fn('SUM', add(`c${n}`, fn('COUNT', structuredClone(arg)), 'BIGINT'));
    const quotient: Expr = { type: 'binary_expr', operator: '/', left: sum, right: count };
    return floating ? castTo('DOUBLE', quotient) : quotient;
  };

  const outerCols = cols.map((c) => ({
    expr: mapped(c.expr),
    as: c.as ?? (c.expr?.type === 'column_ref' ? c.expr.column : (opts.displayName?.(c.expr) ?? 'expr')),
  }));
  const outer: SelectStmt = {
    with: null,
    type: 'select',
    options: null,
    distinct: ast.distinct,
    columns: outerCols,
    from: [
      {
        expr: {
          type: 'subquery',
          ast: {
            with: ast.with,
            type: 'select',
            options: null,
            distinct: null,
            columns: inner,
            from: ast.from,
            where: ast.where,
            groupby: { columns: innerGroup, modifiers: [] },
            having: null,
            orderby: null,
            limit: null,
            window: null,
          },
        },
        as: GROUPED,
      },
    ],
    where: null,
    groupby: grouped
      ? { columns: keyRefs.slice(0, keys.length).map((k) => structuredClone(k.ref)), modifiers: [] }
      : null,
    having: ast.having ? mapped(ast.having, true) : null,
    orderby: Array.isArray(ast.orderby)
      ? ast.orderby.map((o) => ({
          ...o,
          expr: o.expr?.type === 'number' ? o.expr : mapped(o.expr, true),
        }))
      : null,
    limit: ast.limit,
    window: null,
  };
  return {
    ast: outer,
    opts: {
      ...opts,
      columnType: (r) =>
        r.table?.toLowerCase() === GROUPED ? outerTypes.get(r.column.toLowerCase()) : types?.(r),
      columnName: (r) => (r.table?.toLowerCase() === GROUPED ? r.column : (opts.columnName?.(r) ?? r.column)),
      knownValues: (r) => (r.table?.toLowerCase() === GROUPED ? undefined : opts.knownValues?.(r)),
    },
  };
}

function castTo(type: string, expr: Expr): Expr {
  return { type: 'cast', expr, target: [{ dataType: type }] };
}

/** Every aggregate call in the parts, or null when one cannot be merged across raw groups. */
function collectAggregates(parts: (Expr | null | undefined)[]): AggrFunc[] | null {
  const out: AggrFunc[] = [];
  let ok = true;
  visit(parts, (n) => {
    if (!ok) return false;
    if (n.type === 'aggr_func') {
      const a = n as unknown as AggrFunc;
      const name = String(a.name).toUpperCase();
      const distinct = !!a.args?.distinct;
      if (a.over || containsAggregate(a.args?.expr)) ok = false;
      else if (distinct && ['COUNT', 'SUM', 'AVG', 'MIN', 'MAX', 'GROUP_CONCAT'].includes(name)) out.push(a);
      else if (!distinct && MERGEABLE.has(name)) out.push(a);
      else ok = false;
      return false;
    }
    if (n.type === 'function' && isAggregateCall(n)) ok = false;
    return ok;
  });
  return ok ? out : null;
}

function aggregateArgs(a: AggrFunc): Expr[] {
  const e = a.args?.expr;
  if (!e || e.type === 'star') return [];
  return e.type === 'expr_list' ? (e.value ?? []) : [e];
}
