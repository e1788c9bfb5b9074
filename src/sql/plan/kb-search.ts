/**
 * A knowledge-base search as a relation of its own SELECT block (the block whose FROM/JOIN
 * holds the KB: the statement, a derived table, a CTE body, an IN-subquery, a UNION branch).
 * From that block only:
 *
 *  - the search's parameters leave the statement: `content = 'q'`, `content IN (...)` or
 *    an OR of them (one search per question), `relevance >= x` / `relevance_threshold`,
 *    `hybrid_search`, `hybrid_search_alpha`, `reranking`; `content LIKE` is a condition on
 *    `chunk_content`; any other use of these names is 1235 naming the KB;
 *  - the conjuncts that may filter the KB (conjuncts.ts: the same outer-join rules as source
 *    fragments) are offered to it as condition trees: exact ones leave the block, inexact
 *    ones stay and are re-checked, unsupported ones stay;
 *  - k comes from the block's shape (kb-k.ts), and a block without ORDER BY returns the
 *    search's rows in relevance order (by the loaded table's rowid) where that is legal.
 */
import { ErrorCode, SqlError } from '../../core/errors.js';
import type { CanonicalValue, ColumnInfo } from '../../core/types.js';
import { containsAggregate, containsWindow } from '../ast/aggregates.js';
import {
  type ColumnRef,
  type Expr,
  type FromItem,
  limitOf,
  literalValue,
  type SelectStmt,
  type SqlStatement,
} from '../ast/nodes.js';
import { andAll, clone, columnRefs, conjuncts, flatFrom, hasSubquery, nameOf, visit } from '../ast/walk.js';
import { displayName } from '../dialects/display.js';
import { kindOfMysqlType } from '../dialects/types.js';
import type { KbCondition, KbFilterOp, KbSearch } from '../kb-port.js';
import type { BoundRef } from './bind.js';
import { candidateConjuncts, nullSideItems } from './conjuncts.js';
import type { FilterSupport } from './fragments.js';
import { decideK, type KDecision } from './kb-k.js';

/** Names that steer the search and are not columns of its rows (MindsDB's names). */
const PARAMETERS = new Set([
  'content',
  'relevance_threshold',
  'hybrid_search',
  'hybrid_search_alpha',
  'reranking',
]);
/** Columns of every search's rows besides the metadata columns. */
const CHUNK_COLUMNS = new Set(['id', 'chunk_id', 'chunk_content']);

export interface KbAsk {
  /** The relation's columns (KnowledgeBases.columns). */
  columns: ColumnInfo[];
  /** The KB's answer for one condition (KnowledgeBases.filterSupport). */
  support: (c: KbCondition) => FilterSupport;
  maxResults: number;
  /** Columns of another FROM item of the block, when the planner knows them; null when it does not. */
  columnsOf: (item: FromItem) => ColumnInfo[] | null;
}

/** What the plan keeps of one search: the request, its questions, how many hits, and for EXPLAIN what was pushed. */
export interface KbPlanned {
  search: KbSearch;
  /** `content IN (...)`: one search per question, each chunk once with its best relevance; [] without a question. */
  queries: string[];
  k: KDecision;
  pushed: { text: string; support: Exclude<FilterSupport, 'unsupported'> }[];
  /** Conditions on the KB alone that it does not evaluate exactly: applied to its hits before k counts them. */
  prefilter: Expr[];
  /** Index (in visit order of the statement's SELECT blocks) of the block to order by relevance, or null. */
  orderBlock: number | null;
}

