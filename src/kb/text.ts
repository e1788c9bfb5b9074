/**
 * Text helpers shared by the keyword index and the builtin embedder: one tokenizer, so a
 * question and a document are cut the same way. Identifier-like tokens (`ACME-213`,
 * `E_CONN.42`) are kept whole besides their parts, so an exact identifier outranks
 * documents that merely share one of its pieces.
 */
const WORD = /[\p{L}\p{N}]+/gu;
const COMPOUND = /[\p{L}\p{N}]+(?:[-_.:/#][\p{L}\p{N}]+)+/gu;

export function tokenize(text: string): string[] {
  const lower = text.toLowerCase();
  // Most text is ASCII: one hand-written pass, the same tokens as the regexes below (which
  // cost more than the rest of an ingest together on 100,000 chunks).
  if (!NON_ASCII.test(lower)) return tokenizeAscii(lower);
  const out: string[] = lower.match(WORD) ?? [];
  const compounds = lower.match(COMPOUND);
  if (compounds) for (const c of compounds) out.push(c);
  return out;
}

const NON_ASCII = /[\u0080-\uffff]/;

const isWordCode = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
const isSepCode = (c: number) => c === 45 || c === 95 || c === 46 || c === 58 || c === 47 || c === 35;

/** `tokenize` for lower-cased ASCII text: words in order, then compounds in order. */
function tokenizeAscii(s: string): string[] {
  const out: string[] = [];
  let compounds: string[] | null = null;
  const n = s.length;
  let i = 0;
  while (i < n) {
    if (!isWordCode(s.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let parts = 0;
    for (;;) {
      const w = i;
      while (i < n && isWordCode(s.charCodeAt(i))) i++;
      out.push(s.slice(w, i));
      if (i + 1 < n && isSepCode(s.charCodeAt(i)) && isWordCode(s.charCodeAt(i + 1))) {
        i++;
        parts++;
      } else break;
    }
    if (parts > 0) {
      compounds ??= [];
      compounds.push(s.slice(start, i));
    }
  }
  if (compounds) for (const c of compounds) out.push(c);
  return out;
}

const STOP = new Set(
  'a an and are as at be but by for from has have how i in is it its of on or that the this to was were what when where which who why will with you your do does did not no can we they our'.split(
    ' ',
  ),
);

export function isStopword(t: string): boolean {
  return STOP.has(t);
}

/**
 * The words of a question that score on the keyword arm: each once, stopwords dropped. The
 * index keeps stopwords (lengths and postings as stored), so KBs indexed by earlier versions
 * need no re-index: a stopword simply never scores, and a question of stopwords alone has no
 * keyword hits. Both stores (kb/keyword.ts, kb/store/pg.ts) ask this one function.
 */
export function queryTerms(question: string): string[] {
  const out = new Set<string>();
  for (const t of tokenize(question)) if (!STOP.has(t)) out.add(t);
  return [...out];
}

/** FNV-1a, 32 bits: cheap, stable across runs and platforms (the embedding must be deterministic). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
