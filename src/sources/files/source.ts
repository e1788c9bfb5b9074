import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Logger } from 'pino';
import type { FileRecord } from '../../catalog/types.js';
import { ErrorCode, SqlError } from '../../sql/errors.js';
import { columnTypeFor, literalFor } from '../../sql/plan/target-names.js';
import type { ColumnInfo, FieldInfo, Row } from '../../sql/types.js';
import { duckTypeToMysql as mysqlTypeOf } from '../duckdb/values.js';
import type { PushdownCapabilities, QueryOptions, QueryStream, Source, TableInfo } from '../types.js';
import { filesError, streamQuery } from './duck-stream.js';
import { FileError } from './errors.js';
import { declaredFormat, type FileFormat, refineJson, sniffFormat } from './formats.js';
import { copy, ingestToParquet } from './ingest.js';
import { checkTableName } from './names.js';
import { receiveToFile } from './receive.js';
import { ident, lit } from './sql-text.js';
import { parseFilesStatement } from './statements.js';

/** The part of the catalog the files source uses (CatalogStore satisfies it). */
export interface FileRecordStore {
  listFiles(): Promise<FileRecord[]>;
  putFile(rec: FileRecord): Promise<void>;
  deleteFile(name: string): Promise<boolean>;
}

export interface FilesSourceOptions {
  storageDir: string;
  store: FileRecordStore;
  logger: Logger;
  /** DuckDB memory limit for ingest and queries (spills to disk past it). */
  memoryLimit?: string;
  threads?: number;
  /** Memory limit of the DuckDB that ingests one upload (default 128MB; spills to disk past it). */
  ingestMemoryLimit?: string;
}

export interface UploadOptions {
  /** `?format=`; else the file name's extension, the content type, then the first bytes. */
  format?: string | null;
  fileName?: string | null;
  contentType?: string | null;
  /** XLSX sheet name or 1-based number. */
  sheet?: string | null;
  replace?: boolean;
  maxBytes: number;
}

export interface StoredFile {
  record: FileRecord;
  /** false when an existing table was replaced. */
  created: boolean;
}

const INSERT_BATCH_ROWS = 2048;
/** Lock key for the catalog mirror (views and the name map); not a valid table name. */
const MIRROR = '\u0000mirror';
/** Past this size an ingest reads with one thread and small buffers: peak memory over speed. */
const LARGE_FILE = 256 * 1024 * 1024;
/** The query instance's default budget (DuckDB's own default is 80% of RAM). */
const DEFAULT_MEMORY_LIMIT = '1GB';

/**
 * The built-in `files` source: every uploaded file (or CREATE TABLE files.t AS SELECT)
 * is ingested once into Parquet under `<storageDir>/files/`, recorded in the catalog,
 * and exposed as a view in a private in-memory DuckDB, so SQL in DuckDB's dialect runs
 * on it whole. Mutations of one table are serialised; reads run concurrently.
 */
export class FilesSource implements Source {
  readonly name = 'files';
  readonly engine = 'files';
  readonly dialect = 'duckdb' as const;
  readonly defaultSchema = 'main';
  readonly capabilities: PushdownCapabilities = {
    fullStatements: true,
    projection: true,
    filters: 'exact',
    limit: true,
  };

  /** Lower-case name → record; mirrors the catalog's FileRecords. */
  private readonly tables = new Map<string, FileRecord>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private closed = false;
  private seq = 0;

  private constructor(
    private readonly db: DuckDBInstance,
    private readonly opts: FilesSourceOptions,
    readonly dir: string,
    private readonly tmpDir: string,
  ) {}

  static async open(opts: FilesSourceOptions): Promise<FilesSource> {
    const dir = join(opts.storageDir, 'files');
    const tmpDir = join(dir, '.tmp');
    await mkdir(tmpDir, { recursive: true, mode: 0o700 });
    await clearStale(tmpDir);
    const config: Record<string, string> = {
      temp_directory: join(tmpDir, 'duckdb'),
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'true',
    };
    // Queries and small ingests share this budget; past it DuckDB spills to temp_directory.
    config.memory_limit = opts.memoryLimit ?? DEFAULT_MEMORY_LIMIT;
    if (opts.threads) config.threads = String(opts.threads);
    const db = await DuckDBInstance.create(':memory:', config);
    const src = new FilesSource(db, opts, dir, tmpDir);
    await src.refresh();
    return src;
  }

  // ---- catalog mirror ------------------------------------------------------------

