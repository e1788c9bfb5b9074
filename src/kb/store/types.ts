import type { ResolvedCondition } from '../filters.js';

/** One chunk as stored. */
export interface StoredChunk {
  chunkId: string;
  content: string;
  vector: Float32Array;
}

/** One source row as stored: its chunks, metadata and the hashes that spare re-embedding. */
export interface StoredDoc {
  id: string;
  /** Hash of the content alone: same content, same vectors. */
  contentHash: string;
  /** Hash of content and metadata: same, nothing to write. */
  rowHash: string;
  metadata: Record<string, unknown>;
  chunks: StoredChunk[];
}

export interface DocHashes {
  contentHash: string;
  rowHash: string;
}

/** A chunk as a search returns it. */
export interface ChunkRow {
  id: string;
  chunkId: string;
  content: string;
  metadata: Record<string, unknown>;
}

/** A chunk one arm of a search found: its cosine to the question and its BM25 score, where known. */
export interface Scored extends ChunkRow {
  /** Cosine similarity (vectors are unit length); null when the search has no question vector. */
  sim: number | null;
  /** BM25; null from the vector arm. */
  bm25: number | null;
}

/**
 * What one search asks of a store: the two arms, each with its own depth (0: the arm is
 * off), under the same filters. Filters name `id`, `chunk_id`, `chunk_content` or a
 * metadata column, as `resolveConditions` resolved them (with how each column compares).
 */
export interface ArmsRequest {
  filters: ResolvedCondition[];
  vector: Float32Array | null;
  vectorK: number;
  query: string | null;
  keywordK: number;
}

/**
 * Where a knowledge base keeps its chunks: the embedded store (kb/store/embedded-kb.ts) or
 * PostgreSQL tables (kb/store/pg.ts: a source's pgvector table, or the shared catalog's
 * database). Each arm applies the filters inside its own ranking, so a filter never empties
 * a top k, and each returns its best first (ties: older chunks first).
 */
export interface KbStore {
  /** `embedded`, `pgvector` or `array` (PostgreSQL without pgvector): DESCRIBE shows it. */
  readonly kind: string;
  counts(): Promise<{ rows: number; chunks: number }>;
  /** Stored hashes of the documents among `ids`. */
  hashes(ids: string[]): Promise<Map<string, DocHashes>>;
  /** A document's vectors in chunk order (reused when only its metadata changed). */
  vectorsOfDoc(id: string): Promise<Float32Array[]>;
  /** Write documents, replacing their previous chunks, durably, all or nothing. */
  put(docs: StoredDoc[]): Promise<void>;
  /** Documents deleted. */
  delete(ids: string[]): Promise<number>;
  /** Chunks passing the filters in the order they were stored, at most `limit` (null: all). */
  scan(filters: ResolvedCondition[], limit: number | null): Promise<ChunkRow[]>;
  /**
   * The vector arm's `vectorK` best by cosine and the keyword arm's `keywordK` best by BM25;
   * keyword hits carry their cosine too when `vector` is given (hybrid fusion needs it).
   */
  arms(req: ArmsRequest): Promise<{ vector: Scored[]; keyword: Scored[] }>;
  close(): Promise<void>;
  /** Remove the data for good (DROP KNOWLEDGE_BASE). */
  drop(): Promise<void>;
}