/** Plan one KB's search; conjuncts it takes exactly are removed from `ast`. */
export function planKbSearch(ast: SqlStatement, ref: BoundRef, refs: BoundRef[], ask: KbAsk): KbPlanned {
  const search: KbSearch = {
    query: null,
    filters: [],
    minRelevance: null,
    hybrid: false,
    alpha: null,
    limit: null,
    reranking: true,
  };
  const found = blockOf(ast, ref);
  if (!found)
    throw new SqlError(ErrorCode.NOT_SUPPORTED, `Knowledge base '${ref.table}' cannot be read here`);
  const { block, setMember, index } = found;
  const items = flatFrom(block.from);
  const kbItems = refs.filter((r) => r.kind === 'kb' && items.includes(r.node));
  const alone = items.length === 1 && !setMember;
  const byLower = new Map(ask.columns.map((c) => [c.name.toLowerCase(), c]));
  const others = items.filter((i) => i !== ref.node);
  const q = ref.qualifier.toLowerCase();

  /** Whether a column reference reads this KB (a parameter name, or a column of its rows). */
  const mine = (c: ColumnRef): boolean => {
    const t = nameOf(c.table)?.toLowerCase() ?? null;
    const col = (nameOf(c.column) ?? '').toLowerCase();
    if (t !== null) return t === q;
    if (PARAMETERS.has(col)) {
      if (kbItems.length > 1)
        throw new SqlError(
          1052,
          `Column '${col}' is ambiguous: qualify it with one of the knowledge bases ${kbItems.map((r) => r.qualifier).join(', ')}`,
        );
      return true;
    }
    if (!byLower.has(col)) return false;
    if (alone) return true;
    return others.every((o) => {
      const cols = ask.columnsOf(o);
      return cols !== null && !cols.some((x) => x.name.toLowerCase() === col);
    });
  };

  const queries: string[] = [];
  const parameter = (cj: Expr): 'taken' | 'kept' | null => {
    const refsIn = columnRefs(cj);
    if (refsIn.length === 0 || !refsIn.every(mine)) return null;
    const names = new Set(refsIn.map((c) => (nameOf(c.column) ?? '').toLowerCase()));
    if (names.size !== 1) return null;
    const name = [...names][0];
    if (name === 'content') {
      const list = questions(cj);
      if (list) {
        if (queries.length) throw contentError(ref, 'one content condition per search');
        queries.push(...list);
        return 'taken';
      }
      // `content LIKE`: a text filter on the chunk.
      if (
        cj.type === 'binary_expr' &&
        /^(NOT )?LIKE$/i.test(String(cj.operator)) &&
        cj.left.type === 'column_ref'
      ) {
        cj.left = { ...cj.left, column: 'chunk_content' };
        return null;
      }
      return null;
    }
    const cmp = comparison(cj);
    if (name === 'relevance' || name === 'relevance_threshold') {
      if (!cmp || typeof cmp.value !== 'number') return null;
      if (cmp.op === '>=' || (name === 'relevance_threshold' && cmp.op === '=')) {
        search.minRelevance = Math.max(search.minRelevance ?? Number.NEGATIVE_INFINITY, cmp.value);
        // On an outer join's null side a WHERE condition also drops the rows without a hit.
        return name === 'relevance' && whereOfNullSide ? 'kept' : 'taken';
      }
      if (cmp.op === '>') {
        search.minRelevance = Math.max(search.minRelevance ?? Number.NEGATIVE_INFINITY, cmp.value);
        return 'kept';
      }
      return null;
    }
    if (cmp?.op !== '=') return null;
    if (name === 'hybrid_search' || name === 'reranking') {
      const b = asBoolean(cmp.value);
      if (b === null)
        throw new SqlError(
          1210,
          `Knowledge base '${ref.table}': ${name} must be true or false, not ${JSON.stringify(cmp.value)}`,
        );
      if (name === 'hybrid_search') search.hybrid = b;
      else search.reranking = b;
      return 'taken';
    }
    if (name === 'hybrid_search_alpha') {
      if (typeof cmp.value !== 'number' || !(cmp.value >= 0 && cmp.value <= 1))
        throw new SqlError(
          1210,
          `Knowledge base '${ref.table}': hybrid_search_alpha must be a number in [0,1], not ${JSON.stringify(cmp.value)}`,
        );
      search.alpha = cmp.value;
      search.hybrid = true;
      return 'taken';
    }
    return null;
  };

  // Parameters: from the block's WHERE and the KB's own ON, whatever side of a join it is on.
  const node = ref.node as FromItem;
  const { nullSide } = nullSideItems(Array.isArray(block.from) ? block.from : []);
  let whereOfNullSide = false;
  for (const holder of [block as { where?: Expr | null; on?: Expr | null }, node as { on?: Expr | null }]) {
    const key = holder === block ? 'where' : 'on';
    whereOfNullSide = key === 'where' && nullSide.has(node);
    const list = conjuncts((holder as Record<string, Expr | null>)[key]);
    if (!list.length) continue;
    const kept = list.filter((cj) => parameter(cj) !== 'taken');
    if (kept.length !== list.length) (holder as Record<string, Expr | null>)[key] = andAll(kept);
  }
  search.query = queries[0] ?? null;

  // Conditions on the KB's rows, under the same rules as a source fragment's.
  // Those the KB does not take exactly also filter its hits locally before k is counted
  // (`prefilter`), so the search's rows do not depend on what the store can evaluate.
  const pushed: KbPlanned['pushed'] = [];
  const prefilter: Expr[] = [];
  for (const c of candidateConjuncts(block, block).get(node) ?? []) {
    const refsIn = columnRefs(c.node);
    if (refsIn.length === 0 || !refsIn.every(mine) || hasSubquery(c.node)) continue;
    const cond = toCondition(c.node, byLower, ref);
    const answer = cond ? ask.support(cond) : 'unsupported';
    if (answer !== 'exact') prefilter.push(c.node);
    if (!cond || answer === 'unsupported') continue;
    search.filters.push(cond);
    pushed.push({ text: displayName(c.node), support: answer });
    if (answer === 'exact') c.drop();
  }

  // What remains may not name a parameter.
  visit(block, (n, key) => {
    if ((n as unknown) !== block && (n.type === 'select' || n.ast || key === 'with' || key === '_next'))
      return false;
    if (n.type === 'column_ref' && mine(n as unknown as ColumnRef)) {
      const col = (nameOf((n as unknown as ColumnRef).column) ?? '').toLowerCase();
      if (PARAMETERS.has(col))
        throw new SqlError(
          ErrorCode.NOT_SUPPORTED,
          `Knowledge base '${ref.table}': '${col}' is a search parameter, not a column: write it as a condition of the block's WHERE (content = 'question', content IN (...), content LIKE '...'; ${col === 'content' ? 'the text of each hit is chunk_content' : `${col} = value`})`,
        );
    }
  });

  // Only where no outer block could own the name (a correlated subquery reads its outer columns).
  if (alone && (block as unknown) === ast) checkUnknown(block, byLower, ref);
  const grouped = isGrouped(block);
  const orderby = Array.isArray(block.orderby) ? block.orderby : [];
  const rankOrder = orderby.length === 0 || (orderby.length === 1 && rankKey(orderby[0], mine));
  const { count, offset } = setMember ? { count: null, offset: null } : limitOf(block);
  const num = (x: Expr | null) =>
    x?.type === 'number' && Number.isSafeInteger(Number(x.value)) ? Number(x.value) : null;
  const n = num(count);
  const o = offset ? num(offset) : 0;
  const limit = n === null || o === null ? null : n + o;
  const k = decideK(
    {
      alone,
      allExact: conjuncts(block.where).every((cj) => prefilter.includes(cj)),
      grouped,
      rankOrder,
      limit,
      count: n,
      topLevel: block === ast && !setMember,
      rowsFollowHits: kbItems.length === 1 && !nullSide.has(node),
      threshold: search.minRelevance,
      search: queries.length > 0,
      maxResults: ask.maxResults,
    },
    ref.table,
  );
  if (k.kind === 'k') search.limit = k.k;
  // Rows in relevance order where ORDER BY is absent and legal; ties of relevance in rank order.
  const orderable = !grouped && !setMember && !(block as { distinct?: unknown }).distinct;
  const orderBlock = orderable && rankOrder && kbItems.length === 1 ? index : null;
  return { search, queries, k, pushed, orderBlock, prefilter: prefilter.map(clone) };
}

