import { rm, stat } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { columnType, quoteIdent, stringLiteral, valueLiteral } from '../../core/sql-text.js';
import type { FieldInfo, Row } from '../../core/types.js';
import type { QueryOptions, TableWrite } from '../types.js';
import { filesError } from './duck-stream.js';
import { tableExists, unknownTable } from './errors.js';
import { copy } from './ingest.js';
import type { FileRecord } from './record.js';

const duckIdent = (name: string) => quoteIdent('duckdb', name);
const duckString = (value: string) => stringLiteral('duckdb', value);

/** Rows per INSERT into a staging table. */
const INSERT_BATCH_ROWS = 2048;

/** What the writes need of the files source: its tables, locks, connections and registration. */
export interface WriteContext {
  connect(): Promise<DuckDBConnection>;
  get(name: string): FileRecord | null;
  /** The table name, checked as a files table name (SqlError 1103 otherwise). */
  checkSqlName(table: string): string;
  /** Serialises mutations of one table. */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Moves a staged Parquet file into place as table `name` and records it. */
  register(
    name: string,
    format: string,
    staged: string,
    res: { rows: number; columns: number; sizeBytes: number },
  ): Promise<FileRecord>;
  tmpPath(kind: string): string;
  /** A number unique in this process, for scratch names. */
  nextId(): number;
}

/**
 * Writes to file tables. A file table is one Parquet file, so every write produces a new
 * file: CREATE stages the rows and registers them; INSERT/UPDATE/DELETE copy the table into
 * a scratch database, run the statement there and register the result.
 */
export class TableWrites {
  constructor(private readonly ctx: WriteContext) {}

  write(
    op: Exclude<TableWrite, { kind: 'drop' }>,
    opts: QueryOptions,
  ): Promise<{ affectedRows: number | null }> {
    switch (op.kind) {
      case 'create_as':
        return this.createTableAs(op.table, op.select, op.ifNotExists);
      case 'create':
        return this.createEmpty(op.table, op.sqlFor, op.ifNotExists);
      case 'change':
        return this.rewrite(op.table, op.sql, opts);
    }
  }

  /**
   * CREATE TABLE files.t AS SELECT ... over other sources: the engine hands the rows
   * over as one stream; they go through a DuckDB appender into a staging table and
   * then once into Parquet.
   */
  async fromStream(
    table: string,
    columns: FieldInfo[],
    batches: AsyncIterable<Row[]>,
    opts: { ifNotExists?: boolean } = {},
  ): Promise<number> {
    const name = this.ctx.checkSqlName(table);
    if (this.ctx.get(name)) {
      if (opts.ifNotExists) return 0;
      throw tableExists(name);
    }
    return this.ctx.withLock(name, async () => {
      if (this.ctx.get(name)) {
        if (opts.ifNotExists) return 0;
        throw tableExists(name);
      }
      const conn = await this.ctx.connect();
      const stage = `__stage_${this.ctx.nextId()}`;
      const staged = this.ctx.tmpPath('parquet');
      try {
        const defs = columns.map((c) => `${duckIdent(c.name)} ${columnType('duckdb', c.type)}`).join(', ');
        await conn.run(`CREATE TEMP TABLE ${duckIdent(stage)} (${defs})`);
        const cols = columns.map((c) => duckIdent(c.name)).join(', ');
        let pending: string[] = [];
        const flush = async () => {
          if (!pending.length) return;
          await conn.run(`INSERT INTO ${duckIdent(stage)} (${cols}) VALUES ${pending.join(', ')}`);
          pending = [];
        };
        for await (const batch of batches) {
          for (const row of batch) {
            pending.push(`(${row.map((v) => valueLiteral('duckdb', v)).join(', ')})`);
            if (pending.length >= INSERT_BATCH_ROWS) await flush();
          }
        }
        await flush();
        const rows = await copy(conn, `SELECT * FROM ${duckIdent(stage)}`, staged);
        await this.ctx.register(name, 'sql', staged, {
          rows,
          columns: columns.length,
          sizeBytes: (await stat(staged)).size,
        });
        return rows;
      } catch (e) {
        throw filesError(e);
      } finally {
        await conn.run(`DROP TABLE IF EXISTS ${duckIdent(stage)}`).catch(() => {});
        conn.closeSync();
        await rm(staged, { force: true });
      }
    });
  }

