/** One interface for every embedding provider (builtin, openai, ollama). */
export interface EmbeddingProvider {
  /** `builtin`, `openai`, `ollama`: named in every error. */
  readonly provider: string;
  readonly model: string;
  /** Texts in, one vector each, in order. Implementations batch as their API allows. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** The embedding model of a knowledge base, as `embedding_model = {...}` gives it. */
export interface EmbeddingModelSpec {
  provider: 'builtin' | 'openai' | 'ollama';
  model_name: string | null;
  base_url: string | null;
  api_key: string | null;
  /** builtin only: vector size (default 256). */
  dimension: number | null;
  /** Texts per HTTP call. */
  batch_size: number | null;
}

/**
 * What HTTP providers need from the server's configuration: the KB egress policy (SPEC §8
 * "Providers' addresses": loopback always, private ranges with `kb.allow_private_networks`,
 * only `kb.allowed_hosts` when set) and the time limit of one call.
 */
export interface EgressSettings {
  /** kb.allow_private_networks */
  allowPrivate: boolean;
  /** kb.allowed_hosts, normalised (egress/safe-url.ts normalizeAllowedHosts); empty: any host. */
  allowedHosts: readonly string[];
  timeoutMs: number;
}

/** Scale to unit length (cosine similarity becomes a dot product); a zero vector stays zero. */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}