/**
 * A KB alone in its block: a plain column it does not have, read as a select item or compared
 * in WHERE, is 1054 naming the KB (not the local engine's binder message).
 */
function checkUnknown(block: SelectStmt, columns: Map<string, ColumnInfo>, ref: BoundRef): void {
  const aliases = new Set((block.columns ?? []).map((c) => String(c.as ?? '').toLowerCase()));
  const check = (e: Expr | null | undefined) => {
    if (e?.type !== 'column_ref' || nameOf((e as ColumnRef).table)) return;
    const col = nameOf((e as ColumnRef).column) ?? '';
    if (col === '*' || columns.has(col.toLowerCase()) || aliases.has(col.toLowerCase())) return;
    throw new SqlError(
      ErrorCode.UNKNOWN_COLUMN,
      `Unknown column '${col}' in knowledge base '${ref.table}': its columns are ${[...columns.values()].map((c) => c.name).join(', ')}`,
    );
  };
  for (const c of block.columns ?? []) check(c.expr);
  for (const cj of conjuncts(block.where))
    if (cj.type === 'binary_expr') {
      check(cj.left);
      check(cj.right);
    }
}

/** The SELECT block whose FROM list holds the KB item, its index among the statement's blocks, and whether it is a set operation's member. */
function blockOf(
  ast: SqlStatement,
  ref: BoundRef,
): { block: SelectStmt; setMember: boolean; index: number } | null {
  let out: { block: SelectStmt; setMember: boolean; index: number } | null = null;
  const blocks = selectBlocks(ast);
  blocks.forEach((b, index) => {
    if (!out && flatFrom(b.block.from).includes(ref.node)) out = { ...b, index };
  });
  return out;
}

