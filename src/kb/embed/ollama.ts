import { SqlError } from '../../core/errors.js';
import { joinUrl, postJson } from './http.js';
import { type EgressSettings, type EmbeddingProvider, normalize } from './provider.js';

/** Ollama's `/api/embed` (input may be a list): batches of `batchSize` texts per call. */
export class OllamaEmbedder implements EmbeddingProvider {
  readonly provider = 'ollama';
  private readonly url: string;
  constructor(
    readonly model: string,
    baseUrl: string,
    private readonly egress: EgressSettings,
    private readonly batchSize = 64,
  ) {
    this.url = joinUrl(baseUrl, '/api/embed');
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize);
      const res = (await postJson(
        'ollama',
        this.url,
        { model: this.model, input: batch },
        {},
        [],
        this.egress,
        signal,
      )) as {
        embeddings?: number[][];
      };
      if (!Array.isArray(res?.embeddings) || res.embeddings.length !== batch.length)
        throw new SqlError(
          1105,
          `Embedding provider 'ollama' (model ${this.model}) returned ${res?.embeddings?.length ?? 'no'} embeddings for ${batch.length} inputs`,
        );
      for (const e of res.embeddings) out.push(normalize(Float32Array.from(e)));
    }
    return out;
  }
}
