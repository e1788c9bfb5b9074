import type { ColumnInfo, FieldInfo } from '../core/types.js';
import type { Caller } from '../observe/statement.js';
import type { ResultPacketSink, TableInfo } from '../sources/types.js';
import type { ProcessList } from './execute/processlist.js';
import type { ErrorResult, Result } from './result.js';
import type { Transaction } from './transaction.js';

export type { ResultPacketSink } from '../sources/types.js';

/** How `relay` ended: rows relayed, an error (the sink may have had the columns), or not relayed. */
export type RelayOutcome = { type: 'relayed'; rows: number } | ErrorResult | null;

/** Who runs a statement (SPEC section 12; docs/reference/http.md#principals, policy.md). */
export interface StatementPrincipal {
  user: string;
  groups: string[];
  /** TRIBUTARY_USERNAME with token auth, and `local` with auth none: sees and may do everything. */
  admin: boolean;
}

/** Per-session state: the default database (context.db / USE). `USE x` mutates it. */
export interface QueryContext {
  db?: string;
  /** Who runs the statement (SPEC section 12): `local` with auth none; the user with token auth; the token's sub with OAuth. */
  principal?: StatementPrincipal;
}

export interface ExecOptions {
  signal?: AbortSignal;
  /**
   * The caller's switch for this statement, lent instead of `signal` (which it replaces): the
   * engine aborts it itself on time-out or shutdown, so no controller is chained per
   * statement. Once aborted it must not serve another statement.
   */
  abort?: AbortController;
  /** Refuse anything but reads with error 1290 (api.mcp.read_only). */
  readOnly?: boolean;
  /** Stop reading after this many rows and mark the result `truncated: true`. */
  maxRows?: number;
  /**
   * Also stop before the answer's JSON (`{"type":"table","column_names":[...],"data":[...],"truncated":true}`)
   * would pass this many bytes (the MCP budget, api.mcp.max_result_bytes).
   */
  maxBytes?: number;
  /**
   * When the answer is cut (maxRows / maxBytes), the rows past the cut are offered here
   * instead of being dropped (MCP result handles); the statement ends once this settles,
   * so its time limit still holds while the rest is read.
   */
  keepRest?: (rest: RestOfRows) => Promise<void>;
  /**
   * This call's own time limit (MCP `_meta`, an HTTP header): the statement is cancelled and
   * answered 3024 after the smaller of it and query.timeout_ms.
   */
  timeoutMs?: number;
  /** Who asked and through which face (audit log, metrics); absent: an internal statement, not reported. */
  caller?: Caller;
  /** Progress of a long statement: rows read so far (rows stored, for INSERT INTO a KB, with a message). */
  onProgress?: (rows: number, message?: string) => void;
  /**
   * The connection's transaction (the MySQL face): writes inside it run on one held
   * connection of their source, and reads of that source too. Absent: each statement commits.
   */
  transaction?: Transaction;
}

/** The rows of a cut answer: those in it, and the ones after, still to be read. */
export interface RestOfRows {
  column_names: string[];
  /** The rows the answer holds (encoded). */
  shown: unknown[][];
  /**
   * The rows after them, encoded, in batches. Reading may stop at any point; a failure of
   * the statement (its time limit, a source error) is thrown from here.
   */
  batches: AsyncIterable<unknown[][]>;
}

/** A row result whose rows are not yet read; values already encoded per docs/reference/sql.md. */
export interface RowStream {
  type: 'rows';
  columns: FieldInfo[];
  batches: AsyncIterable<unknown[][]>;
  cancel(): Promise<void>;
}

/** The one engine every face (HTTP, MCP, CLI) calls. Never throws for SQL problems: errors are results. */
export interface SqlEngine {
  /**
   * `listener` runs when what the schema resources list may have changed: a source, table
   * (DDL run here), file or knowledge base appeared, changed or went, here or on another
   * replica (start.ts wires the catalog's change feeds in). Returns the unsubscribe.
   */
  onSchemaChanged?(listener: () => void): () => void;
  /** Tell the listeners of onSchemaChanged (one call per change; they debounce). */
  schemaChanged?(): void;
  execute(sql: string, ctx?: QueryContext, opts?: ExecOptions): Promise<Result>;
  /** Same as execute, but row results stream (for large HTTP answers). Errors before the first row are results. */
  stream(sql: string, ctx?: QueryContext, opts?: ExecOptions): Promise<RowStream | Result>;
  /**
   * Optional (the MySQL wire face): when the statement is a plain SELECT pushed down whole to
   * a source that relays result packets (Source.relayQuery), run it there and hand the raw
   * rows to `sink`; null, with nothing run and nothing in the sink, for any other statement.
   * Deadline, cancellation and reporting (observe/) are those of `stream`.
   */
  relay?(sql: string, ctx: QueryContext, opts: ExecOptions, sink: ResultPacketSink): Promise<RelayOutcome>;
  /**
   * Names of data sources, `files` first. With a principal, only what it may read under the
   * access policy (docs/reference/policy.md): the rest does not exist for it.
   */
  listDatabases(principal?: StatementPrincipal): Promise<string[]>;
  /** Throws SqlError 1049 for an unknown source (or one the principal may not read). */
  listTables(db: string, principal?: StatementPrincipal): Promise<TableInfo[]>;
  /** Throws SqlError 1049 / 1146; hidden columns are left out for the principal. */
  listColumns(db: string, table: string, principal?: StatementPrincipal): Promise<ColumnInfo[]>;
  /** Running statements of every face and the MySQL connections (SHOW PROCESSLIST, KILL). */
  readonly processes?: ProcessList;
  /** Cancel every running statement (server shutdown); each answers 1053. Returns how many. */
  stopStatements?(): number;
  /** Statements of every face running now (a drain waits for none). */
  runningStatementCount?(): number;
  close(): Promise<void>;
}
