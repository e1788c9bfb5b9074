import type { Hit } from '../search.js';
import type { Reranker } from './client.js';

export { Reranker } from './client.js';
export { parseRerankSpec, type RerankingModelSpec, shownReranker } from './spec.js';

/**
 * Reorder first-stage `hits` (best first) by the reranking model and keep the `k` best; each
 * hit's relevance becomes the model's score. Scores are used as given when all lie in [0,1]
 * (Cohere, Jina, Voyage, TEI and Infinity by default); when any falls outside (a model
 * answering raw logits) every score of the search goes through the logistic function, which
 * keeps their order and puts them in [0,1]. Ties keep the first stage's order.
 */
export async function rerankHits(
  reranker: Reranker,
  query: string,
  hits: Hit[],
  k: number,
  signal?: AbortSignal,
): Promise<Hit[]> {
  if (hits.length === 0 || k <= 0) return [];
  const raw = await reranker.scores(
    query,
    hits.map((h) => h.content),
    signal,
  );
  const logits = raw.some((s) => s < 0 || s > 1);
  const order = hits.map((h, i) => ({ h, i, r: logits ? 1 / (1 + Math.exp(-raw[i])) : raw[i] }));
  order.sort((a, b) => b.r - a.r || a.i - b.i);
  return order.slice(0, k).map(({ h, r }) => ({ ...h, relevance: r }));
}
