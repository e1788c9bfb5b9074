import { ErrorCode, SqlError } from '../core/errors.js';
import type { CanonicalValue } from '../core/types.js';
import type { KbFilter, KbSearch } from '../sql/kb-port.js';
import type { EmbeddedStore } from './store/embedded.js';

export const DEFAULT_K = 10;
export const MAX_K = 100;
/** Weight of the vector arm in hybrid search without hybrid_search_alpha. */
const DEFAULT_ALPHA = 0.5;

export interface Hit {
  slot: number;
  distance: number | null;
  relevance: number | null;
}

export type SearchMode = 'vector' | 'keyword' | 'hybrid';

/**
 * Rank a store's chunks for one question. `keep` is a bitmap over slots (live and passing
 * the metadata filter, see `filterMask`), applied inside each arm's scan, so the top k is
 * taken among matching chunks only (a filter never empties a top-k). Vector arm: exact
 * cosine over every kept chunk (no approximate index: results equal a brute-force scan).
 * Keyword arm: BM25. Hybrid: reciprocal rank fusion of the two candidate lists, or, with
 * `alpha`, see `fuse`; relevance is always in [0,1] and rows come best first.
 */
export function rank(
  store: EmbeddedStore,
  req: KbSearch,
  queryVector: Float32Array | null,
  keep: Uint8Array,
  mode: SearchMode,
): Hit[] {
  const k = Math.min(Math.max(1, req.limit ?? DEFAULT_K), MAX_K);
  let hits: Hit[];
  if (mode === 'vector') {
    hits = vectorTop(store, queryVector!, keep, k).map(([slot, sim]) => ({
      slot,
      distance: 1 - sim,
      relevance: clamp(sim),
    }));
  } else if (mode === 'keyword') {
    const top = keywordTop(store, req.query!, keep, k);
    const max = top[0]?.[1] ?? 1;
    hits = top.map(([slot, s]) => ({ slot, distance: null, relevance: clamp(s / max) }));
  } else {
    const depth = Math.max(k * 5, 50);
    const vec = vectorTop(store, queryVector!, keep, depth);
    const kw = keywordTop(store, req.query!, keep, depth);
    hits = fuse(store, vec, kw, queryVector!, req.alpha ?? DEFAULT_ALPHA, k);
  }
  if (req.minRelevance !== null) hits = hits.filter((h) => (h.relevance ?? 0) >= req.minRelevance!);
  return hits;
}

/** Cosine (dot product of unit vectors) of every kept slot, the k best kept. */
export function vectorTop(
  store: EmbeddedStore,
  q: Float32Array,
  keep: Uint8Array,
  k: number,
): [number, number][] {
  const dim = store.dimension;
  const v = store.vectorsView();
  const n = Math.min(store.slotCount(), keep.length);
  const top = new TopK(k);
  for (let slot = 0; slot < n; slot++) {
    if (keep[slot] !== 1) continue;
    let s = 0;
    const o = slot * dim;
    for (let j = 0; j < dim; j++) s += v[o + j] * q[j];
    top.offer(slot, s);
  }
  return top.sorted();
}

function keywordTop(store: EmbeddedStore, query: string, keep: Uint8Array, k: number): [number, number][] {
  const top = new TopK(k);
  store.keywords.score(query, keep, (slot, s) => top.offer(slot, s));
  return top.sorted();
}

function dot(store: EmbeddedStore, slot: number, q: Float32Array): number {
  const v = store.vectorOf(slot);
  let s = 0;
  for (let j = 0; j < v.length; j++) s += v[j] * q[j];
  return s;
}

/**
 * Hybrid relevance: `alpha` × cosine + (1 − alpha) × BM25 / the best BM25, over the union of
 * both arms' candidates. Raw scores, not ranks: an arm that cannot tell documents apart
 * (every cosine about the same, or no query word in any chunk) adds about the same to every
 * candidate and leaves the order to the other arm, where rank fusion would let its noise
 * push the answer down (measured on the labelled set of test/integration/kb: RRF fell below
 * BM25 alone on identifier and keyword questions).
 */
function fuse(
  store: EmbeddedStore,
  vec: [number, number][],
  kw: [number, number][],
  q: Float32Array,
  alpha: number,
  k: number,
): Hit[] {
  const sims = new Map(vec);
  const bm25 = new Map(kw);
  const best = kw[0]?.[1] ?? 0;
  const out: [number, number, number][] = [];
  for (const slot of new Set([...sims.keys(), ...bm25.keys()])) {
    const sim = sims.get(slot) ?? dot(store, slot, q);
    const b = best > 0 ? (bm25.get(slot) ?? 0) / best : 0;
    out.push([slot, alpha * clamp(sim) + (1 - alpha) * b, sim]);
  }
  out.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return out.slice(0, k).map(([slot, r, sim]) => ({ slot, distance: 1 - sim, relevance: clamp(r) }));
}