  /** Re-read the catalog's FileRecords and (re)build one view per table. */
  async refresh(): Promise<void> {
    return this.withLock(MIRROR, () => this.refreshNow());
  }

  private async refreshNow(): Promise<void> {
    const records = await this.opts.store.listFiles();
    const conn = await this.db.connect();
    try {
      const want = new Map(records.map((r) => [r.name.toLowerCase(), r]));
      for (const [key, rec] of this.tables) {
        if (!want.has(key)) {
          await conn.run(`DROP VIEW IF EXISTS ${ident(rec.name)}`);
          this.tables.delete(key);
        }
      }
      for (const [key, rec] of want) {
        const have = this.tables.get(key);
        if (
          have &&
          have.createdAt === rec.createdAt &&
          have.storagePath === rec.storagePath &&
          have.name === rec.name
        )
          continue;
        const path = join(this.opts.storageDir, rec.storagePath);
        if (!existsSync(path)) {
          this.opts.logger.warn(
            { table: rec.name },
            'files: stored Parquet file is missing; table not exposed',
          );
          continue;
        }
        try {
          if (have && have.name !== rec.name) await conn.run(`DROP VIEW IF EXISTS ${ident(have.name)}`);
          await conn.run(
            `CREATE OR REPLACE VIEW ${ident(rec.name)} AS SELECT * FROM read_parquet(${lit(path)})`,
          );
          this.tables.set(key, rec);
        } catch (e) {
          this.opts.logger.warn(
            { table: rec.name, err: (e as Error).message },
            'files: could not open stored table',
          );
        }
      }
    } finally {
      conn.closeSync();
    }
  }

