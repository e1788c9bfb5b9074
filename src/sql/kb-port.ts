/**
 * What the engine asks of knowledge bases (docs/reference/sql.md, "Knowledge bases"). The
 * knowledge-base service (`src/kb/`) sits above the engine and implements this; the engine
 * only dispatches to it, so the two never import each other.
 */
import type { CanonicalValue, ColumnInfo, FieldInfo, MysqlType, Row } from '../core/types.js';
import type { QueryContext } from './engine-types.js';
import type { KbStatement } from './parse/index.js';

export type KbFilterOp =
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'IN'
  | 'NOT IN'
  | 'LIKE'
  | 'NOT LIKE'
  | 'BETWEEN'
  | 'NOT BETWEEN'
  | 'IS NULL'
  | 'IS NOT NULL';
/** One condition on `id`, `chunk_id`, `chunk_content` or a metadata column. `value`: the literal; a list for IN / NOT IN; `[low, high]` for BETWEEN; null for IS [NOT] NULL. */
export interface KbFilter {
  column: string;
  op: KbFilterOp;
  value: CanonicalValue | CanonicalValue[];
}
/** A condition the KB evaluates before ranking; NOT is folded into the leaves (De Morgan), so a row passes when the tree is true. */
export type KbCondition = KbFilter | { and: KbCondition[] } | { or: KbCondition[] };

/** What a SELECT asks of one KB: the question, filters, and ranking options taken from its WHERE. */
export interface KbSearch {
  /** `content = '...'`; null: the KB is filtered like a table. */
  query: string | null;
  /** Conditions the KB agreed to evaluate before ranking (ANDed). */
  filters: KbCondition[];
  /** `relevance >= x` (or `>`). */
  minRelevance: number | null;
  hybrid: boolean;
  /** `hybrid_search_alpha`: weight of the vector arm in [0,1] (implies hybrid). */
  alpha: number | null;
  /** Rows wanted (the statement's LIMIT when the KB is its only table); null: the default. */
  limit: number | null;
  /** `AND reranking = false`: skip the reranking model for this search (default true). */
  reranking: boolean;
}

export interface KbRows {
  columns: FieldInfo[];
  rows: Row[];
}

export interface KbRowSource {
  columns: string[];
  /** Each column's MySQL type where the rows' producer knows it (a SELECT's result columns): metadata keeps it. */
  types?: (MysqlType | null)[];
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
  /** The columns a search of `name` returns (the relation's type), in order. */
  columns(name: string): Promise<ColumnInfo[]>;
  /** Whether the KB evaluates condition `c` before ranking exactly, inexactly (re-checked locally) or not at all. */
  filterSupport(name: string, c: KbCondition): 'exact' | 'inexact' | 'unsupported';
  /** kb.max_results: the most hits one search may return (a larger LIMIT or answer is 1210). */
  readonly maxResults?: number;
  /** INSERT INTO kb: rows upserted by id, in batches. */
  insert(name: string, rows: KbRowSource, opts: KbInsertOptions): Promise<KbInsertCounts>;
  /** DELETE FROM kb WHERE id = ... / id IN (...): returns documents deleted. */
  delete(name: string, ids: CanonicalValue[]): Promise<number>;
  /** Flush and close the stores (server shutdown). */
  close?(): Promise<void>;
  /**
   * Re-read the KBs from the catalog now (another replica may have made one a moment ago and
   * its NOTIFY not arrived yet); true when anything changed.
   */
  sync?(): Promise<boolean>;
}
