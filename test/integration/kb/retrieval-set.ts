/**
 * A labelled retrieval set made by the tests (deterministic: one seeded generator), so
 * EVALUATE KNOWLEDGE_BASE has something real to score: support tickets, each with an
 * identifier, a product, a topic and words drawn with a Zipf-like skew from a large made-up
 * vocabulary (common words are common, rare ones rare, as in real text), and three kinds
 * of questions whose answer is one ticket:
 * - identifier: the ticket's identifier (`ACME-1042`) or its error code in a sentence;
 * - keyword: three of the ticket's rarest words, verbatim;
 * - paraphrase: the ticket's key words reworded (other inflections: `-ing`, `-ed`, `-s`),
 *   reordered, wrapped in question words. The builtin embedder matches words, not meanings,
 *   so these are paraphrases of form (what a lexical model can meet), not of synonyms.
 */

export interface RetrievalSet {
  docs: { id: string; body: string; product: string }[];
  questions: { question: string; doc_id: string; kind: 'identifier' | 'keyword' | 'paraphrase' }[];
}

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES =
  'ka lo mi nu pe ra si to vu xe bra cli dro fen gar hul jin kor lum mer nav plo quin rest sarn tov ulm vex wir zan'.split(
    ' ',
  );
const TOPICS = [
  'refund delayed after return',
  'login fails after password reset',
  'invoice total wrong on renewal',
  'shipment lost in warehouse transfer',
  'database backup restore failed',
  'server outage during weekly report',
  'coupon discount not applied at checkout',
  'bank transfer payment rejected',
  'account locked after security alert',
  'latency spike on search requests',
];
const PRODUCTS = 'Zephyr Quasar Nimbus Orion Vortex Helix Pulsar Ember Tundra Cobalt Argon Falcon'.split(' ');
const FILLER = 'the customer said we checked and then again it was not clear so please see below also'.split(
  ' ',
);

function inflect(w: string, r: () => number): string {
  const forms = ['ing', 'ed', 's'];
  return `${w}${forms[Math.floor(r() * forms.length)]}`;
}

export function makeRetrievalSet(nDocs = 2000, nEach = 100, seed = 13): RetrievalSet {
  const r = rng(seed);
  // 4,000 made-up words of 2-3 syllables; the first ones are drawn far more often.
  const vocab = new Set<string>();
  while (vocab.size < 4000) {
    const n = 2 + Math.floor(r() * 2);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
    if (w.length >= 6) vocab.add(w);
  }
  const words = [...vocab];
  const zipf = () => words[Math.min(words.length - 1, Math.floor(words.length * r() ** 2.5))];
  const docs: RetrievalSet['docs'] = [];
  const docWords: string[][] = [];
  const df = new Map<string, number>();
  for (let i = 0; i < nDocs; i++) {
    const id = `ACME-${1000 + i}`;
    const product = PRODUCTS[i % PRODUCTS.length];
    const topic = TOPICS[Math.floor(r() * TOPICS.length)];
    const own: string[] = [];
    const parts = [`Ticket ${id} (${product}): ${topic}, error E${4000 + i}.`];
    for (let s = 0; s < 5; s++) {
      const sentence: string[] = [];
      for (let k = 0; k < 9; k++) {
        if (r() < 0.3) sentence.push(FILLER[Math.floor(r() * FILLER.length)]);
        else {
          const w = zipf();
          sentence.push(w);
          own.push(w);
        }
      }
      parts.push(`${sentence.join(' ')}.`);
    }
    for (const w of new Set(own)) df.set(w, (df.get(w) ?? 0) + 1);
    docs.push({ id, body: parts.join(' '), product });
    docWords.push(own);
  }
  const rarest = (i: number, n: number) =>
    [...new Set(docWords[i])].sort((a, b) => df.get(a)! - df.get(b)! || a.localeCompare(b)).slice(0, n);
  const questions: RetrievalSet['questions'] = [];
  const pick = () => Math.floor(r() * nDocs);
  for (let q = 0; q < nEach; q++) {
    const i = pick();
    const d = docs[i];
    questions.push({
      question: q % 2 ? `what happened in ticket ${d.id}?` : `who reported error E${4000 + i}`,
      doc_id: d.id,
      kind: 'identifier',
    });
  }
  for (let q = 0; q < nEach; q++) {
    const i = pick();
    questions.push({ question: rarest(i, 3).join(' '), doc_id: docs[i].id, kind: 'keyword' });
  }
  for (let q = 0; q < nEach; q++) {
    const i = pick();
    const key = rarest(i, 6)
      .map((w) => inflect(w, r))
      .sort(() => r() - 0.5);
    questions.push({
      question: `how do I deal with ${key.slice(0, 3).join(' ')} when ${key.slice(3).join(' ')}?`,
      doc_id: docs[i].id,
      kind: 'paraphrase',
    });
  }
  return { docs, questions };
}

export function toCsv(rows: Record<string, string>[]): string {
  const cols = Object.keys(rows[0]);
  const cell = (v: string) => `"${v.replace(/"/g, '""')}"`;
  return `${cols.join(',')}\n${rows.map((row) => cols.map((c) => cell(row[c])).join(',')).join('\n')}\n`;
}
