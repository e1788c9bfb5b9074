/** The generated ticket corpus both knowledge-base benches ingest and query (kb.ts, kb-pgvector.ts). */

export const WORDS =
  'refund order invoice shipping delay password login error account billing payment card bank transfer customer support ticket priority urgent weekly report server outage latency database backup restore contract renewal discount coupon delivery warehouse return policy'.split(
    ' ',
  );

/** Ticket `i`: about 500 characters, an identifier, and words drawn deterministically from WORDS. */
export function doc(i: number): string {
  let s = `Ticket ACME-${i}: `;
  let x = i * 2654435761;
  while (s.length < 500) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += `${WORDS[x % WORDS.length]} `;
  }
  return s.trim();
}

/** The p-quantile (0..1) of `xs`, nearest rank. */
export const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)];