  private async createTableAs(
    table: string,
    select: string,
    ifNotExists: boolean,
  ): Promise<{ affectedRows: number }> {
    return this.withNewTable(table, ifNotExists, async (name) => {
      const conn = await this.ctx.connect();
      try {
        return await this.storeSelect(conn, name, select);
      } catch (e) {
        throw filesError(e);
      } finally {
        conn.closeSync();
      }
    });
  }

  private async createEmpty(
    table: string,
    sqlFor: (name: string) => string,
    ifNotExists: boolean,
  ): Promise<{ affectedRows: number }> {
    return this.withNewTable(table, ifNotExists, async (name) => {
      const stage = `__stage_${this.ctx.nextId()}`;
      const conn = await this.ctx.connect();
      try {
        await conn.run(sqlFor(stage));
        return await this.storeSelect(conn, name, `SELECT * FROM ${duckIdent(stage)}`);
      } catch (e) {
        throw filesError(e);
      } finally {
        await conn.run(`DROP TABLE IF EXISTS ${duckIdent(stage)}`).catch(() => {});
        conn.closeSync();
      }
    });
  }

  /** Under the table's lock: refuse (or, with IF NOT EXISTS, skip) an existing name, else create it. */
  private withNewTable(
    table: string,
    ifNotExists: boolean,
    create: (name: string) => Promise<number>,
  ): Promise<{ affectedRows: number }> {
    const name = this.ctx.checkSqlName(table);
    return this.ctx.withLock(name, async () => {
      if (this.ctx.get(name)) {
        if (ifNotExists) return { affectedRows: 0 };
        throw tableExists(name);
      }
      return { affectedRows: await create(name) };
    });
  }

  /** The rows of `select` as the new file table `name`: one Parquet file, registered. Returns rows written. */
  private async storeSelect(conn: DuckDBConnection, name: string, select: string): Promise<number> {
    const staged = this.ctx.tmpPath('parquet');
    try {
      const rows = await copy(conn, select, staged);
      const desc = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${duckString(staged)})`);
      await this.ctx.register(name, 'sql', staged, {
        rows,
        columns: desc.currentRowCount,
        sizeBytes: (await stat(staged)).size,
      });
      return rows;
    } finally {
      await rm(staged, { force: true });
    }
  }

  /**
   * INSERT/UPDATE/DELETE on a file table: load it into a scratch database, run the
   * statement there unchanged (the scratch schema comes first on the search path, so
   * the table name resolves to the copy), and write the result as the new Parquet file.
   */
  private async rewrite(
    table: string,
    sql: string,
    opts: QueryOptions,
  ): Promise<{ affectedRows: number | null }> {
    const rec0 = this.ctx.get(table);
    if (!rec0) throw unknownTable(table);
    return this.ctx.withLock(rec0.name, async () => {
      const rec = this.ctx.get(table);
      if (!rec) throw unknownTable(table);
      const scratch = `w${process.pid}_${this.ctx.nextId()}`;
      const staged = this.ctx.tmpPath('parquet');
      const conn = await this.ctx.connect();
      const onAbort = () => conn.interrupt();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      let attached = false;
      try {
        await conn.run(`ATTACH ':memory:' AS ${duckIdent(scratch)}`);
        attached = true;
        // Through the view: the stored form may still be CSV.
        await conn.run(
          `CREATE TABLE ${duckIdent(scratch)}.${duckIdent(rec.name)} AS SELECT * FROM memory.main.${duckIdent(rec.name)}`,
        );
        await conn.run(`SET search_path = ${duckString(`${scratch}.main,memory.main`)}`);
        const r = await conn.runAndReadAll(sql);
        const affected = Number(r.getRows()[0]?.[0] ?? 0);
        await conn.run(`SET search_path = 'memory.main'`);
        const rows = await copy(conn, `SELECT * FROM ${duckIdent(scratch)}.${duckIdent(rec.name)}`, staged);
        await this.ctx.register(rec.name, rec.format, staged, {
          rows,
          columns: rec.columns,
          sizeBytes: (await stat(staged)).size,
        });
        return { affectedRows: affected };
      } catch (e) {
        throw filesError(e, opts.signal);
      } finally {
        opts.signal?.removeEventListener('abort', onAbort);
        if (attached) await conn.run(`DETACH ${duckIdent(scratch)}`).catch(() => {});
        conn.closeSync();
        await rm(staged, { force: true });
      }
    });
  }
}
