import { SqlError } from '../../core/errors.js';
import {
  BUILTIN_DIMENSION,
  BUILTIN_MODEL,
  BUILTIN_MODELS,
  BuiltinEmbedder,
  type BuiltinModel,
} from './builtin.js';
import { OllamaEmbedder } from './ollama.js';
import { OpenAiEmbedder } from './openai.js';
import type { EgressSettings, EmbeddingModelSpec, EmbeddingProvider } from './provider.js';

export type { EgressSettings, EmbeddingModelSpec, EmbeddingProvider } from './provider.js';

/** `ollama pull nomic-embed-text`: the model `{"provider": "ollama"}` uses when model_name is not given. */
export const OLLAMA_DEFAULT_MODEL = 'nomic-embed-text';

const KEYS = new Set(['provider', 'model_name', 'base_url', 'api_key', 'dimension', 'batch_size']);

/** Check `embedding_model = {...}`: known keys, a known provider, what it needs. */
export function parseModelSpec(kb: string, raw: unknown): EmbeddingModelSpec {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new SqlError(1210, `Knowledge base '${kb}': embedding_model must be a JSON object`);
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!KEYS.has(k))
      throw new SqlError(
        1210,
        `Knowledge base '${kb}': unknown embedding_model parameter '${k}' (known: ${[...KEYS].join(', ')})`,
      );
  const provider = String(o.provider ?? 'builtin').toLowerCase();
  if (provider !== 'builtin' && provider !== 'openai' && provider !== 'ollama')
    throw new SqlError(
      1210,
      `Knowledge base '${kb}': unknown embedding provider '${provider}' (builtin, openai or ollama)`,
    );
  const str = (k: string) => (o[k] === undefined || o[k] === null ? null : String(o[k]));
  const num = (k: string) => {
    if (o[k] === undefined || o[k] === null) return null;
    const n = Number(o[k]);
    if (!Number.isInteger(n) || n < 1 || n > 8192)
      throw new SqlError(
        1210,
        `Knowledge base '${kb}': embedding_model.${k} must be an integer from 1 to 8192`,
      );
    return n;
  };
  const spec: EmbeddingModelSpec = {
    provider,
    model_name: str('model_name'),
    base_url: str('base_url'),
    api_key: str('api_key'),
    dimension: num('dimension'),
    batch_size: num('batch_size'),
  };
  // A local Ollama works with `{"provider": "ollama"}` alone: its most pulled embedding model.
  if (provider === 'ollama') spec.model_name ??= OLLAMA_DEFAULT_MODEL;
  if (provider !== 'builtin' && !spec.model_name)
    throw new SqlError(1210, `Knowledge base '${kb}': embedding provider '${provider}' needs model_name`);
  if (provider === 'builtin') {
    spec.model_name ??= BUILTIN_MODEL;
    if (!(BUILTIN_MODELS as readonly string[]).includes(spec.model_name))
      throw new SqlError(
        1210,
        `Knowledge base '${kb}': unknown builtin model_name '${spec.model_name}' (${BUILTIN_MODELS.join(', ')})`,
      );
  }
  if (provider === 'ollama' && !spec.base_url) spec.base_url = 'http://127.0.0.1:11434';
  if (provider === 'openai' && !spec.base_url) spec.base_url = 'https://api.openai.com/v1';
  return spec;
}

export function createProvider(spec: EmbeddingModelSpec, egress: EgressSettings): EmbeddingProvider {
  switch (spec.provider) {
    case 'builtin':
      // A KB made before v2 existed has no model_name: it keeps v1, its stored vectors' model.
      return new BuiltinEmbedder(
        spec.dimension ?? BUILTIN_DIMENSION,
        (spec.model_name ?? 'lexical-hash-v1') as BuiltinModel,
      );
    case 'openai':
      return new OpenAiEmbedder(
        spec.model_name!,
        spec.base_url!,
        spec.api_key,
        egress,
        spec.batch_size ?? 100,
      );
    case 'ollama':
      return new OllamaEmbedder(spec.model_name!, spec.base_url!, egress, spec.batch_size ?? 64);
  }
}
