import type { ConditionTest } from '../filters.js';
import type { EmbeddedStore } from './embedded.js';

/**
 * The embedded store's scans: a filter is a bitmap over slots built first, then each arm
 * scores kept slots only, so the top k is taken among matching chunks (a filter never empties
 * it). Exact: every kept chunk is scored, no approximate index.
 */

/**
 * The bitmap of slots a search may return: live chunks whose fields pass every test. Built
 * and used without an await in between, so no insert or delete lands while it is read.
 */
export function filterMask(store: EmbeddedStore, tests: ConditionTest[]): Uint8Array {
  const mask = store.liveBitmap();
  for (const t of tests) {
    if ('row' in t) {
      // A condition over several columns (OR): tested slot by slot.
      for (let s = 0; s < mask.length; s++)
        if (mask[s] === 1 && !t.row((col) => fieldOf(store, s, col))) mask[s] = 0;
      continue;
    }
    const { column: col, test } = t;
    if (col === 'id' || col === 'chunk_id' || col === 'chunk_content') {
      for (let s = 0; s < mask.length; s++) if (mask[s] === 1 && !test(fieldOf(store, s, col))) mask[s] = 0;
    } else store.filterMetadata(mask, col, test);
  }
  return mask;
}

/** A slot's value of a chunk column or a metadata column (null when the document has none). */
function fieldOf(store: EmbeddedStore, s: number, col: string): unknown {
  if (col === 'id') return store.docOf(s).id;
  if (col === 'chunk_id') return store.chunkIdOf(s);
  if (col === 'chunk_content') return store.contentOf(s);
  return store.docOf(s).metadata[col] ?? null;
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

/** BM25 of every kept slot holding a word of `query`, the k best. */
export function keywordTop(
  store: EmbeddedStore,
  query: string,
  keep: Uint8Array,
  k: number,
): [number, number][] {
  const top = new TopK(k);
  store.keywords.score(query, keep, (slot, s) => top.offer(slot, s));
  return top.sorted();
}

export function dot(store: EmbeddedStore, slot: number, q: Float32Array): number {
  const v = store.vectorOf(slot);
  let s = 0;
  for (let j = 0; j < v.length; j++) s += v[j] * q[j];
  return s;
}

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
