import { mkdirSync } from 'node:fs';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { ErrorCode, SqlError } from '../../core/errors.js';
import { sweepOrphans } from '../../core/orphan-files.js';
import { streamDuckQuery } from '../../sources/duckdb/stream.js';
import type { QueryStream } from '../../sources/types.js';

/** Named pipes fragments stream through (run-plan.ts `takeFifo`): `pipe-<pid>-<n>.fifo`. */
export const FIFO_NAME = /^pipe-(\d+)-\d+\.fifo$/;

/**
 * The local DuckDB: runs what no single source can (cross-source joins, aggregates
 * over fragments, information_schema). One in-memory instance per engine; one
 * connection per query so temp tables are private to it and vanish with it.
 */
export class LocalEngine {
  private constructor(
    private readonly instance: DuckDBInstance,
    /** Where fragments may spill to disk (CSV exports, DuckDB's own temp files). */
    readonly tempDir: string,
  ) {}

  static async create(opts: {
    threads?: number;
    memoryLimit?: string;
    tempDir: string;
  }): Promise<LocalEngine> {
    mkdirSync(opts.tempDir, { recursive: true, mode: 0o700 });
    // Pipes of a server that was killed outright (no exit ran to remove them).
    sweepOrphans(opts.tempDir, FIFO_NAME);
    const config: Record<string, string> = {};
    if (opts.threads) config.threads = String(opts.threads);
    if (opts.memoryLimit) config.memory_limit = opts.memoryLimit;
    config.temp_directory = opts.tempDir;
    // No extension downloads can happen here; keep DuckDB from trying.
    config.autoinstall_known_extensions = 'false';
    config.autoload_known_extensions = 'true';
    const instance = await DuckDBInstance.create(':memory:', config);
    await lockDown(instance, opts.tempDir);
    return new LocalEngine(instance, opts.tempDir);
  }

  /** Idle connections for statements that load nothing (SELECT 1, CTEs of constants). */
  private readonly idle: DuckDBConnection[] = [];

  /** A pooled connection: only for statements that leave no state on it (no SET, no temp objects). */
  async pooled(): Promise<DuckDBConnection> {
    return this.idle.pop() ?? (await this.instance.connect());
  }

  private giveBack(conn: DuckDBConnection): void {
    if (this.idle.length < 4) this.idle.push(conn);
    else conn.closeSync();
  }

  async connect(): Promise<DuckDBConnection> {
    return this.instance.connect();
  }

  /**
   * Run a row-returning statement on `conn` as a stream of canonical batches. At the end
   * `conn` is closed if `own` is true, or given back to the pool if it is 'pooled' (an
   * interrupted connection is not reused: its next statement must not inherit anything).
   */
  query(
    conn: DuckDBConnection,
    sql: string,
    own: boolean | 'pooled',
    signal?: AbortSignal,
  ): Promise<QueryStream> {
    return streamDuckQuery(conn, sql, {
      signal,
      mapError: localError,
      onDone: (interrupted) => {
        if (own === 'pooled' && !interrupted) this.giveBack(conn);
        else if (own) conn.closeSync();
      },
    });
  }

  close(): void {
    for (const c of this.idle.splice(0)) c.closeSync();
    this.instance.closeSync();
    // This process's pipes kept for reuse (run-plan.ts): nothing reads them any more.
    sweepOrphans(this.tempDir, FIFO_NAME, true);
  }
}

/**
 * The local engine runs SQL compiled from what callers wrote: it may touch no file but its
 * own temp dir (fragments arrive there through named pipes), reach no network, load no
 * extension, and no statement can change that (the configuration is locked).
 */
async function lockDown(instance: DuckDBInstance, tempDir: string): Promise<void> {
  const conn = await instance.connect();
  try {
    const dir = `'${tempDir.replace(/'/g, "''")}'`;
    await conn.run(`SET allowed_directories = [${dir}]`);
    await conn.run('SET enable_external_access = false');
    await conn.run('SET lock_configuration = true');
  } finally {
    conn.closeSync();
  }
}

/** DuckDB's own errors become SqlErrors with its message kept (and the right code when one fits). */
export function localError(e: unknown, signal?: AbortSignal): SqlError {
  if (e instanceof SqlError) return e;
  const msg = (e as Error)?.message ?? String(e);
  if (signal?.aborted || /INTERRUPT/i.test(msg))
    return new SqlError(ErrorCode.QUERY_INTERRUPTED, 'Query execution was interrupted');
  if (/Parser Error/i.test(msg))
    return new SqlError(ErrorCode.SYNTAX, `Local engine could not run the query: ${msg}`);
  const col =
    /Referenced column "?([^"\s]+)"? not found/i.exec(msg) ??
    /column "?([^"\s]+)"? (not found|does not exist)/i.exec(msg);
  if (col)
    return new SqlError(
      ErrorCode.UNKNOWN_COLUMN,
      `Unknown column '${col[1]}' in the query (${msg.split('\n')[0]})`,
    );
  return new SqlError(ErrorCode.SOURCE_ERROR, `Local engine error: ${msg.split('\n')[0]}`);
}
