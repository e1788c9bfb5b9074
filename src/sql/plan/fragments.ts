/**
 * Fragments of a statement that runs in the local engine: for each source table, what its
 * source is asked to run, negotiated the way DataFusion's `supports_filters_pushdown` and
 * Trino's `applyFilter` / `applyLimit` / `applyProjection` do:
 *
 *  - filters: each conjunct of WHERE, and of an ON clause, that touches only this table
 *    (and may filter it: never on an outer join's null-supplying side, except that side's
 *    own ON conditions) is offered to the source. The answer is Exact (the source's
 *    translation keeps MySQL's meaning: the conjunct leaves the local statement), Inexact
 *    (the source narrows, the local engine re-checks: a target that only approximates it,
 *    or a source that declares inexact filters) or Unsupported (not pushed);
 *  - limit: pushed only when it is guaranteed: one fragment, every WHERE conjunct pushed
 *    exactly, and no join, grouping, DISTINCT, window or ORDER BY above it;
 *  - projection: the columns the local statement still reads.
 * What was agreed is kept on the fragment for EXPLAIN.
 */
import type { Source } from '../../sources/types.js';
import { containsAggregate, containsWindow } from '../ast/aggregates.js';
import {
  type Expr,
  type FromItem,
  limitOf,
  type SelectItem,
  type SelectStmt,
  type SqlStatement,
  type TableItem,
} from '../ast/nodes.js';
import { andAll, clone, columnRefs, hasSubquery, visit } from '../ast/walk.js';
import { displayName } from '../dialects/display.js';
import { compileChecked, UnsupportedError } from '../dialects/index.js';
import type { BoundRef } from './bind.js';
import type { ColumnLookup, LookupTable } from './column-lookup.js';
import { type Candidate, candidateConjuncts, touchesOnly } from './conjuncts.js';

export type FilterSupport = 'exact' | 'inexact' | 'unsupported';

export interface PushedFilter {
  /** The conjunct as MySQL text, for EXPLAIN. */
  text: string;
  support: Exclude<FilterSupport, 'unsupported'>;
  /** Why it is inexact (the target's approximation, or the source's declaration). */
  why?: string;
}

export interface FragmentDraft {
  ref: BoundRef;
  source: Source;
  table: LookupTable;
  filters: Expr[];
  agreed: PushedFilter[];
  limit: number | null;
}

/** Compile options for a source's dialect given what the planner knows of the tables. */
export type OptsFor = (source: Source, lookup: ColumnLookup) => Parameters<typeof compileChecked>[2];

/**
 * Offer each candidate conjunct to each table's source; exact ones leave the local copy of
 * the statement (`local`, a clone of `ast` with the same shape).
 */
export function negotiateFilters(
  ast: SqlStatement,
  local: SqlStatement,
  refs: BoundRef[],
  tables: Map<number, LookupTable>,
  sources: Map<number, Source>,
  optsFor: OptsFor,
  lookupOf: (t: LookupTable) => ColumnLookup,
): FragmentDraft[] {
  const candidates = topLevelCandidates(ast, local);
  const drafts: FragmentDraft[] = [];
  const dropped = new Set<Candidate>();
  for (const r of refs) {
    const source = sources.get(r.index)!;
    const table = tables.get(r.index)!;
    const all = [...tables.values()];
    const draft: FragmentDraft = { ref: r, source, table, filters: [], agreed: [], limit: null };
    for (const c of candidates.get(r.node) ?? []) {
      if (!touchesOnly(c.node, table, all)) continue;
      const answer = offer(source, draft, c.node, optsFor(source, lookupOf(table)));
      if (answer.support === 'unsupported') continue;
      draft.filters.push(clone(c.node));
      draft.agreed.push({ text: displayName(c.node), support: answer.support, why: answer.why });
      if (answer.support === 'exact') dropped.add(c);
    }
    drafts.push(draft);
  }
  for (const c of dropped) c.drop();
  return drafts;
}

/** The source's answer for one more conjunct on top of those it already took. */
function offer(
  source: Source,
  draft: FragmentDraft,
  cj: Expr,
  opts: Parameters<typeof compileChecked>[2],
): { support: FilterSupport; why?: string } {
  const declared = source.capabilities.filters;
  if (
    declared === 'none' ||
    hasSubquery(cj) ||
    containsAggregate(cj) ||
    containsWindow(cj) ||
    columnRefs(cj).length === 0
  )
    return { support: 'unsupported' };
  try {
    // Conjuncts that compile alone compile together: each is asked on its own.
    const { approximations } = compileChecked(
      fragmentAst(draft.ref, ['*'], [cj], null),
      source.dialect!,
      opts,
    );
    if (approximations.length) return { support: 'inexact', why: approximations.join('; ') };
  } catch (e) {
    if (e instanceof UnsupportedError) return { support: 'unsupported' };
    throw e;
  }
  if (declared === 'inexact') return { support: 'inexact', why: `${source.engine} sources filter inexactly` };
  return { support: 'exact' };
}

/**
 * The conjuncts that may filter each top-level FROM item (conjuncts.ts); a set operation's
 * members are offered nothing.
 */
function topLevelCandidates(ast: SqlStatement, local: SqlStatement): Map<FromItem, Candidate[]> {
  if (ast.type !== 'select' || local.type !== 'select' || ast._next || !Array.isArray(ast.from))
    return new Map();
  return candidateConjuncts(ast, local);
}

/**
 * LIMIT for the only fragment of a statement, when the fragment's rows are the statement's
 * rows: a plain SELECT of one table, every WHERE conjunct pushed exactly, nothing that
 * groups, orders, deduplicates or windows. The count includes the offset (which stays local).
 */
export function guaranteedLimit(
  ast: SqlStatement,
  local: SqlStatement,
  draft: FragmentDraft,
  fragments: number,
): number | null {
  if (fragments !== 1 || !draft.source.capabilities.limit) return null;
  if (ast.type !== 'select' || local.type !== 'select' || ast._next || ast.with?.length) return null;
  if (!Array.isArray(ast.from) || ast.from.length !== 1 || ast.from[0] !== draft.ref.node) return null;
  if (local.where || ast.groupby?.columns?.length || ast.having || ast.distinct) return null;
  if (Array.isArray(ast.orderby) && ast.orderby.length) return null;
  let grouped = false;
  visit(ast.columns, (n) => {
    if (n.type === 'aggr_func' || n.over) grouped = true;
    return !grouped && !n.ast;
  });
  if (grouped) return null;
  const { count, offset } = limitOf(ast, 'limit');
  const n = (x: Expr | null) =>
    x?.type === 'number' && Number.isSafeInteger(Number(x.value)) ? Number(x.value) : null;
  const c = n(count);
  const o = offset ? n(offset) : 0;
  return c === null || o === null ? null : c + o;
}

/** The statement a fragment runs: its columns from its table, with its filters and limit. */
export function fragmentAst(r: BoundRef, columns: string[], where: Expr[], limit: number | null): SelectStmt {
  const cols: SelectItem[] = columns.length
    ? columns.map((c) => ({ expr: { type: 'column_ref', table: null, column: c }, as: null }))
    : [{ expr: { type: 'number', value: 1 }, as: '__row' }];
  const from: TableItem = { db: null, schema: r.schema, table: r.table, as: r.qualifier };
  return {
    with: null,
    type: 'select',
    options: null,
    distinct: null,
    columns: cols,
    from: [from],
    where: where.length ? andAll(where.map(clone)) : null,
    groupby: null,
    having: null,
    orderby: null,
    limit: limit === null ? null : { seperator: '', value: [{ type: 'number', value: limit }] },
    window: null,
  };
}
