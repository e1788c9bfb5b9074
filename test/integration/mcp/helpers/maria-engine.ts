/**
 * A small SqlEngine over a real MariaDB, so the MCP face can be tested against real
 * answers before (and independently of) the federated engine: each data source is one
 * MariaDB database, queries run as written. It honours the ExecOptions contract the MCP
 * face relies on: readOnly (1290), maxRows (truncated), onProgress, signal (KILL QUERY).
 */
import mysql from 'mysql2';
import { ErrorCode, SqlError } from '../../../../src/core/errors.js';
import type { ColumnInfo, MysqlType } from '../../../../src/core/types.js';
import type { TableInfo } from '../../../../src/sources/types.js';
import type { ExecOptions, QueryContext, RowStream, SqlEngine } from '../../../../src/sql/engine-types.js';
import type { Result } from '../../../../src/sql/result.js';
import { MARIADB } from '../../../helpers/services.js';

const READS = /^\s*\(?\s*(select|show|describe|desc|explain|with)\b/i;

export class MariaEngine implements SqlEngine {
  /** Every statement run, as the engine saw it (tests check what reached the database). */
  readonly seen: { sql: string; ctx: QueryContext; opts: ExecOptions }[] = [];

  constructor(readonly databases: string[]) {}

  private connect(database?: string): mysql.Connection {
    return mysql.createConnection({
      ...MARIADB,
      database,
      dateStrings: true,
      supportBigNumbers: true,
    });
  }

  private known(db: string): string {
    const hit = this.databases.find((d) => d.toLowerCase() === db.toLowerCase());
    if (!hit) throw new SqlError(ErrorCode.UNKNOWN_DATABASE, `Unknown database '${db}'`);
    return hit;
  }

  async execute(sql: string, ctx: QueryContext = {}, opts: ExecOptions = {}): Promise<Result> {
    this.seen.push({ sql, ctx: { ...ctx }, opts });
    try {
      if (opts.readOnly && !READS.test(sql)) {
        throw new SqlError(ErrorCode.READ_ONLY, 'The server is in read-only mode: only reads are allowed');
      }
      const use = /^\s*use\s+`?([\w$]+)`?\s*;?\s*$/i.exec(sql);
      if (use) {
        ctx.db = this.known(use[1]);
        return { type: 'ok', affected_rows: 0 };
      }
      if (/^\s*show\s+knowledge_bases/i.test(sql)) {
        throw new SqlError(ErrorCode.SYNTAX, 'You have an error in your SQL syntax near KNOWLEDGE_BASES');
      }
      return await this.run(sql, ctx.db ? this.known(ctx.db) : undefined, opts);
    } catch (e) {
      if (e instanceof SqlError) return { type: 'error', error_code: e.code, error_message: e.message };
      throw e;
    }
  }

  private run(sql: string, database: string | undefined, opts: ExecOptions): Promise<Result> {
    const conn = this.connect(database);
    const max = opts.maxRows ?? Number.POSITIVE_INFINITY;
    return new Promise<Result>((resolve) => {
      let columns: string[] | null = null;
      const data: unknown[][] = [];
      let truncated = false;
      let settled = false;
      let affected: number | null = null;
      const finish = (r: Result) => {
        if (settled) return;
        settled = true;
        opts.signal?.removeEventListener('abort', onAbort);
        conn.destroy();
        resolve(r);
      };
      const onAbort = () => {
        // Stop the statement on the server, not only here.
        const killer = this.connect();
        killer.query(`KILL QUERY ${conn.threadId}`, () => killer.end());
        finish({
          type: 'error',
          error_code: ErrorCode.QUERY_INTERRUPTED,
          error_message: 'Query execution was interrupted',
        });
      };
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const q = conn.query({ sql, rowsAsArray: true });
      q.on('fields', (fields: { name: string }[] | undefined) => {
        if (fields) columns = fields.map((f) => f.name);
      });
      q.on('result', (row: unknown) => {
        if (!Array.isArray(row)) {
          affected = (row as { affectedRows?: number }).affectedRows ?? null;
          return;
        }
        if (data.length >= max) {
          truncated = true;
          return;
        }
        data.push(row);
        if (data.length % 500 === 0) opts.onProgress?.(data.length);
      });
      q.on('error', (e: Error & { errno?: number }) => {
        const code = e.errno === 1051 ? ErrorCode.UNKNOWN_TABLE : (e.errno ?? ErrorCode.SOURCE_ERROR);
        finish({ type: 'error', error_code: code, error_message: e.message });
      });
      q.on('end', () => {
        if (columns) {
          const r: Result = { type: 'table', column_names: columns, data };
          if (truncated) r.truncated = true;
          finish(r);
        } else finish({ type: 'ok', affected_rows: affected });
      });
    });
  }

  async stream(sql: string, ctx?: QueryContext, opts?: ExecOptions): Promise<RowStream | Result> {
    return this.execute(sql, ctx, opts);
  }

  async listDatabases(): Promise<string[]> {
    return [...this.databases];
  }

  private async info(sql: string, params: string[]): Promise<Record<string, string>[]> {
    const conn = this.connect();
    try {
      return await new Promise((resolve, reject) =>
        conn.query(sql, params, (err, rows) =>
          err ? reject(err) : resolve(rows as Record<string, string>[]),
        ),
      );
    } finally {
      conn.end();
    }
  }

  async listTables(db: string): Promise<TableInfo[]> {
    const name = this.known(db);
    const rows = await this.info(
      'SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME',
      [name],
    );
    return rows.map((r) => ({
      name: r.TABLE_NAME,
      schema: name,
      type: r.TABLE_TYPE === 'VIEW' ? 'VIEW' : 'BASE TABLE',
    }));
  }

  async listColumns(db: string, table: string): Promise<ColumnInfo[]> {
    const name = this.known(db);
    const rows = await this.info(
      'SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION',
      [name, table],
    );
    if (rows.length === 0)
      throw new SqlError(ErrorCode.UNKNOWN_TABLE, `Table '${name}.${table}' doesn't exist`);
    return rows.map((r) => ({
      name: r.COLUMN_NAME,
      type: mysqlType(r.DATA_TYPE, r.COLUMN_TYPE),
      nativeType: r.COLUMN_TYPE,
      nullable: r.IS_NULLABLE === 'YES',
    }));
  }

  async close(): Promise<void> {}
}

function mysqlType(dataType: string, columnType: string): MysqlType {
  const t = dataType.toUpperCase();
  if (t === 'TINYINT' && columnType.toLowerCase() === 'tinyint(1)') return 'BOOLEAN';
  if (t === 'LONGTEXT' || t === 'MEDIUMTEXT' || t === 'TINYTEXT') return 'TEXT';
  if (t === 'MEDIUMINT') return 'INT';
  return t as MysqlType;
}
