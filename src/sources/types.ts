import type { ColumnInfo, DialectName, FieldInfo, Row } from '../core/types.js';

export interface TableInfo {
  name: string;
  /** The source's own schema: `public` for a default postgres source, the database name for mysql, `main` for sqlite/duckdb. */
  schema: string;
  type: 'BASE TABLE' | 'VIEW';
  /** The source's row estimate (statistics; exact for files); null when it has none. */
  rows?: number | null;
  /** The table's comment in the source. */
  comment?: string;
}

/**
 * What a source can take from the planner, declared up front (DataFusion's
 * supports_filters_pushdown / Trino's applyX): the planner never guesses.
 */
export interface PushdownCapabilities {
  /** Whole statements in `dialect` (joins, aggregates, subqueries, windows) can run on the source. */
  fullStatements: boolean;
  /** Column projection in fragments. */
  projection: boolean;
  /** WHERE conjuncts in fragments: 'exact' (source result is final), 'inexact' (engine re-checks), 'none'. */
  filters: 'exact' | 'inexact' | 'none';
  /** LIMIT in fragments. */
  limit: boolean;
}

/** A running query on a source. `columns` are known before the first batch is read. */
export interface QueryStream {
  columns: FieldInfo[];
  /** Row batches (arrays of rows in column order, canonical values; see sql/types.ts). */
  batches: AsyncIterable<Row[]>;
  /** Stop the query on the source and release its connection. Safe to call twice or after the end. */
  cancel(): Promise<void>;
}

export interface QueryOptions {
  signal?: AbortSignal;
  /** Hint for batch size; sources may ignore it. */
  batchRows?: number;
  /**
   * Run in the source's own read-only mode (api.mcp.read_only): a read-only session or
   * handle, and the text checked by `sources/read-only.ts`. A source created with
   * `read_only: true` always runs this way and refuses every write with 1290.
   */
  readOnly?: boolean;
  /**
   * A key equal for statements that differ only in plain literals (the engine's shape key),
   * when the caller has one: sources that keep per-shape state need not compute their own.
   */
  shape?: string;
  /**
   * Run on this connection, held for a transaction (`Source.hold`), instead of one from the
   * pool: the statement sees the transaction's own uncommitted writes and is part of it.
   * Only a connection this source handed out.
   */
  held?: HeldConnection;
}

/**
 * One connection of a source kept for a client's transaction (the MySQL face's START
 * TRANSACTION / autocommit off; docs/reference/wire.md): the source has begun a transaction
 * on it, statements given it in `QueryOptions.held` run there, and `end` commits or rolls
 * back and gives the connection back. A connection lost meanwhile (killed, broken, a result
 * abandoned mid-way) is rolled back by its server; `lost` says so.
 */
export interface HeldConnection {
  /** The source it belongs to (its name, for messages). */
  readonly source: string;
  /** True once the connection is gone: the transaction was rolled back by the source's server. */
  readonly lost: boolean;
  /** COMMIT (true) or ROLLBACK (false), then back to the pool; safe to call once, after a loss too. */
  end(commit: boolean): Promise<void>;
  /** SAVEPOINT / RELEASE SAVEPOINT / ROLLBACK TO SAVEPOINT `name` on the connection. */
  savepoint(op: SavepointOp, name: string): Promise<void>;
}

export type SavepointOp = 'savepoint' | 'release' | 'rollback_to';

export interface Source {
  readonly name: string;
  readonly engine: string;
  /** null for sources that take no SQL (rest_api). */
  readonly dialect: DialectName | null;
  readonly capabilities: PushdownCapabilities;
  /** Default schema for unqualified tables (`public`, the mysql database name, `main`). */
  readonly defaultSchema: string;
  /**
   * The pseudo-column giving a base table's rows in scan order (PostgreSQL `ctid`, DuckDB
   * and SQLite `rowid`), when the source has one: grouping on text in two phases keeps
   * MySQL's choice of a group's spelling with it (sql/dialects/two-phase.ts).
   */
  readonly rowMarker?: string;
  /**
   * How statements sent to this source compare text: 'mysql' (MySQL's collation, emulated
   * where the source differs) or 'source' (the source's own rules and indexes). Absent: 'mysql'.
   */
  readonly collation?: 'mysql' | 'source';

