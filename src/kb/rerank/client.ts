import { type ErrorCodeValue, SqlError } from '../../core/errors.js';
import { joinUrl, postJson } from '../embed/http.js';
import type { EgressSettings } from '../embed/provider.js';
import type { RerankingModelSpec } from './spec.js';

const DEFAULT_BATCH = 100;
/** Characters of an upstream's answer an error quotes. */
const EXCERPT = 200;

/**
 * A reranking model behind a Cohere-compatible `POST {base_url}/rerank`: body
 * `{model, query, documents, top_n}` (TEI: `{query, texts}`), answer
 * `{results: [{index, relevance_score}]}` (Cohere, Jina, Voyage as `data`, vLLM, Infinity)
 * or a bare array `[{index, score}]` (TEI). HTTP goes through the embedding providers'
 * egress-checked client (kb/embed/http.ts): same address policy, limits, retries.
 */
export class Reranker {
  private readonly url: string;
  constructor(
    private readonly kb: string,
    readonly spec: RerankingModelSpec,
    private readonly egress: EgressSettings,
  ) {
    this.url = joinUrl(spec.base_url, '/rerank');
  }

  /** One score per document, in the documents' order (batches of `batch_size` per request). */
  async scores(query: string, documents: string[], signal?: AbortSignal): Promise<number[]> {
    const out = new Array<number>(documents.length).fill(Number.NaN);
    const size = this.spec.batch_size ?? DEFAULT_BATCH;
    for (let at = 0; at < documents.length; at += size) {
      const batch = documents.slice(at, at + size);
      const got = parseRerankAnswer(await this.post(query, batch, signal), batch.length, (why) =>
        this.error(why),
      );
      for (let i = 0; i < batch.length; i++) out[at + i] = got[i];
    }
    return out;
  }

  private async post(query: string, documents: string[], signal?: AbortSignal): Promise<unknown> {
    const key = this.spec.api_key;
    const body =
      this.spec.provider === 'tei'
        ? { query, texts: documents, raw_scores: false }
        : { model: this.spec.model_name, query, documents, top_n: documents.length };
    try {
      return await postJson(
        this.spec.provider,
        this.url,
        body,
        key ? { authorization: `Bearer ${key}` } : {},
        key ? [key] : [],
        this.egress,
        signal,
      );
    } catch (e) {
      if (!(e instanceof SqlError)) throw e;
      // postJson speaks of an "Embedding provider": say what failed here instead.
      const why = e.message.replace(/^Embedding provider '[^']*'\s*/, '');
      throw this.error(why, e.code as ErrorCodeValue);
    }
  }

  /** An error naming the KB, the provider and its model; the key never in it, the upstream's words bounded. */
  private error(why: string, code: ErrorCodeValue = 1105): SqlError {
    const key = this.spec.api_key;
    let text = key ? why.split(key).join('***') : why;
    text = text.replace(/(answered HTTP \d+[^:]*: )([\s\S]*)$/, (_m, head: string, tail: string) => {
      const flat = tail.replace(/\s+/g, ' ');
      return head + (flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}...` : flat);
    });
    return new SqlError(
      code,
      `Knowledge base '${this.kb}': reranking provider '${this.spec.provider}' (model ${this.spec.model_name}) ${text}`,
    );
  }
}

/**
 * Scores by input index from a rerank answer: `{results: [{index, relevance_score}]}`
 * (also under `data`, and `score` for `relevance_score`) or a bare array `[{index, score}]`.
 * Every document must be scored exactly once.
 */
export function parseRerankAnswer(res: unknown, n: number, fail: (why: string) => Error): number[] {
  const list = Array.isArray(res)
    ? res
    : res && typeof res === 'object'
      ? ((res as { results?: unknown }).results ?? (res as { data?: unknown }).data)
      : null;
  if (!Array.isArray(list))
    throw fail(
      'answered without results (expected {"results": [{"index", "relevance_score"}]} or [{"index", "score"}])',
    );
  const out = new Array<number>(n).fill(Number.NaN);
  for (const item of list) {
    const o = (item ?? {}) as { index?: unknown; relevance_score?: unknown; score?: unknown };
    const index = o.index;
    const score = o.relevance_score ?? o.score;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= n)
      throw fail(`answered with an index outside the ${n} documents sent: ${JSON.stringify(index)}`);
    if (typeof score !== 'number' || !Number.isFinite(score))
      throw fail(`answered without a numeric relevance_score for document ${index}`);
    if (!Number.isNaN(out[index])) throw fail(`answered twice for document ${index}`);
    out[index] = score;
  }
  const missing = out.findIndex(Number.isNaN);
  if (missing >= 0)
    throw fail(`scored ${list.length} of the ${n} documents sent (none for document ${missing})`);
  return out;
}
