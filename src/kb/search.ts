import type { KbSearch } from '../sql/kb-port.js';
import type { ResolvedCondition } from './filters.js';
import type { ChunkRow, KbStore, Scored } from './store/types.js';

/** A search whose conditions name the KB's columns and carry how each compares (resolveConditions). */
export type ResolvedSearch = Omit<KbSearch, 'filters'> & { filters: ResolvedCondition[] };

/** Hits of a search without LIMIT or relevance threshold (the planner enforces `kb.max_results`). */
export const DEFAULT_K = 10;
/** Weight of the vector arm in hybrid search without hybrid_search_alpha. */
const DEFAULT_ALPHA = 0.5;

export interface Hit extends ChunkRow {
  distance: number | null;
  relevance: number | null;
}

export type SearchMode = 'vector' | 'keyword' | 'hybrid';

/**
 * Relevance is a fixed function of a hit's own score, never of the other hits of the query,
 * so `relevance >= x` means the same from one question to the next:
 * - vector arm: the cosine similarity, negatives as 0 (`vectorRelevance`);
 * - keyword arm: BM25 saturated by a corpus-level constant (`keywordRelevance`);
 * - hybrid: alpha × the first + (1 − alpha) × the second.
 * Each is monotonic in its score, so ranking within an arm is unchanged.
 */
export function vectorRelevance(sim: number): number {
  return clamp(sim);
}

/**
 * BM25 → [0,1): `bm25 / (bm25 + c)`, with `c` the BM25 of one occurrence, in a chunk of
 * average length, of a word held by √N of the N chunks (`keywordScale`). So 0.5 is "as much
 * evidence as one moderately specific word"; one word found in a single chunk is about 0.65,
 * two such words about 0.8, and common words stay near 0 (a word in 80% of the chunks: about
 * 0.05 on 2,000 chunks). It depends on the corpus size only (idf grows with log N, and so
 * does c), not on the question or its best hit. On the labelled set of test/integration/kb,
 * hybrid recall@10 / MRR@10 are 0.977 / 0.937, as with the former division by the best hit,
 * and stay so with c doubled or quadrupled; c halved gives MRR 0.935, quartered 0.925 (a
 * saturation that comes too early flattens the difference between strong keyword matches).
 */
export function keywordRelevance(bm25: number, scale: number): number {
  return bm25 > 0 ? bm25 / (bm25 + scale) : 0;
}

/** The `c` of `keywordRelevance` for a corpus of `chunks` chunks (BM25's own idf at df = √N). */
export function keywordScale(chunks: number): number {
  const n = Math.max(1, chunks);
  const df = Math.sqrt(n);
  return Math.max(0.1, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
}

/** Candidates each arm contributes to a hybrid fusion for a top `k`: 5x for small k, k + 1,000 past 250. */
export function hybridDepth(k: number): number {
  return Math.max(50, k + Math.min(4 * k, 1000));
}

/** Candidates a reranking model reorders for a top `k`: 50, or 5x the limit. */
export function rerankDepth(k: number): number {
  return Math.max(50, 5 * k);
}

/** The number of hits a search asks for: its LIMIT, else the default (no silent cap here). */
export function topK(req: KbSearch): number {
  return Math.max(0, req.limit ?? DEFAULT_K);
}

/**
 * Rank a store's chunks for one question, best first, the relevance threshold applied.
 * `req.filters` (resolved by `resolveConditions`) are applied inside each arm's scan by the
 * store, so the top k is taken among matching chunks only (a filter never empties a top-k).
 */
export async function rank(
  store: KbStore,
  req: ResolvedSearch,
  queryVector: Float32Array | null,
  mode: SearchMode,
): Promise<Hit[]> {
  return aboveThreshold(await candidates(store, req, queryVector, mode, topK(req)), req.minRelevance);
}

export function aboveThreshold(hits: Hit[], min: number | null): Hit[] {
  return min === null ? hits : hits.filter((h) => (h.relevance ?? 0) >= min);
}

/**
 * The `k` best chunks for one question in `mode`, best first, no threshold applied. A
 * question vector of zeros (a question of stopwords alone, with the builtin embedder) has
 * no vector hits.
 */
export async function candidates(
  store: KbStore,
  req: ResolvedSearch,
  queryVector: Float32Array | null,
  mode: SearchMode,
  k: number,
): Promise<Hit[]> {
  if (k <= 0) return [];
  const vector = queryVector && !isZero(queryVector) ? queryVector : null;
  const base = { filters: req.filters, query: req.query, vector };
  if (mode === 'vector') {
    if (!vector) return [];
    const arms = await store.arms({ ...base, vectorK: k, keywordK: 0 });
    return arms.vector.map((s) => hit(s, 1 - s.sim!, vectorRelevance(s.sim!)));
  }
  if (mode === 'keyword') {
    const [arms, counts] = await Promise.all([
      store.arms({ ...base, vector: null, vectorK: 0, keywordK: k }),
      store.counts(),
    ]);
    const scale = keywordScale(counts.chunks);
    return arms.keyword.map((s) => hit(s, null, keywordRelevance(s.bm25!, scale)));
  }
  const depth = hybridDepth(k);
  const [arms, counts] = await Promise.all([
    store.arms({ ...base, vectorK: vector ? depth : 0, keywordK: depth }),
    store.counts(),
  ]);
  return fuse(arms.vector, arms.keyword, req.alpha ?? DEFAULT_ALPHA, keywordScale(counts.chunks), k);
}

/** Written out, not `{ ...row, distance, relevance }`: keys added after a spread cost V8 about 1.6 us an object. */
const hit = (s: Scored, distance: number | null, relevance: number | null): Hit => ({
  id: s.id,
  chunkId: s.chunkId,
  content: s.content,
  metadata: s.metadata,
  distance,
  relevance,
});

/**
 * Hybrid relevance: `alpha` × vector relevance + (1 − alpha) × keyword relevance, over the
 * union of both arms' candidates. Raw scores, not ranks: an arm that cannot tell documents
 * apart (every cosine about the same, or no query word in any chunk) adds about the same to
 * every candidate and leaves the order to the other arm, where rank fusion would let its
 * noise push the answer down (measured on the labelled set of test/integration/kb: RRF fell
 * below BM25 alone on identifier and keyword questions). Ties keep the vector arm's order,
 * then the keyword arm's.
 */
function fuse(vec: Scored[], kw: Scored[], alpha: number, scale: number, k: number): Hit[] {
  const byChunk = new Map<string, { s: Scored; bm25: number; order: number }>();
  for (const s of vec) byChunk.set(s.chunkId, { s, bm25: 0, order: byChunk.size });
  for (const s of kw) {
    const seen = byChunk.get(s.chunkId);
    if (seen) seen.bm25 = s.bm25 ?? 0;
    else byChunk.set(s.chunkId, { s, bm25: s.bm25 ?? 0, order: byChunk.size });
  }
  const out = [...byChunk.values()].map(({ s, bm25, order }) => {
    const sim = s.sim ?? 0;
    const r = alpha * vectorRelevance(sim) + (1 - alpha) * keywordRelevance(bm25, scale);
    return { s, sim: s.sim, order, r };
  });
  out.sort((a, b) => b.r - a.r || a.order - b.order);
  return out.slice(0, k).map(({ s, sim, r }) => hit(s, sim === null ? null : 1 - sim, clamp(r)));
}

function isZero(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}

const clamp = (x: number) => Math.min(1, Math.max(0, x));