  /** Uploaded tables, by name. */
  async list(): Promise<FileRecord[]> {
    await this.refresh();
    return [...this.tables.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): FileRecord | null {
    return this.tables.get(name.toLowerCase()) ?? null;
  }

  // ---- uploads -------------------------------------------------------------------

  /** Refuse early (before reading a body) what would be refused after it. */
  precheck(name: string, replace: boolean): void {
    checkTableName(name);
    if (!replace && this.get(name)) throw exists(name);
  }

  /** Stream an upload to disk (bounded by maxBytes), ingest it to Parquet, register it. */
  async upload(name: string, body: NodeJS.ReadableStream, opts: UploadOptions): Promise<StoredFile> {
    this.precheck(name, !!opts.replace);
    const declared = declaredFormat({
      param: opts.format,
      fileName: opts.fileName,
      contentType: opts.contentType,
    });
    const received = this.tmpPath('upload');
    try {
      const t0 = performance.now();
      const { head } = await receiveToFile(body, received, opts.maxBytes);
      this.opts.logger.debug(
        { table: name, ms: Math.round(performance.now() - t0) },
        'files: upload received',
      );
      return await this.ingestReceived(name, received, head, declared, opts);
    } finally {
      await rm(received, { force: true });
    }
  }

  /** Ingest a local file in place (CLI): no copy is made; the file is only read. */
  async ingestLocalFile(
    name: string,
    path: string,
    opts: Omit<UploadOptions, 'maxBytes'>,
  ): Promise<StoredFile> {
    this.precheck(name, !!opts.replace);
    const declared = declaredFormat({
      param: opts.format,
      fileName: opts.fileName ?? path,
      contentType: null,
    });
    const { open } = await import('node:fs/promises');
    const fh = await open(path, 'r');
    const head = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    await fh.close();
    return this.ingestReceived(name, path, head.subarray(0, bytesRead), declared, opts);
  }

  private async ingestReceived(
    name: string,
    path: string,
    head: Buffer,
    declared: FileFormat | null,
    opts: Omit<UploadOptions, 'maxBytes'>,
  ): Promise<StoredFile> {
    let format = declared ?? sniffFormat(head);
    if (!format) {
      throw new FileError(
        415,
        'unsupported_format',
        `Cannot tell the format of '${name}': pass ?format=csv|tsv|json|ndjson|parquet|xlsx, a file name with that extension, or a specific content type`,
      );
    }
    format = refineJson(format, head);
    return this.withLock(name, async () => {
      if (!opts.replace && this.get(name)) throw exists(name);
      const t0 = performance.now();
      const staged = this.tmpPath('parquet');
      const size = (await stat(path)).size;
      // A large upload gets its own small DuckDB, so its memory is bounded (and spills to
      // disk) without limiting queries. A smaller one runs on the query instance: a fresh
      // instance per upload costs more than the ingest of a small file, and its budget
      // (its memory_limit, set in open()) already bounds it.
      const large = size > LARGE_FILE;
      const db = large
        ? await DuckDBInstance.create(':memory:', {
            memory_limit: this.opts.ingestMemoryLimit ?? '128MB',
            threads: '1',
            temp_directory: join(this.tmpDir, 'duckdb'),
            autoinstall_known_extensions: 'false',
          })
        : null;
      const conn = await (db ?? this.db).connect();
      try {
        const res = await ingestToParquet(
          conn,
          { path, format, sheet: opts.sheet ?? null, label: name, scratch: this.tmpPath('scratch'), large },
          staged,
        );
        const created = !this.get(name);
        const record = await this.register(name, format, staged, res);
        const ms = Math.round(performance.now() - t0);
        this.opts.logger.info({ table: name, format, rows: res.rows, ingest_ms: ms }, 'files: table stored');
        return { record, created };
      } finally {
        conn.closeSync();
        db?.closeSync();
        await rm(staged, { force: true });
      }
    });
  }

  /** Remove a table, its Parquet file and its record. False when unknown. */
  async remove(name: string): Promise<boolean> {
    return this.withLock(name, () =>
      this.withLock(MIRROR, async () => {
        await this.refreshNow();
        const rec = this.get(name);
        if (!rec) return false;
        await this.opts.store.deleteFile(rec.name);
        this.tables.delete(rec.name.toLowerCase());
        const conn = await this.db.connect();
        try {
          await conn.run(`DROP VIEW IF EXISTS ${ident(rec.name)}`);
        } finally {
          conn.closeSync();
        }
        await rm(join(this.opts.storageDir, rec.storagePath), { force: true });
        this.opts.logger.info({ table: rec.name }, 'files: table removed');
        return true;
      }),
    );
  }

  /**
   * Move a staged Parquet file into place and record it. The previous file (on replace)
   * is kept aside until the catalog has the new record, and put back if that fails.
   */
  private register(
    name: string,
    format: string,
    staged: string,
    res: { rows: number; columns: number; sizeBytes: number },
  ): Promise<FileRecord> {
    // Under the mirror lock so a concurrent refresh() cannot drop the view it is adding.
    return this.withLock(MIRROR, () => this.registerNow(name, format, staged, res));
  }

  private async registerNow(
    name: string,
    format: string,
    staged: string,
    res: { rows: number; columns: number; sizeBytes: number },
  ): Promise<FileRecord> {
    const key = name.toLowerCase();
    const rel = join('files', `${key}.parquet`);
    const final = join(this.opts.storageDir, rel);
    const previous = this.tables.get(key) ?? null;
    const backup = existsSync(final) ? this.tmpPath('previous') : null;
    if (backup) await rename(final, backup);
    await rename(staged, final);
    const record: FileRecord = {
      name,
      format,
      rows: res.rows,
      columns: res.columns,
      sizeBytes: res.sizeBytes,
      storagePath: rel,
      createdAt: new Date().toISOString(),
    };
    try {
      if (previous && previous.name !== name) await this.opts.store.deleteFile(previous.name);
      await this.opts.store.putFile(record);
    } catch (e) {
      await rm(final, { force: true });
      if (backup) await rename(backup, final);
      if (previous && previous.name !== name) await this.opts.store.putFile(previous).catch(() => {});
      throw e;
    }
    if (backup) await rm(backup, { force: true });
    const conn = await this.db.connect();
    try {
      if (previous && previous.name !== name) await conn.run(`DROP VIEW IF EXISTS ${ident(previous.name)}`);
      await conn.run(`CREATE OR REPLACE VIEW ${ident(name)} AS SELECT * FROM read_parquet(${lit(final)})`);
    } finally {
      conn.closeSync();
    }
    this.tables.set(key, record);
    return record;
  }

  // ---- Source --------------------------------------------------------------------

  async listTables(): Promise<TableInfo[]> {
    await this.refresh();
    return [...this.tables.values()]
      .map((r) => ({ name: r.name, schema: 'main', type: 'BASE TABLE' as const }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async listColumns(table: string, schema?: string): Promise<ColumnInfo[]> {
    if (schema && schema.toLowerCase() !== 'main') throw unknownTable(`${schema}.${table}`);
    let rec = this.get(table);
    if (!rec) {
      await this.refresh();
      rec = this.get(table);
    }
    if (!rec) throw unknownTable(table);
    const conn = await this.db.connect();
    try {
      const r = await conn.run(`SELECT * FROM ${ident(rec.name)} LIMIT 0`);
      const names = r.columnNames();
      const types = r.columnTypes();
      return names.map((name, i) => ({
        name,
        type: mysqlTypeOf(types[i]),
        nativeType: types[i].toString(),
        nullable: true,
        key: '',
        default: null,
      }));
    } catch (e) {
      throw filesError(e);
    } finally {
      conn.closeSync();
    }
  }

  async query(sql: string, opts: QueryOptions = {}): Promise<QueryStream> {
    this.assertOpen();
    try {
      return await streamQuery(await this.db.connect(), sql, opts.signal);
    } catch (e) {
      // Another process (the CLI) may have added the table: look again once.
      if (!(e instanceof SqlError && e.code === ErrorCode.UNKNOWN_TABLE)) throw e;
      const before = this.tables.size;
      await this.refresh();
      if (this.tables.size === before) throw e;
      return streamQuery(await this.db.connect(), sql, opts.signal);
    }
  }

  /**
   * Statements the engine sends in DuckDB's dialect: CREATE TABLE t AS SELECT,
   * CREATE TABLE t (cols), DROP TABLE t, and INSERT/UPDATE/DELETE on a file table
   * (which rewrite its Parquet file). Anything else is refused with 1235.
   */
  async execute(sql: string, opts: QueryOptions = {}): Promise<{ affectedRows: number | null }> {
    this.assertOpen();
    const st = parseFilesStatement(sql);
    switch (st.kind) {
      case 'ctas':
        return this.createTableAs(st.table, st.select, st.ifNotExists);
      case 'create':
        return this.createEmpty(st.table, st.columnsSql, st.ifNotExists);
      case 'drop': {
        const gone = await this.remove(st.table);
        if (!gone && !st.ifExists) throw unknownTable(st.table, 1051);
        return { affectedRows: 0 };
      }
      case 'dml':
        return this.rewrite(st.table, sql, opts);
      default:
        throw new SqlError(
          ErrorCode.NOT_SUPPORTED,
          'files source supports SELECT, CREATE TABLE files.t AS SELECT, DROP TABLE files.t, INSERT, UPDATE and DELETE',
        );
    }
  }

  /**
   * CREATE TABLE files.t AS SELECT ... over other sources: the engine hands the rows
   * over as one stream; they go through a DuckDB appender into a staging table and
   * then once into Parquet.
   */
  async createTableFromStream(
    table: string,
    columns: FieldInfo[],
    batches: AsyncIterable<Row[]>,
    opts: { ifNotExists?: boolean } = {},
  ): Promise<number> {
    this.assertOpen();
    const name = this.checkSqlName(table);
    if (this.get(name)) {
      if (opts.ifNotExists) return 0;
      throw tableExists(name);
    }
    return this.withLock(name, async () => {
      if (this.get(name)) {
        if (opts.ifNotExists) return 0;
        throw tableExists(name);
      }
      const conn = await this.db.connect();
      const stage = `__stage_${++this.seq}`;
      const staged = this.tmpPath('parquet');
      try {
        const defs = columns.map((c) => `${ident(c.name)} ${columnTypeFor('duckdb', c.type)}`).join(', ');
        await conn.run(`CREATE TEMP TABLE ${ident(stage)} (${defs})`);
        const cols = columns.map((c) => ident(c.name)).join(', ');
        let pending: string[] = [];
        const flush = async () => {
          if (!pending.length) return;
          await conn.run(`INSERT INTO ${ident(stage)} (${cols}) VALUES ${pending.join(', ')}`);
          pending = [];
        };
        for await (const batch of batches) {
          for (const row of batch) {
            pending.push(`(${row.map((v) => literalFor('duckdb', v)).join(', ')})`);
            if (pending.length >= INSERT_BATCH_ROWS) await flush();
          }
        }
        await flush();
        const rows = await copy(conn, `SELECT * FROM ${ident(stage)}`, staged);
        await this.register(name, 'sql', staged, {
          rows,
          columns: columns.length,
          sizeBytes: (await stat(staged)).size,
        });
        return rows;
      } catch (e) {
        throw filesError(e);
      } finally {
        await conn.run(`DROP TABLE IF EXISTS ${ident(stage)}`).catch(() => {});
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
      const conn = await this.db.connect();
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
    columnsSql: string,
    ifNotExists: boolean,
  ): Promise<{ affectedRows: number }> {
    return this.withNewTable(table, ifNotExists, async (name) => {
      const stage = `__stage_${++this.seq}`;
      const conn = await this.db.connect();
      try {
        await conn.run(`CREATE TEMP TABLE ${ident(stage)} ${columnsSql}`);
        return await this.storeSelect(conn, name, `SELECT * FROM ${ident(stage)}`);
      } catch (e) {
        throw filesError(e);
      } finally {
        await conn.run(`DROP TABLE IF EXISTS ${ident(stage)}`).catch(() => {});
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
    const name = this.checkSqlName(table);
    return this.withLock(name, async () => {
      if (this.get(name)) {
        if (ifNotExists) return { affectedRows: 0 };
        throw tableExists(name);
      }
      return { affectedRows: await create(name) };
    });
  }

  /** The rows of `select` as the new file table `name`: one Parquet file, registered. Returns rows written. */
  private async storeSelect(conn: DuckDBConnection, name: string, select: string): Promise<number> {
    const staged = this.tmpPath('parquet');
    try {
      const rows = await copy(conn, select, staged);
      const desc = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${lit(staged)})`);
      await this.register(name, 'sql', staged, {
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
    const rec0 = this.get(table);
    if (!rec0) throw unknownTable(table);
    return this.withLock(rec0.name, async () => {
      const rec = this.get(table);
      if (!rec) throw unknownTable(table);
      const scratch = `w${process.pid}_${++this.seq}`;
      const staged = this.tmpPath('parquet');
      const conn = await this.db.connect();
      const onAbort = () => conn.interrupt();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      let attached = false;
      try {
        await conn.run(`ATTACH ':memory:' AS ${ident(scratch)}`);
        attached = true;
        const path = join(this.opts.storageDir, rec.storagePath);
        await conn.run(
          `CREATE TABLE ${ident(scratch)}.${ident(rec.name)} AS SELECT * FROM read_parquet(${lit(path)})`,
        );
        await conn.run(`SET search_path = ${lit(`${scratch}.main,memory.main`)}`);
        const r = await conn.runAndReadAll(sql);
        const affected = Number(r.getRows()[0]?.[0] ?? 0);
        await conn.run(`SET search_path = 'memory.main'`);
        const rows = await copy(conn, `SELECT * FROM ${ident(scratch)}.${ident(rec.name)}`, staged);
        await this.register(rec.name, rec.format, staged, {
          rows,
          columns: rec.columns,
          sizeBytes: (await stat(staged)).size,
        });
        return { affectedRows: affected };
      } catch (e) {
        throw filesError(e, opts.signal);
      } finally {
        opts.signal?.removeEventListener('abort', onAbort);
        if (attached) await conn.run(`DETACH ${ident(scratch)}`).catch(() => {});
        conn.closeSync();
        await rm(staged, { force: true });
      }
    });
  }

  async test(): Promise<void> {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.closeSync();
  }

  // ---- helpers -------------------------------------------------------------------

  private assertOpen(): void {
    if (this.closed) throw new SqlError(ErrorCode.SOURCE_ERROR, 'files source is closed');
  }

  private checkSqlName(table: string): string {
    try {
      return checkTableName(table);
    } catch (e) {
      throw new SqlError(1103, (e as Error).message);
    }
  }

  private tmpPath(kind: string): string {
    return join(this.tmpDir, `${kind}-${randomUUID()}`);
  }

  /** Serialise mutations of one table (upload, replace, drop, rewrite). */
  private async withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const key = name.toLowerCase();
    const prev = this.locks.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => {});
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }
}

function exists(name: string): FileError {
  return new FileError(
    409,
    'file_exists',
    `A file table named '${name}' already exists; replace it with ?replace=true (tributary upload --replace)`,
  );
}

function tableExists(name: string): SqlError {
  return new SqlError(1050, `Table 'files.${name}' already exists`);
}

function unknownTable(name: string, code: number = ErrorCode.UNKNOWN_TABLE): SqlError {
  return new SqlError(
    code,
    code === 1051 ? `Unknown table 'files.${name}'` : `Table 'files.${name}' doesn't exist`,
  );
}

/** Scratch files older than an hour are leftovers of a crash. */
async function clearStale(dir: string): Promise<void> {
  const cutoff = Date.now() - 3600_000;
  for (const n of await readdir(dir).catch(() => [] as string[])) {
    if (n === 'duckdb') continue;
    const p = join(dir, n);
    const s = await stat(p).catch(() => null);
    if (s && s.mtimeMs < cutoff) await rm(p, { recursive: true, force: true });
  }
}
