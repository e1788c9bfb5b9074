import { isStopword, tokenize } from '../text.js';
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
    // Features are hashed by continuing FNV-1a from the word's own hash (the same values as
    // hashing `>prefix` and `prev word` strings, without building them): one Float64Array
    // of sums instead of a Map, the embedder's share of an ingest halves.
    const sums = new Float64Array(dim);
    const touched = new Uint8Array(dim);
    const add = (h: number, w: number) => {
      const u = h >>> 0;
      const bucket = u % dim;
      sums[bucket] += u & 0x80000000 ? -w : w;
      touched[bucket] = 1;
    };
    let prev = 0;
    let hasPrev = false;
    for (const tok of tokenize(text)) {
      if (isStopword(tok)) {
        hasPrev = false;
        continue;
      }
      const h = fnv(FNV_SEED, tok, tok.length);
      add(h, 1);
      if (tok.length > 5) add(fnv(PREFIX_SEED, tok, 5), 0.5);
      if (hasPrev) add(fnv(fnvCode(prev, 32), tok, tok.length), 0.5);
      prev = h;
      hasPrev = true;
    }
    const v = new Float32Array(dim);
    for (let b = 0; b < dim; b++) {
      if (touched[b] === 0) continue;
      const c = sums[b];
      v[b] = Math.sign(c) * (1 + Math.log(Math.abs(c) || 1));
    }
    return normalize(v);
  }
}

const FNV_SEED = 0x811c9dc5;
/** FNV-1a state after the character `>`, which starts every prefix feature. */
const PREFIX_SEED = fnvCode(FNV_SEED, 62);

function fnvCode(h: number, code: number): number {
  return Math.imul(h ^ code, 0x01000193);
}

/** FNV-1a continued from state `h` over the first `n` characters of `s` (hash32 when h is the seed). */
function fnv(h: number, s: string, n: number): number {
  for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}
