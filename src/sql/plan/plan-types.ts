/**
 * What the planner produces and asks for: the plan (pushed down whole, or fragments plus a
 * local statement), its fragments and dynamic filters, and the lookups it plans with. Types
 * only, so the planner's modules depend on this file and not on each other.
 */

import type { ColumnInfo, ColumnOrigin } from '../../core/types.js';
import type { Source } from '../../sources/types.js';
import type { ResultType } from '../dialects/infer.js';
import type { KbCondition, KbSearch } from '../kb-port.js';
import type { BoundRef } from './bind.js';
import type { PushedFilter } from './fragments.js';
import type { KDecision } from './kb-k.js';

export interface KbPart {
  ref: BoundRef;
  temp: string;
  search: KbSearch;
  /** `content IN (...)`: one search per question, each chunk once with its best relevance; [] without a question. */
  queries: string[];
  /** How many hits to fetch, and why (kb-k.ts; EXPLAIN says it). */
  k: KDecision;
  /** Conditions the KB agreed to evaluate (EXPLAIN). */
  pushed: { text: string; support: 'exact' | 'inexact' }[];
  /** Conditions on the KB alone filtered locally before k counts the hits (EXPLAIN; `prefilter`). */
  local: string[];
  /** The relation's columns: the local table is loaded with exactly these. */
  columns: ColumnInfo[];
  /** kb.max_results. */
  maxResults: number;
  /**
   * DuckDB SQL keeping the hits (loaded as `<temp>__hits`) that pass the conditions on the
   * KB alone that it did not take exactly, in rank order; null when it took them all.
   */
  prefilter: string | null;
}

/** What the planner asks of knowledge bases (kb-port.ts KnowledgeBases). */
export interface KbLookup {
  columns(name: string): Promise<ColumnInfo[]>;
  filterSupport(name: string, c: KbCondition): 'exact' | 'inexact' | 'unsupported';
  maxResults: number;
}

export interface Fragment {
  ref: BoundRef;
  source: Source;
  /** SQL in the source's dialect. */
  sql: string;
  /** Local temp table the fragment's rows land in. */
  temp: string;
  columns: string[];
  /** Metadata of `columns`, in order (for loaders that need types before the first row). */
  columnInfo: ColumnInfo[];
  /** The filters the source agreed to, exact or inexact (EXPLAIN). */
  filters: PushedFilter[];
  /** LIMIT pushed to the source (offset included), or null. */
  limit: number | null;
  /**
   * The fragment's SQL with one more filter, `column IN (keys)`, for dynamic filtering;
   * null when the source cannot say it.
   */
  withKeys(column: string, keys: unknown[]): string | null;
}

export type Plan = (
  | {
      kind: 'pushdown';
      source: Source;
      sql: string;
      /** Result columns whose MySQL type the statement settles (infer.ts resultTypes). */
      retype?: ResultType[];
      /** Where each result column comes from, null for an expression (origins.ts). */
      origins?: (ColumnOrigin | null)[];
    }
  | {
      kind: 'local';
      fragments: Fragment[];
      info: BoundRef[];
      /** Knowledge bases read: each answers its search (kb-search.ts) into a local table. */
      kb: KbPart[];
      localSql: string;
      /** Fragments whose join keys narrow another's (dynamic-filters.ts). */
      dynamic: DynamicFilter[];
      retype?: ResultType[];
      origins?: (ColumnOrigin | null)[];
    }
) & {
  /** What the access policy did to the tables read, one line per table (EXPLAIN; Engine.plan). */
  policy?: string[];
};

export interface PlanLookup {
  source(name: string): Promise<Source>;
  columns(source: Source, schema: string | null, table: string): Promise<ColumnInfo[]>;
  /** The default database (context.db / USE), if any: where a statement without tables may run. */
  defaultSource?(): Promise<Source | null>;
  /** Whether a table is a base table or a view (TableInfo.type), cached; null when unknown. */
  tableType?(source: Source, schema: string | null, table: string): Promise<string | null>;
  /** Knowledge bases, when the statement reads one. */
  kb?: KbLookup;
  /** Spellings of text columns the source's statistics know (Source.knownValues), cached. */
  knownValues?(
    source: Source,
    schema: string | null,
    table: string,
    columns: string[],
  ): Promise<Map<string, string[]>>;
}

export interface DynamicFilter {
  /** Index in the plan's fragments of the side loaded first. */
  build: number;
  /** Its join column, as loaded in the local engine. */
  buildColumn: string;
  /** Index of the side narrowed by the build side's keys. */
  probe: number;
  /** Its join column, as its source names it. */
  probeColumn: string;
  maxKeys: number;
}
