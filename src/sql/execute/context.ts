/**
 * What the statement helpers of execute/ (services, writes, information_schema) need of the
 * engine, DataFusion's `Session` in small: the sources, the local engine, planning, and the
 * caches to drop after a change. The engine implements it; the helpers depend on this file,
 * not on the engine, so the two do not import each other.
 */
import type { SourceManager } from '../../catalog/source-manager-types.js';
import type { ColumnInfo } from '../../core/types.js';
import type { Source, TableInfo } from '../../sources/types.js';
import type { SqlStatement } from '../ast/nodes.js';
import type { ExecOptions, QueryContext } from '../engine-types.js';
import type { Plan } from '../plan/plan-types.js';
import type { PolicyView } from '../policy/enforce.js';
import type { RowCounts } from '../result.js';
import type { LocalEngine } from './local.js';
import type { RunOptions } from './run-plan.js';
import type { MemTable } from './show.js';

export interface ExecutionContext {
  readonly sources: SourceManager;
  readonly local: LocalEngine;
  /** `size`: the statement text's length (a big statement lets others run between stages). */
  plan(ast: SqlStatement, ctx: QueryContext, size?: number): Promise<Plan>;
  runOpts(opts: ExecOptions): RunOptions;
  /** Drop cached metadata and plans (after DDL, DROP DATABASE, or a catalog change). */
  forgetColumns(): void;
  /** A source or table appeared, changed or went (SqlEngine.schemaChanged). */
  schemaChanged(): void;
  listDatabases(): Promise<string[]>;
  listTables(db: string): Promise<TableInfo[]>;
  columns(source: Source, schema: string | null, table: string): Promise<ColumnInfo[]>;
  /** The columns of knowledge base `name` (a search's relation), or null when there is no such KB. */
  kbColumns?(name: string): Promise<ColumnInfo[]> | null;
  /** What exists for the statement's principal under the access policy (listings); null: everything. */
  view(ctx: QueryContext): PolicyView | null;
}

/** What a statement produced before encoding: rows to stream, a small table, or an ok. */
export type Outcome =
  | { kind: 'stream'; stream: import('../../sources/types.js').QueryStream }
  | { kind: 'table'; table: MemTable }
  | { kind: 'ok'; affected: number | null; counts?: RowCounts };
