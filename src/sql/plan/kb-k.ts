/**
 * How many hits a knowledge-base search fetches (Trino's applyLimit / applyTopN are the
 * model): the block's LIMIT becomes k only where the plan guarantees the search's rows are
 * the block's rows; elsewhere the answer must be what it would be if the search returned
 * every hit in relevance order, so the search fetches every hit (with a threshold, or
 * where completeness cannot be checked) or grows in batches until the block has its rows.
 * A pure function of what the planner saw, so it is tested on its own.
 */
import { SqlError } from '../../core/errors.js';

export const DEFAULT_K = 10;
/** Each batch asks for this many times the previous one. */
export const BATCH_GROWTH = 4;

export interface KShape {
  /** The KB is the only item of its block, which is a plain SELECT (no set operation). */
  alone: boolean;
  /** No condition of the block stays local (every conjunct was pushed exactly). */
  allExact: boolean;
  /** GROUP BY, an aggregate, DISTINCT, a window or HAVING in the block. */
  grouped: boolean;
  /** ORDER BY absent, or `relevance DESC` / `distance ASC` of this KB. */
  rankOrder: boolean;
  /** The block's LIMIT count + OFFSET, when both are literal numbers; null: no LIMIT. */
  limit: number | null;
  /** The block's LIMIT count alone (the rows it yields at most). */
  count: number | null;
  /** A search (`content = ...`); false: the KB is read like a table, whole unless its LIMIT is guaranteed. */
  search: boolean;
  /** The block is the statement itself (not nested, not a set operation's member). */
  topLevel: boolean;
  /** The KB's rows are each at least one row of the block, in their order (not an outer join's null side, the only KB of the block). */
  rowsFollowHits: boolean;
  /** `relevance >= x`. */
  threshold: number | null;
  /** kb.max_results. */
  maxResults: number;
}

export type KDecision =
  /** Fetch exactly `k` (the search's own LIMIT, or the default). */
  | { kind: 'k'; k: number; why: string }
  /** Fetch every hit (at most maxResults; more is 1210). */
  | { kind: 'all'; why: string }
  /** Fetch `first`, then BATCH_GROWTH times more, until the block yields `want` rows or hits run out. */
  | { kind: 'batches'; first: number; want: number; why: string };

export function decideK(s: KShape, kb: string): KDecision {
  const d = decide(s, kb);
  // A KB read without a question is a table: no default k, every row it holds.
  if (!s.search && d.kind === 'k' && d.why.endsWith('(default)'))
    return { kind: 'all', why: 'every row (no question)' };
  return d;
}

function decide(s: KShape, kb: string): KDecision {
  if (s.limit !== null && s.limit > s.maxResults) throw tooMany(kb, `LIMIT ${s.limit}`, s.maxResults);
  const threshold = s.threshold === null ? '' : ` with relevance >= ${s.threshold}`;
  if (s.alone && s.allExact && !s.grouped && s.rankOrder) {
    if (s.limit !== null) return { kind: 'k', k: s.limit, why: `k ${s.limit} (LIMIT of the search's block)` };
    if (s.threshold !== null) return { kind: 'all', why: `every hit${threshold}` };
    return { kind: 'k', k: DEFAULT_K, why: `k ${DEFAULT_K} (default)` };
  }
  if (s.threshold !== null) return { kind: 'all', why: `every hit${threshold}` };
  if (s.limit === null) return { kind: 'k', k: DEFAULT_K, why: `k ${DEFAULT_K} (default)` };
  if (s.topLevel && !s.grouped && s.rankOrder && s.rowsFollowHits && s.count !== null && s.count > 0)
    return {
      kind: 'batches',
      first: s.limit,
      want: s.count,
      why: `growing batches from ${s.limit} (LIMIT of a ${s.alone ? 'filtered search' : 'join'})`,
    };
  return { kind: 'all', why: `every hit (the LIMIT of the block does not bound the search)` };
}

/** 1210 naming kb.max_results. */
export function tooMany(kb: string, what: string, max: number): SqlError {
  return new SqlError(
    1210,
    `Knowledge base '${kb}': ${what} exceeds kb.max_results (${max}); raise kb.max_results or narrow the search`,
  );
}
