import { isStopword, tokenize } from '../text.js';
import { type EmbeddingProvider, normalize } from './provider.js';

/** v2 (the default since it exists): stems instead of 5-letter prefixes. v1 stays for KBs made with it. */
export const BUILTIN_MODELS = ['lexical-hash-v1', 'lexical-hash-v2'] as const;
export type BuiltinModel = (typeof BUILTIN_MODELS)[number];
export const BUILTIN_MODEL: BuiltinModel = 'lexical-hash-v2';
export const BUILTIN_DIMENSION = 256;
export const BUILTIN_NOTE =
  'builtin: a deterministic lexical embedding (hashed word stems, words and word pairs); it matches words, not meanings (inflections meet: refund, refunds, refunded)';

/**
 * The default provider: offline, no key, deterministic. v2 hashes each word's stem (a few
 * English suffixes cut, so `refund`, `refunds`, `refunded`, `refunding` meet), the word
 * itself when it differs (exact forms still count a little more) and each adjacent pair of
 * stems to signed buckets; v1 hashed words, 5-letter prefixes and word pairs (prefixes
 * tie unrelated words that start alike, and on the labelled set of the tests v1 found 2%
 * of reworded questions, v2 finds most). Counts are dampened (1 + log tf) and the vector is
 * L2-normalised. Similar wording scores high; synonyms do not (it matches words, not meanings).
 */
export class BuiltinEmbedder implements EmbeddingProvider {
  readonly provider = 'builtin';
  constructor(
    readonly dimension = BUILTIN_DIMENSION,
    readonly model: BuiltinModel = BUILTIN_MODEL,
  ) {}

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
    const v2 = this.model === 'lexical-hash-v2';
    for (const tok of tokenize(text)) {
      if (isStopword(tok)) {
        hasPrev = false;
        continue;
      }
      if (v2) {
        const stem = stemOf(tok);
        const h = fnv(STEM_SEED, stem, stem.length);
        add(h, 1);
        if (stem.length !== tok.length) add(fnv(FNV_SEED, tok, tok.length), 0.5);
        if (hasPrev) add(fnv(fnvCode(prev, 32), stem, stem.length), 0.5);
        prev = h;
      } else {
        const h = fnv(FNV_SEED, tok, tok.length);
        add(h, 1);
        if (tok.length > 5) add(fnv(PREFIX_SEED, tok, 5), 0.5);
        if (hasPrev) add(fnv(fnvCode(prev, 32), tok, tok.length), 0.5);
        prev = h;
      }
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

/** FNV-1a state after `~`, which starts every stem feature (a stem never hashes as a word). */
const STEM_SEED = fnvCode(FNV_SEED, 126);

const SUFFIXES = ['ings', 'ing', 'edly', 'ed', 'ies', 'es', 's', 'ly'];

/** A light stemmer: the first of a few inflection suffixes cut when 3 or more letters remain. */
export function stemOf(tok: string): string {
  if (tok.length < 5 || !/^[a-z]+$/.test(tok)) return tok;
  for (const suf of SUFFIXES)
    if (tok.endsWith(suf) && tok.length - suf.length >= 3) {
      const stem = tok.slice(0, -suf.length);
      if (suf === 'ies') return `${stem}y`;
      // `refunded` -> `refund`, `planned` -> `plann` -> `plan`
      return stem.length > 3 && stem[stem.length - 1] === stem[stem.length - 2] ? stem.slice(0, -1) : stem;
    }
  return tok;
}

function fnvCode(h: number, code: number): number {
  return Math.imul(h ^ code, 0x01000193);
}

/** FNV-1a continued from state `h` over the first `n` characters of `s` (hash32 when h is the seed). */
function fnv(h: number, s: string, n: number): number {
  for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}
