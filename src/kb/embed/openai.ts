import { SqlError } from '../../core/errors.js';
import { joinUrl, postJson } from './http.js';
import { type EgressSettings, type EmbeddingProvider, normalize } from './provider.js';

/** Any OpenAI-compatible `/v1/embeddings`: batches of `batchSize` inputs per call. */
export class OpenAiEmbedder implements EmbeddingProvider {
  readonly provider = 'openai';
  private readonly url: string;
  constructor(
    readonly model: string,
    baseUrl: string,
    private readonly apiKey: string | null,
    private readonly egress: EgressSettings,
    private readonly batchSize = 100,
  ) {
    const base = baseUrl.replace(/\/+$/, '');
    this.url = joinUrl(base, base.endsWith('/v1') ? '/embeddings' : '/v1/embeddings');
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize);
      const headers: Record<string, string> = this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {};
      const res = (await postJson(
        'openai',
        this.url,
        { model: this.model, input: batch },
        headers,
        this.apiKey ? [this.apiKey] : [],
        this.egress,
        signal,
      )) as { data?: { index?: number; embedding?: number[] }[] };
      const data = Array.isArray(res?.data) ? [...res.data] : null;
      if (!data || data.length !== batch.length)
        throw new SqlError(
          1105,
          `Embedding provider 'openai' (model ${this.model}) returned ${data?.length ?? 'no'} embeddings for ${batch.length} inputs`,
        );
      data.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      for (const d of data) {
        if (!Array.isArray(d.embedding))
          throw new SqlError(1105, `Embedding provider 'openai' returned an item without an embedding`);
        out.push(normalize(Float32Array.from(d.embedding)));
      }
    }
    return out;
  }
}
