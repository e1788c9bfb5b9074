/**
 * What the engine asks of knowledge bases (docs/reference/sql.md, "Knowledge bases"). The
 * knowledge-base service (`src/kb/`) sits above the engine and implements this; the engine
 * only dispatches to it, so the two never import each other.
 */
import type { CanonicalValue, FieldInfo, Row } from '../core/types.js';
import type { QueryContext } from './engine-types.js';
import type { KbStatement } from './parse/index.js';

export type KbFilterOp = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'IN' | 'NOT IN' | 'LIKE' | 'NOT LIKE';

/** One metadata condition the KB evaluates itself, before ranking (so a filter never empties a top-k). */
export interface KbFilter {
  column: string;
  op: KbFilterOp;
  /** A list for IN / NOT IN. */
  value: CanonicalValue | CanonicalValue[];
}

/** What a SELECT asks of one KB: the question, filters, and ranking options taken from its WHERE. */
export interface KbSearch {
  /** `content = '...'`; null: the KB is filtered like a table. */
  query: string | null;
  filters: KbFilter[];
  /** `relevance >= x` (or `>`). */
  minRelevance: number | null;
  hybrid: boolean;
  /** `hybrid_search_alpha`: weight of the vector arm in [0,1] (implies hybrid). */
  alpha: number | null;
  /** Rows wanted (the statement's LIMIT when the KB is its only table); null: the default. */
  limit: number | null;
}

export interface KbRows {
  columns: FieldInfo[];
  rows: Row[];
}

export interface KbRowSource {
  columns: string[];
  batches: AsyncIterable<unknown[][]>;
}

/** What an INSERT INTO kb did, row by row; `affected` = inserted + updated + unchanged. */
export interface KbInsertCounts {
  affected: number;
  inserted: number;
  updated: number;
  /** Same content and metadata as stored: nothing written, nothing embedded. */
  unchanged: number;
  /** Not stored: the row had no content. */
  failed: number;
}

export interface KbInsertOptions {
  signal?: AbortSignal;
  /** Rows handled so far (MCP progress notifications carry `message`). */
  onProgress?: (rows: number, message?: string) => void;
}

export interface KnowledgeBases {
  /** Whether `name` is a knowledge base (case-insensitive); answered from memory. */
  has(name: string): boolean;
  /** How many knowledge bases exist (answered from memory): none, and statements need not be looked through for them. */
  count?(): number;
  /** CREATE / DROP / ALTER / DESCRIBE / SHOW / EVALUATE. */
  run(stmt: KbStatement, ctx: QueryContext): Promise<KbRows | { affected: number }>;
  search(name: string, req: KbSearch, signal?: AbortSignal): Promise<KbRows>;
  /** INSERT INTO kb: rows upserted by id, in batches. */
  insert(name: string, rows: KbRowSource, opts: KbInsertOptions): Promise<KbInsertCounts>;
  /** DELETE FROM kb WHERE id = ... / id IN (...): returns documents deleted. */
  delete(name: string, ids: CanonicalValue[]): Promise<number>;
  /** Flush and close the stores (server shutdown). */
  close?(): Promise<void>;
}
