import { SqlError } from '../core/errors.js';
import type { MysqlType } from '../core/types.js';
import { type EmbeddingModelSpec, parseModelSpec } from './embed/index.js';
import { parseRerankSpec, type RerankingModelSpec } from './rerank/spec.js';

/** A knowledge base as the catalog keeps it (its `params`), validated. */
export interface KbDefinition {
  embedding_model: EmbeddingModelSpec;
  /** `source.table` (or `source.schema.table`) for pgvector; null: the embedded store, or the shared catalog's database. */
  storage: string | null;
  content_columns: string[];
  metadata_columns: string[];
  /** The MySQL type of each metadata column, recorded at INSERT (filters compare by it); absent: guessed from the stored values. */
  metadata_types?: Record<string, MysqlType>;
  id_column: string;
  preprocessing: { chunk_size: number; chunk_overlap: number };
  /** Learned at creation by embedding once. */
  dimension: number;
  /** `reranking_model = {...}`: reorders the top candidates of each search. Absent in KBs made before it existed. */
  reranking_model?: RerankingModelSpec | null;
}

const PARAMS = [
  'embedding_model',
  'storage',
  'content_columns',
  'metadata_columns',
  'id_column',
  'preprocessing',
  'reranking_model',
];

/** CREATE KNOWLEDGE_BASE ... USING: known parameters in any order; the unknown one is named. */
export function parseDefinition(kb: string, p: Record<string, unknown>): Omit<KbDefinition, 'dimension'> {
  for (const k of Object.keys(p))
    if (!PARAMS.includes(k))
      throw new SqlError(
        1210,
        `Knowledge base '${kb}': unknown parameter '${k}' (known: ${PARAMS.join(', ')})`,
      );
  const list = (k: string, dflt: string[]): string[] => {
    const v = p[k];
    if (v === undefined || v === null) return dflt;
    const arr = Array.isArray(v) ? v : [v];
    if (!arr.every((x) => typeof x === 'string' && x !== ''))
      throw new SqlError(1210, `Knowledge base '${kb}': ${k} must be a list of column names`);
    if (arr.length === 0 && k === 'content_columns')
      throw new SqlError(
        1210,
        `Knowledge base '${kb}': content_columns must name at least one column (default ['content']); an empty list leaves nothing to embed or search`,
      );
    return arr as string[];
  };
  const pre = p.preprocessing ?? {};
  if (typeof pre !== 'object' || Array.isArray(pre) || pre === null)
    throw new SqlError(1210, `Knowledge base '${kb}': preprocessing must be a JSON object`);
  const pp = pre as Record<string, unknown>;
  for (const k of Object.keys(pp))
    if (k !== 'chunk_size' && k !== 'chunk_overlap')
      throw new SqlError(
        1210,
        `Knowledge base '${kb}': unknown preprocessing parameter '${k}' (chunk_size, chunk_overlap)`,
      );
  const size = Number(pp.chunk_size ?? 1000);
  const overlap = Number(pp.chunk_overlap ?? 200);
  if (!Number.isInteger(size) || size < 50 || size > 100_000)
    throw new SqlError(1210, `Knowledge base '${kb}': chunk_size must be an integer from 50 to 100000`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size)
    throw new SqlError(
      1210,
      `Knowledge base '${kb}': chunk_overlap must be an integer from 0 to chunk_size - 1`,
    );
  const storage = p.storage === undefined || p.storage === null ? null : String(p.storage);
  if (storage !== null) parseStorage(kb, storage);
  const id = p.id_column === undefined ? 'id' : String(p.id_column);
  const content = list('content_columns', ['content']);
  const metadata = list('metadata_columns', []);
  const clash = metadata.find((m) => content.includes(m) || m === id);
  if (clash)
    throw new SqlError(
      1210,
      `Knowledge base '${kb}': column '${clash}' cannot be both metadata and content/id`,
    );
  const reserved = metadata.find((m) =>
    ['id', 'chunk_id', 'chunk_content', 'metadata', 'distance', 'relevance', 'content'].includes(
      m.toLowerCase(),
    ),
  );
  if (reserved)
    throw new SqlError(
      1210,
      `Knowledge base '${kb}': metadata column '${reserved}' clashes with a result column`,
    );
  return {
    embedding_model: parseModelSpec(kb, p.embedding_model),
    storage,
    content_columns: content,
    metadata_columns: metadata,
    id_column: id,
    preprocessing: { chunk_size: size, chunk_overlap: overlap },
    reranking_model: parseRerankSpec(kb, p.reranking_model),
  };
}

/** The model as listings show it: never the key. */
export function shownModel(m: EmbeddingModelSpec, dimension: number): Record<string, unknown> {
  const out: Record<string, unknown> = { provider: m.provider };
  if (m.model_name) out.model_name = m.model_name;
  if (m.base_url) out.base_url = m.base_url;
  out.dimension = dimension;
  return out;
}

/** `source.table` or `source.schema.table`. */
export function parseStorage(
  kb: string,
  storage: string,
): { source: string; schema: string | null; table: string } {
  const parts = storage.split('.');
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => !/^[A-Za-z_][A-Za-z0-9_$]{0,49}$/.test(p)))
    throw new SqlError(
      1210,
      `Knowledge base '${kb}': storage must be source.table (or source.schema.table) with plain names of at most 50 characters, not '${storage}'`,
    );
  // Unquoted names, folded as PostgreSQL folds them.
  const [source, a, b] = parts;
  return b === undefined
    ? { source, schema: null, table: a.toLowerCase() }
    : { source, schema: a.toLowerCase(), table: b.toLowerCase() };
}
