import { hash32, isStopword, tokenize } from '../text.js';
import { type EmbeddingProvider, normalize } from './provider.js';

export const BUILTIN_MODEL = 'lexical-hash-v1';
export const BUILTIN_DIMENSION = 256;
export const BUILTIN_NOTE =
  'builtin: a deterministic lexical embedding (hashed words, word prefixes and word pairs); it matches words, not meanings';

/**
 * The default provider: offline, no key, deterministic. Each word, its 5-letter prefix
 * (so `refund`, `refunds`, `refunded` meet) and each adjacent word pair is hashed to a
 * signed bucket; counts are dampened (1 + log tf) and the vector is L2-normalised.
 * Similar wording scores high; synonyms do not (it matches words, not meanings).
 */
export class BuiltinEmbedder implements EmbeddingProvider {
  readonly provider = 'builtin';
  readonly model = BUILTIN_MODEL;
  constructor(readonly dimension = BUILTIN_DIMENSION) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  embedOne(text: string): Float32Array {
    const dim = this.dimension;
    const counts = new Map<number, number>();
    const add = (feature: string, w: number) => {
      const h = hash32(feature);
      const bucket = h % dim;
      const sign = h & 0x80000000 ? -1 : 1;
      counts.set(bucket, (counts.get(bucket) ?? 0) + sign * w);
    };
    let prev: string | null = null;
    for (const tok of tokenize(text)) {
      if (isStopword(tok)) {
        prev = null;
        continue;
      }
      add(tok, 1);
      if (tok.length > 5) add(`>${tok.slice(0, 5)}`, 0.5);
      if (prev) add(`${prev} ${tok}`, 0.5);
      prev = tok;
    }
    const v = new Float32Array(dim);
    for (const [b, c] of counts) v[b] = Math.sign(c) * (1 + Math.log(Math.abs(c) || 1));
    return normalize(v);
  }
}