  listTables(): Promise<TableInfo[]>;
  /** Throws SqlError 1146 naming source and table when the table does not exist. */
  listColumns(table: string, schema?: string): Promise<ColumnInfo[]>;
  /** Run a row-returning statement written in `dialect`. */
  query(sql: string, opts?: QueryOptions): Promise<QueryStream>;
  /** Run a statement that returns no rows; affected rows or null when the source does not say. */
  execute(sql: string, opts?: QueryOptions): Promise<{ affectedRows: number | null }>;
  /**
   * Optional: table-level writes as typed operations, for sources that store whole tables
   * (files: one Parquet file per table) and so must know which table a statement changes.
   * A source with this gets every CREATE TABLE, DROP TABLE, INSERT, UPDATE and DELETE here
   * instead of through `execute`, and never has to parse SQL text back.
   */
  writeTable?(op: TableWrite, opts?: QueryOptions): Promise<{ affectedRows: number | null }>;
  /**
   * Optional: create `table` from rows in one pass, for CREATE TABLE s.t AS SELECT that
   * reads other sources. Sources that store whole tables (files: one Parquet file per
   * table) implement it; the others get CREATE TABLE plus INSERT batches. Returns rows written.
   */
  createTableFromStream?(
    table: string,
    columns: FieldInfo[],
    batches: AsyncIterable<Row[]>,
    opts?: { ifNotExists?: boolean },
  ): Promise<number>;
  /**
   * Optional fast path for cross-source fragments: write the rows of `sql` (in `dialect`)
   * to `dest` as CSV with no header, NULL as an unquoted empty field and '' quoted, in
   * the column order of the statement. PostgreSQL does it with COPY ... TO STDOUT, which
   * skips parsing rows in JS entirely. `dest` is ended or destroyed however the call ends,
   * failures before the first row included: a reader on a named pipe waits for its end.
   */
  exportCsv?(sql: string, dest: NodeJS.WritableStream, opts?: QueryOptions): Promise<void>;
  /**
   * Optional: spellings of text columns the source's statistics know (PostgreSQL's
   * `pg_stats.most_common_vals`), by column name. The compiler decides a MySQL-equal
   * comparison by plain comparisons for them (sql/dialects/collation.ts); answers never
   * depend on it, so stale or missing statistics only cost speed.
   */
  knownValues?(table: string, schema: string | null, columns: string[]): Promise<Map<string, string[]>>;
  /**
   * Optional (MySQL and MariaDB sources): run a SELECT and hand its result's raw text-protocol
   * row packets to `sink` untouched, for the MySQL wire face to relay byte for byte. Resolves
   * to the number of rows relayed, or to null, before anything reached the sink, when the
   * result has a column whose bytes the normal path would re-encode differently (FLOAT,
   * DOUBLE, BIT, JSON, ...): the caller then runs the statement the normal way.
   */
  relayQuery?(sql: string, sink: ResultPacketSink, opts?: QueryOptions): Promise<number | null>;
  /**
   * Optional (sources whose writes can be rolled back: postgres, mysql/mariadb, sqlite,
   * duckdb): take one connection out of the pool and begin a transaction on it. Sources
   * without it apply each write at once, as MySQL does for a non-transactional table.
   */
  hold?(signal?: AbortSignal): Promise<HeldConnection>;
  /** Optional: the connection pool's use now (metrics), for sources with a pool. */
  poolStats?(): import('./pool-gate.js').PoolStats;
  /** Try the connection (used by CREATE DATABASE before anything is stored). Throws SqlError 2003/1045/1049. */
  test(): Promise<void>;
  /** Close pools; the source is unusable afterwards. */
  close(): Promise<void>;
}

/** Where `Source.relayQuery` hands a result's packets. */
export interface ResultPacketSink {
  /**
   * The result's columns (MySQL type names as `query` reports them), before any row.
   * `resume` restarts the reading after `row` answered false.
   */
  head(columns: FieldInfo[], resume: () => void): void;
  /** One row packet's payload, `buf[start..end)`, valid only during the call. False: pause the source. */
  row(buf: Buffer, start: number, end: number): boolean;
}

/** Collects a stream into memory; for small results only (tests, metadata). */
export async function collect(stream: QueryStream): Promise<{ columns: FieldInfo[]; rows: Row[] }> {
  const rows: Row[] = [];
  for await (const batch of stream.batches) for (const r of batch) rows.push(r);
  return { columns: stream.columns, rows };
}

/**
 * A write on one table of a source (see `Source.writeTable`). SQL in it is in the source's
 * dialect and names tables without a database, as the source sees them.
 */
export type TableWrite =
  /** CREATE TABLE t AS SELECT, the SELECT reading only this source. */
  | { kind: 'create_as'; table: string; ifNotExists: boolean; select: string }
  /** CREATE TABLE t (columns): `sqlFor(name)` is the statement creating that definition as `name`. */
  | { kind: 'create'; table: string; ifNotExists: boolean; sqlFor: (name: string) => string }
  | { kind: 'drop'; table: string; ifExists: boolean }
  /** INSERT, UPDATE or DELETE on `table`, reading only this source. */
  | { kind: 'change'; table: string; sql: string };