const clamp = (x: number) => Math.min(1, Math.max(0, x));

/** The k best (slot, score), ties broken by slot so results are deterministic. */
class TopK {
  private readonly items: [number, number][] = [];
  private floor = Number.NEGATIVE_INFINITY;
  constructor(private readonly k: number) {}
  offer(slot: number, score: number): void {
    if (this.items.length >= this.k && score <= this.floor) return;
    this.items.push([slot, score]);
    if (this.items.length > this.k * 2) this.trim();
  }
  private trim(): void {
    this.items.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    this.items.length = this.k;
    this.floor = this.items[this.k - 1][1];
  }
  sorted(): [number, number][] {
    this.items.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    if (this.items.length > this.k) this.items.length = this.k;
    return this.items;
  }
}

export interface FilterTest {
  column: string;
  test: (v: unknown) => boolean;
}

/** The filters as tests on a column; unknown columns are 1054 naming them. */
export function compileFilters(kb: string, filters: KbFilter[], metadataColumns: string[]): FilterTest[] {
  const known = new Map<string, string>();
  for (const c of ['id', 'chunk_id', 'chunk_content', ...metadataColumns]) known.set(c.toLowerCase(), c);
  return filters.map((f) => {
    const col = known.get(f.column.toLowerCase());
    if (!col)
      throw new SqlError(
        ErrorCode.UNKNOWN_COLUMN,
        `Unknown column '${f.column}' in knowledge base '${kb}': filter on id, chunk_id, chunk_content${metadataColumns.length ? ` or a metadata column (${metadataColumns.join(', ')})` : ' (it has no metadata columns)'}`,
      );
    return { column: col, test: predicate(f) };
  });
}

/**
 * The bitmap of slots a search may return: live chunks whose fields pass every test. Built
 * and used without an await in between, so no insert or delete lands while it is read.
 */
export function filterMask(store: EmbeddedStore, tests: FilterTest[]): Uint8Array {
  const mask = store.liveBitmap();
  for (const { column: col, test } of tests) {
    if (col === 'id' || col === 'chunk_id' || col === 'chunk_content') {
      const field =
        col === 'id'
          ? (s: number) => store.docOf(s).id
          : col === 'chunk_id'
            ? (s: number) => store.chunkIdOf(s)
            : (s: number) => store.contentOf(s);
      for (let s = 0; s < mask.length; s++) if (mask[s] === 1 && !test(field(s))) mask[s] = 0;
    } else store.filterMetadata(mask, col, test);
  }
  return mask;
}

function predicate(f: KbFilter): (v: unknown) => boolean {
  const cmp = (a: unknown, b: CanonicalValue): number | null => {
    if (a === null || a === undefined) return null;
    if (typeof b === 'number' || typeof b === 'boolean') {
      const x = typeof a === 'boolean' ? Number(a) : Number(a);
      const y = Number(b);
      return Number.isNaN(x) ? null : x - y;
    }
    // Text compares as MySQL's default collation does: case-insensitively.
    return String(a).toLowerCase().localeCompare(String(b).toLowerCase());
  };
  const list = Array.isArray(f.value) ? f.value : [f.value];
  // Equality on text is the common filter and runs once per chunk: no collation call.
  if ((f.op === '=' || f.op === 'IN') && list.every((x) => typeof x === 'string')) {
    const wanted = new Set(list.map((x) => String(x).toLowerCase()));
    return (v) => v !== null && v !== undefined && wanted.has(String(v).toLowerCase());
  }
  switch (f.op) {
    case '=':
      return (v) => cmp(v, list[0]) === 0;
    case '!=':
      return (v) => {
        const c = cmp(v, list[0]);
        return c !== null && c !== 0;
      };
    case '<':
      return (v) => (cmp(v, list[0]) ?? 0) < 0 && cmp(v, list[0]) !== null;
    case '<=':
      return (v) => cmp(v, list[0]) !== null && cmp(v, list[0])! <= 0;
    case '>':
      return (v) => cmp(v, list[0]) !== null && cmp(v, list[0])! > 0;
    case '>=':
      return (v) => cmp(v, list[0]) !== null && cmp(v, list[0])! >= 0;
    case 'IN':
      return (v) => list.some((x) => cmp(v, x) === 0);
    case 'NOT IN':
      return (v) => v !== null && v !== undefined && !list.some((x) => cmp(v, x) === 0);
    case 'LIKE':
    case 'NOT LIKE': {
      const re = likeRegex(String(list[0]));
      const neg = f.op === 'NOT LIKE';
      return (v) => v !== null && v !== undefined && re.test(String(v)) !== neg;
    }
  }
}

function likeRegex(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) out += escapeRe(pattern[++i]);
    else if (c === '%') out += '[\\s\\S]*';
    else if (c === '_') out += '[\\s\\S]';
    else out += escapeRe(c);
  }
  return new RegExp(`^${out}$`, 'i');
}

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