/** Every SELECT block of a statement in visit order (the same order in a clone), and whether each is a set operation's member. */
export function selectBlocks(ast: unknown): { block: SelectStmt; setMember: boolean }[] {
  const out: { block: SelectStmt; setMember: boolean }[] = [];
  visit(ast, (n, key) => {
    if (n.type === 'select')
      out.push({ block: n as unknown as SelectStmt, setMember: key === '_next' || !!n._next });
  });
  return out;
}

/** Order a block by its KB's rank (the loaded table's rowid), after ORDER BY relevance when given. */
export function orderByRank(block: SelectStmt, qualifier: string): void {
  const key = { expr: { type: 'column_ref', table: qualifier, column: 'rowid' } as Expr, type: 'ASC' };
  block.orderby = [...(Array.isArray(block.orderby) ? block.orderby : []), key] as SelectStmt['orderby'];
}

function isGrouped(block: SelectStmt): boolean {
  if (block.groupby?.columns?.length || block.having || (block as { distinct?: unknown }).distinct)
    return true;
  let grouped = false;
  visit([block.columns, block.orderby], (n) => {
    if (n.type === 'aggr_func' || n.over || containsAggregate(n) || containsWindow(n)) grouped = true;
    return !grouped && !n.ast && n.type !== 'select';
  });
  return grouped;
}

/** `relevance DESC` or `distance ASC` of this KB. */
function rankKey(o: { expr: Expr; type?: string | null }, mine: (c: ColumnRef) => boolean): boolean {
  if (o.expr?.type !== 'column_ref' || !mine(o.expr as ColumnRef)) return false;
  const col = (nameOf((o.expr as ColumnRef).column) ?? '').toLowerCase();
  const dir = String(o.type ?? 'ASC').toUpperCase();
  return (col === 'relevance' && dir === 'DESC') || (col === 'distance' && dir === 'ASC');
}

/** The questions of `content = 'q'`, `content IN (...)` or an OR of them; null for anything else. */
function questions(e: Expr): string[] | null {
  if (e.type !== 'binary_expr') return null;
  const op = String(e.operator).toUpperCase();
  if (op === 'OR') {
    const a = questions(e.left);
    const b = a && questions(e.right);
    return a && b ? [...new Set([...a, ...b])] : null;
  }
  const cmp = comparison(e);
  if (cmp?.op === '=' && typeof cmp.value === 'string') return [cmp.value];
  if (op === 'IN' && e.left.type === 'column_ref') {
    const list = listOf(e.right);
    if (list?.length && list.every((x) => typeof x === 'string')) return [...new Set(list as string[])];
  }
  return null;
}

const FLIP: Record<string, string> = {
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
  '=': '=',
  '!=': '!=',
  '<>': '<>',
};

/** `column op literal` (either way round), or null. */
function comparison(e: Expr): { column: ColumnRef; op: string; value: CanonicalValue } | null {
  if (e.type !== 'binary_expr') return null;
  const op = String(e.operator).toUpperCase();
  if (FLIP[op] === undefined) return null;
  const norm = (x: string) => (x === '<>' ? '!=' : x);
  if (e.left.type === 'column_ref') {
    const v = literalOf(e.right);
    if (v !== undefined) return { column: e.left as ColumnRef, op: norm(op), value: v };
  }
  if (e.right.type === 'column_ref') {
    const v = literalOf(e.left);
    if (v !== undefined) return { column: e.right as ColumnRef, op: norm(FLIP[op]), value: v };
  }
  return null;
}

/** A literal's value; an exact decimal the parser kept as `CAST('...' AS DECIMAL)` is its number. */
function literalOf(e: Expr | undefined): CanonicalValue | undefined {
  const c = e as { type?: string; expr?: Expr; target?: { dataType?: string }[] } | undefined;
  if (c?.type === 'cast' && c.expr?.type === 'string' && /^DECIMAL$/i.test(String(c.target?.[0]?.dataType))) {
    const n = Number(c.expr.value);
    return Number.isFinite(n) ? n : undefined;
  }
  return literalValue(e);
}

function asBoolean(v: CanonicalValue): boolean | null {
  if (v === true || v === 1) return true;
  if (v === false || v === 0) return false;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  return null;
}

/**
 * A conjunct on the KB's rows as a condition tree (NOT folded into the leaves), or null when
 * it is not one (then it stays local). A literal is taken as the column's type: a numeric
 * string against a number column is the number, as MySQL compares them.
 */
