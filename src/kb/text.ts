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
  const out: string[] = lower.match(WORD) ?? [];
  const compounds = lower.match(COMPOUND);
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

/** FNV-1a, 32 bits: cheap, stable across runs and platforms (the embedding must be deterministic). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
