import { SqlError } from '../../core/errors.js';

/** `reranking_model = {...}` of a knowledge base, as CREATE / ALTER give it. */
export interface RerankingModelSpec {
  /** `cohere`: any Cohere-compatible `POST {base_url}/rerank` (Cohere, Jina, Voyage, vLLM, Infinity); `tei`: Hugging Face text-embeddings-inference (`texts` instead of `documents`). */
  provider: 'cohere' | 'tei';
  model_name: string;
  base_url: string;
  /** A secret: sealed at rest, never shown. */
  api_key: string | null;
  /** Documents per request (default 100; TEI's own default limit is 32). */
  batch_size: number | null;
}

const KEYS = ['provider', 'model_name', 'base_url', 'api_key', 'batch_size'];
const PROVIDERS = ['cohere', 'tei'];
const COHERE_URL = 'https://api.cohere.com/v2';

/** Check `reranking_model = {...}`: known keys, a known provider, a model and an http(s) base URL. */
export function parseRerankSpec(kb: string, raw: unknown): RerankingModelSpec | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new SqlError(1210, `Knowledge base '${kb}': reranking_model must be a JSON object`);
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!KEYS.includes(k))
      throw new SqlError(
        1210,
        `Knowledge base '${kb}': unknown reranking_model parameter '${k}' (known: ${KEYS.join(', ')})`,
      );
  const provider = String(o.provider ?? 'cohere').toLowerCase();
  if (!PROVIDERS.includes(provider))
    throw new SqlError(
      1210,
      `Knowledge base '${kb}': unknown reranking provider '${provider}' (cohere: any Cohere-compatible /rerank, or tei)`,
    );
  const str = (k: string) => (o[k] === undefined || o[k] === null ? null : String(o[k]));
  const model = str('model_name');
  if (!model) throw new SqlError(1210, `Knowledge base '${kb}': reranking_model needs model_name`);
  const base = str('base_url') ?? (provider === 'cohere' ? COHERE_URL : null);
  if (!base)
    throw new SqlError(1210, `Knowledge base '${kb}': reranking provider '${provider}' needs base_url`);
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new SqlError(1210, `Knowledge base '${kb}': reranking_model.base_url is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SqlError(1210, `Knowledge base '${kb}': reranking_model.base_url must be http or https`);
  let batch: number | null = null;
  if (o.batch_size !== undefined && o.batch_size !== null) {
    batch = Number(o.batch_size);
    if (!Number.isInteger(batch) || batch < 1 || batch > 10_000)
      throw new SqlError(
        1210,
        `Knowledge base '${kb}': reranking_model.batch_size must be an integer from 1 to 10000`,
      );
  }
  return {
    provider: provider as RerankingModelSpec['provider'],
    model_name: model,
    base_url: base,
    api_key: str('api_key'),
    batch_size: batch,
  };
}

/** The reranking model as listings show it: never the key. */
export function shownReranker(m: RerankingModelSpec): Record<string, unknown> {
  return { provider: m.provider, model_name: m.model_name, base_url: m.base_url };
}
