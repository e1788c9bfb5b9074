import { queryTerms, tokenize } from './text.js';

const K1 = 1.2;
const B = 0.75;

/** One term's postings: `[slot, tf, slot, tf, ...]` in a typed array that doubles as it fills. */
interface Posting {
  data: Int32Array;
  len: number;
  /** Live chunks holding the term (dead slots stay in `data` and are skipped). */
  df: number;
}

/**
 * A BM25 index kept up to date on every insert and delete (never rebuilt per query).
 * Postings are typed arrays per term; a deleted chunk's slot is dead and skipped (its term
 * counts leave the statistics at once), and slots are not reused while the store is open, so
 * a posting never points at another chunk. Scores accumulate in one Float64Array indexed by
 * slot (no Map per query): the arms of a 100,000-chunk search touch every posting of common
 * words, and a Map of that size cost more than the scoring itself.
 */
export class KeywordIndex {
  private readonly postings = new Map<string, Posting>();
  private lengths = new Uint32Array(1024);
  private totalLength = 0;
  private docs = 0;
  private scratch = new Float64Array(0);

  add(slot: number, text: string): void {
    const tf = termCounts(text);
    let len = 0;
    for (const [term, n] of tf) {
      let p = this.postings.get(term);
      if (!p) {
        p = { data: new Int32Array(4), len: 0, df: 0 };
        this.postings.set(term, p);
      }
      if (p.len + 2 > p.data.length) {
        const grown = new Int32Array(p.data.length * 2);
        grown.set(p.data);
        p.data = grown;
      }
      p.data[p.len++] = slot;
      p.data[p.len++] = n;
      p.df++;
      len += n;
    }
    if (slot >= this.lengths.length) {
      const grown = new Uint32Array(Math.max(slot + 1, this.lengths.length * 2));
      grown.set(this.lengths);
      this.lengths = grown;
    }
    this.lengths[slot] = len;
    this.totalLength += len;
    this.docs++;
  }

  remove(slot: number, text: string): void {
    for (const term of termCounts(text).keys()) {
      const p = this.postings.get(term);
      if (!p) continue;
      if (--p.df <= 0) this.postings.delete(term);
    }
    this.totalLength -= this.lengths[slot];
    this.docs--;
  }

  /**
   * Calls `hit(slot, score)` once per slot that holds a term of `query` and is accepted by
   * `keep` (a bitmap over slots: live and passing the filter). Stopwords of the question do
   * not score (`queryTerms`).
   */
  score(query: string, keep: Uint8Array, hit: (slot: number, score: number) => void): void {
    if (this.docs === 0) return;
    const avg = this.totalLength / this.docs;
    if (this.scratch.length < keep.length) this.scratch = new Float64Array(keep.length);
    const acc = this.scratch;
    const touched: number[] = [];
    const lengths = this.lengths;
    for (const term of queryTerms(query)) {
      const p = this.postings.get(term);
      if (!p || p.df <= 0) continue;
      const idf = Math.log(1 + (this.docs - p.df + 0.5) / (p.df + 0.5));
      const data = p.data;
      for (let i = 0; i < p.len; i += 2) {
        const slot = data[i];
        if (keep[slot] !== 1) continue;
        const tf = data[i + 1];
        const s = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[slot]) / avg));
        if (acc[slot] === 0) touched.push(slot);
        acc[slot] += s;
      }
    }
    for (const slot of touched) {
      hit(slot, acc[slot]);
      acc[slot] = 0;
    }
  }
}

/** Each word of `text` with its count (the keyword index's and the PostgreSQL store's postings). */
export function termCounts(text: string): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of tokenize(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}
