import { tokenize } from './text.js';

const K1 = 1.2;
const B = 0.75;

/**
 * A BM25 index kept up to date on every insert and delete (never rebuilt per query).
 * Postings are flat arrays `[slot, tf, slot, tf, ...]` per term; a deleted chunk's slot is
 * dead and skipped (its term counts leave the statistics at once), and slots are not
 * reused while the store is open, so a posting never points at another chunk.
 */
export class KeywordIndex {
  private readonly postings = new Map<string, number[]>();
  private readonly df = new Map<string, number>();
  private lengths = new Uint32Array(1024);
  private totalLength = 0;
  private docs = 0;

  add(slot: number, text: string): void {
    const tf = termCounts(text);
    let len = 0;
    for (const [term, n] of tf) {
      let p = this.postings.get(term);
      if (!p) {
        p = [];
        this.postings.set(term, p);
      }
      p.push(slot, n);
      this.df.set(term, (this.df.get(term) ?? 0) + 1);
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
      const d = (this.df.get(term) ?? 1) - 1;
      if (d <= 0) {
        this.df.delete(term);
        this.postings.delete(term);
      } else this.df.set(term, d);
    }
    this.totalLength -= this.lengths[slot];
    this.docs--;
  }

  /** BM25 scores of live slots accepted by `keep` for the terms of `query`. */
  score(query: string, live: (slot: number) => boolean): Map<number, number> {
    const scores = new Map<number, number>();
    if (this.docs === 0) return scores;
    const avg = this.totalLength / this.docs;
    for (const term of new Set(tokenize(query))) {
      const p = this.postings.get(term);
      const df = this.df.get(term);
      if (!p || !df) continue;
      const idf = Math.log(1 + (this.docs - df + 0.5) / (df + 0.5));
      for (let i = 0; i < p.length; i += 2) {
        const slot = p[i];
        if (!live(slot)) continue;
        const tf = p[i + 1];
        const s = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.lengths[slot]) / avg));
        scores.set(slot, (scores.get(slot) ?? 0) + s);
      }
    }
    return scores;
  }
}

function termCounts(text: string): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of tokenize(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}