export function toCondition(
  e: Expr,
  columns: Map<string, ColumnInfo>,
  ref: BoundRef,
  negate = false,
): KbCondition | null {
  if (e.type === 'unary_expr' && String(e.operator).toUpperCase() === 'NOT')
    return toCondition(e.expr as Expr, columns, ref, !negate);
  if (e.type !== 'binary_expr') return null;
  const op = String(e.operator).toUpperCase();
  if (op === 'AND' || op === 'OR') {
    const a = toCondition(e.left, columns, ref, negate);
    const b = a && toCondition(e.right, columns, ref, negate);
    if (!a || !b) return null;
    return (op === 'AND') !== negate ? { and: [a, b] } : { or: [a, b] };
  }
  const column = (x: Expr): ColumnInfo | null => {
    if (x?.type !== 'column_ref') return null;
    const name = (nameOf((x as ColumnRef).column) ?? '').toLowerCase();
    const c = columns.get(name);
    if (!c)
      throw new SqlError(
        ErrorCode.UNKNOWN_COLUMN,
        `Unknown column '${nameOf((x as ColumnRef).column)}' in knowledge base '${ref.table}': its columns are ${[...columns.values()].map((c) => c.name).join(', ')}`,
      );
    if (!CHUNK_COLUMNS.has(name) && (c.type === 'JSON' || name === 'distance' || name === 'relevance'))
      return null;
    return c;
  };
  const typed = (c: ColumnInfo, v: CanonicalValue): CanonicalValue | undefined => {
    if (v === null) return undefined;
    if (kindOfMysqlType(c.type) === 'number' && typeof v === 'string') {
      const n = Number(v.trim());
      return v.trim() !== '' && Number.isFinite(n) ? n : undefined;
    }
    if (typeof v === 'boolean') return v ? 1 : 0;
    return v;
  };
  if (op === 'IS' || op === 'IS NOT') {
    const c = column(e.left);
    if (!c || e.right?.type !== 'null') return null;
    const isNull = (op === 'IS') !== negate;
    return { column: c.name, op: isNull ? 'IS NULL' : 'IS NOT NULL', value: null };
  }
  if (op === 'BETWEEN' || op === 'NOT BETWEEN') {
    const c = column(e.left);
    const list = listOf(e.right);
    if (!c || !list || list.length !== 2) return null;
    const lo = typed(c, list[0]);
    const hi = typed(c, list[1]);
    if (lo === undefined || hi === undefined) return null;
    const between = (op === 'BETWEEN') !== negate;
    return { column: c.name, op: between ? 'BETWEEN' : 'NOT BETWEEN', value: [lo, hi] };
  }
  if (op === 'IN' || op === 'NOT IN') {
    const c = column(e.left);
    const list = listOf(e.right);
    if (!c || !list?.length) return null;
    const values = list.map((v) => typed(c, v));
    if (values.some((v) => v === undefined)) return null;
    const inList = (op === 'IN') !== negate;
    return { column: c.name, op: inList ? 'IN' : 'NOT IN', value: values as CanonicalValue[] };
  }
  if (op === 'LIKE' || op === 'NOT LIKE') {
    const c = column(e.left);
    const v = literalValue(e.right);
    if (!c || typeof v !== 'string' || (e as { escape?: unknown }).escape) return null;
    const like = (op === 'LIKE') !== negate;
    return { column: c.name, op: like ? 'LIKE' : 'NOT LIKE', value: v };
  }
  const cmp = comparison(e);
  if (!cmp) return null;
  const c = column(cmp.column);
  if (!c) return null;
  const v = typed(c, cmp.value);
  if (v === undefined) return null;
  const NEG: Record<string, KbFilterOp> = {
    '=': '!=',
    '!=': '=',
    '<': '>=',
    '<=': '>',
    '>': '<=',
    '>=': '<',
  };
  // NOT (a < 1) is a >= 1 only where a is not NULL; comparisons with NULL are false either way.
  return { column: c.name, op: (negate ? NEG[cmp.op] : cmp.op) as KbFilterOp, value: v };
}

function listOf(e: Expr | undefined): CanonicalValue[] | undefined {
  if (e?.type !== 'expr_list') return undefined;
  const out: CanonicalValue[] = [];
  for (const x of e.value as Expr[]) {
    const v = literalOf(x);
    if (v === undefined || v === null) return undefined;
    out.push(v);
  }
  return out;
}

function contentError(ref: BoundRef, what: string): SqlError {
  return new SqlError(
    ErrorCode.NOT_SUPPORTED,
    `Knowledge base '${ref.table}': ${what} (content = 'question', content IN ('q1', 'q2'), content LIKE '...')`,
  );
}
