import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { ErrorCode, SqlError } from '../../core/errors.js';
import { quoteIdent, stringLiteral } from '../../core/sql-text.js';
import { StorageFullError } from '../../core/storage-full.js';
import type { ColumnInfo, FieldInfo, Row } from '../../core/types.js';
import { duckTypeToMysql as mysqlTypeOf } from '../duckdb/values.js';
import { interrupted } from '../error-util.js';
import type {
  PushdownCapabilities,
  QueryOptions,
  QueryStream,
  Source,
  TableInfo,
  TableWrite,
} from '../types.js';
import { type FileBytes, LocalFileBytes, localPathOf } from './bytes.js';
import { convertToParquet } from './conversion.js';
import { type CsvLayout, csvReaderWith, SMALL_CSV_BUFFER } from './csv-layout.js';
import { queryOverCsv } from './csv-query.js';
import { storedLayout } from './csv-schema.js';
import { filesError, streamQuery } from './duck-stream.js';
import { unknownTable } from './errors.js';
import { FAST_TEXT_MACROS } from './fast-text.js';
import { CatalogFollower } from './follow.js';
import { IdleQueue } from './idle-queue.js';
import { checkTableName } from './names.js';
import type { FilesSourceOptions } from './options.js';
import type { FileRecord } from './record.js';
import { RetiredFiles } from './retired.js';
import { scratchName, sweepScratch } from './scratch.js';
import { pendingFormat, storagePathFor } from './storage.js';
import { TableWrites } from './table-writes.js';
import { type StoredFile, type UploadOptions, Uploads } from './uploads.js';

export { type FileBytes, hashFile, LocalFileBytes } from './bytes.js';
export type { FileRecordStore, FilesSourceOptions } from './options.js';
export { ROWS_UNKNOWN, type StoredFile, type UploadOptions } from './uploads.js';

const duckIdent = (name: string) => quoteIdent('duckdb', name);
const duckString = (value: string) => stringLiteral('duckdb', value);

/** Lock key for the catalog mirror (views and the name map); not a valid table name. */
const MIRROR = '\u0000mirror';
/** The query instance's default budget (DuckDB's own default is 80% of RAM). */
const DEFAULT_MEMORY_LIMIT = '1GB';
const CONVERT_IDLE_MS = 500;
/** How often scratch files left by dead processes are looked for while running. */
const SCRATCH_SWEEP_MS = 600_000;

/**
 * The built-in `files` source: every uploaded file (or CREATE TABLE files.t AS SELECT)
 * is ingested once into Parquet under `<storageDir>/files/`, recorded in the catalog,
 * and exposed as a view in a private in-memory DuckDB, so SQL in DuckDB's dialect runs
 * on it whole. Mutations of one table are serialised; reads run concurrently.
 *
 * A large CSV/TSV upload is kept as CSV at first: checked cheaply (UTF-8, a sample the
 * sniffer accepts, a data row), recorded with its storage path ending in .csv/.tsv and
 * exposed as a view over read_csv with the sniffed types spelled out, then converted
 * with exactly those types in the background (IdleQueue) and swapped to Parquet. The
 * catalog record says which form is stored, so a restart resumes a pending conversion.
 * A replace or drop cancels a running conversion, and a finished one is only swapped in
 * if its table is still the record it started from.
 *
 * The stored bytes go through a FileBytes (bytes.ts): the storage dir itself, or with a
 * PostgreSQL catalog the catalog database (chunked, by sha256) with a local cache, so
 * every replica reads every table; a change announced by another replica
 * (onFilesChanged) re-reads the catalog at once.
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
  /** Tables still stored as CSV: lower-case name → the layout their view reads with. */
  private readonly layouts = new Map<string, CsvLayout>();
  /** Why a background conversion dropped a table (the file was bad), for the next query. */
  private readonly failures = new Map<string, string>();
  /** Replaced storage files, deleted once no query that may be reading them runs. */
  private readonly retired = new RetiredFiles((p) => this.inUse(p));
  private readonly queue: IdleQueue;
  private closed = false;
  private seq = 0;
  private readonly writes: TableWrites;
  private readonly uploads: Uploads;
  private scratchSweeper: NodeJS.Timeout | null = null;
  private readonly bytes: FileBytes;
  /** True until open() has read the catalog once: the pending conversions found then are this process's. */
  private opening = true;
  private readonly follower: CatalogFollower;
  /** Tables whose bytes could not be copied here at the last re-read (a full storage dir). */
  private readonly unreadable = new Map<string, { record: FileRecord; error: StorageFullError }>();

  private constructor(
    private readonly db: DuckDBInstance,
    private readonly opts: FilesSourceOptions,
    readonly dir: string,
    private readonly tmpDir: string,
  ) {
    this.bytes = opts.bytes ?? new LocalFileBytes(opts.storageDir);
    this.follower = new CatalogFollower(
      opts.store,
      opts.logger,
      () => this.refresh(),
      () => this.closed,
    );
    this.queue = new IdleQueue(
      (key, signal) =>
        convertToParquet(
          {
            opts: this.opts,
            tmpDir: this.tmpDir,
            tables: this.tables,
            layouts: this.layouts,
            failures: this.failures,
            closed: () => this.closed,
            tmpPath: (kind) => this.tmpPath(kind),
            withLock: (name, fn) => this.withLock(name, fn),
            mirror: MIRROR,
            place: (staged, record) => this.bytes.put(staged, record),
            unplace: (record) => this.bytes.unput(record, (p) => this.inUse(p)),
            swapIn: async (previous, record, layout) => {
              await this.swapIn(previous, record, layout);
            },
            removeNow: (rec) => this.removeNow(rec),
            storagePathFor,
            pendingFormat,
          },
          key,
          signal,
        ),
      opts.convertIdleMs ?? CONVERT_IDLE_MS,
      () => void this.retired.sweep(),
    );
    this.uploads = new Uploads({
      opts,
      db,
      tmpDir,
      get: (name) => this.get(name),
      tmpPath: (kind) => this.tmpPath(kind),
      withLock: (name, fn) => this.withLock(name, fn),
      withConnection: (fn) => this.withConnection(fn),
      busy: () => this.queue.busy(),
      register: (name, format, staged, res, layout, by) =>
        this.register(name, format, staged, res, layout, by),
    });
    this.writes = new TableWrites({
      connect: () => this.db.connect(),
      get: (name) => this.get(name),
      checkSqlName: (table) => this.checkSqlName(table),
      withLock: (name, fn) => this.withLock(name, fn),
      register: (name, format, staged, res) => this.register(name, format, staged, res),
      tmpPath: (kind) => this.tmpPath(kind),
      nextId: () => ++this.seq,
    });
  }

  static async open(opts: FilesSourceOptions): Promise<FilesSource> {
    const dir = join(opts.storageDir, 'files');
    const tmpDir = join(dir, '.tmp');
    await mkdir(tmpDir, { recursive: true, mode: 0o700 });
    await sweepScratch(tmpDir, true);
    const config: Record<string, string> = {
      temp_directory: join(tmpDir, 'duckdb'),
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'true',
    };
    // Queries and small ingests share this budget; past it DuckDB spills to temp_directory.
    config.memory_limit = opts.memoryLimit ?? DEFAULT_MEMORY_LIMIT;
    if (opts.threads) config.threads = String(opts.threads);
    const db = await DuckDBInstance.create(':memory:', config);
    const setup = await db.connect();
    try {
      for (const macro of FAST_TEXT_MACROS) await setup.run(macro);
    } finally {
      setup.closeSync();
    }
    const src = new FilesSource(db, opts, dir, tmpDir);
    // A process that died mid-upload while this one runs (a CLI beside the server) leaves files too.
    src.scratchSweeper = setInterval(() => void src.housekeep(), SCRATCH_SWEEP_MS);
    src.scratchSweeper.unref();
    await src.refresh();
    src.opening = false;
    await src.collect();
    // Another replica's upload, replace or drop: the mirror follows at once.
    src.follower.start();
    return src;
  }

  /** `listener` runs when tables changed: uploaded, replaced or dropped here or by another replica. */
  onChanged(listener: () => void): void {
    this.follower.onChanged(listener);
  }

  private async housekeep(): Promise<void> {
    await sweepScratch(this.tmpDir, false);
    await this.collect().catch((e) =>
      this.opts.logger.warn({ err: (e as Error).message }, 'files: collecting unused bytes failed'),
    );
  }

  /** Stored bytes no registration names (a crash between storing and registering) go. */
  private collect(): Promise<void> {
    return this.withLock(MIRROR, async () => this.bytes.collect(await this.opts.store.listFiles()));
  }

  // ---- catalog mirror ------------------------------------------------------------

  /** Re-read the catalog's FileRecords and (re)build one view per table. */
  async refresh(): Promise<void> {
    return this.withLock(MIRROR, () => this.refreshNow());
  }

  private async refreshNow(): Promise<void> {
    const version = await this.follower.version();
    const records = await this.opts.store.listFiles();
    const conn = await this.db.connect();
    try {
      const want = new Map(records.map((r) => [r.name.toLowerCase(), r]));
      this.unreadable.clear();
      for (const [key, rec] of this.tables) {
        if (!want.has(key)) {
          await conn.run(`DROP VIEW IF EXISTS ${duckIdent(rec.name)}`);
          this.tables.delete(key);
          this.layouts.delete(key);
          this.queue.cancel(key);
          // Removed by another process: its local copy goes once no query reads it.
          this.retired.add(localPathOf(this.opts.storageDir, rec));
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
        try {
          const path = await this.bytes.local(rec);
          if (!path) {
            this.opts.logger.warn({ table: rec.name }, 'files: stored file is missing; table not exposed');
            continue;
          }
          // A CSV still waiting for its conversion (a restart, or another process): the
          // layout is decided again as for its upload (the same delimiter and types), and the
          // conversion is rescheduled.
          const fmt = pendingFormat(rec);
          const layout = fmt ? await storedLayout(conn, path, fmt, this.tmpPath('head')) : null;
          if (have && have.name !== rec.name) await conn.run(`DROP VIEW IF EXISTS ${duckIdent(have.name)}`);
          await conn.run(
            `CREATE OR REPLACE VIEW ${duckIdent(rec.name)} AS ${this.viewSelect(rec, path, layout)}`,
          );
          this.tables.set(key, rec);
          // With shared bytes, a CSV another replica stored is converted by that replica (its
          // Parquet arrives as a change); one found at start-up is converted here.
          this.setPending(key, layout, this.bytes.kind === 'local' || this.opening);
          if (have && have.storagePath !== rec.storagePath)
            this.retired.add(localPathOf(this.opts.storageDir, have));
        } catch (e) {
          if (e instanceof StorageFullError) this.unreadable.set(key, { record: rec, error: e });
          this.opts.logger.warn(
            { table: rec.name, err: (e as Error).message },
            'files: could not open stored table',
          );
        }
      }
    } finally {
      conn.closeSync();
    }
    this.follower.seenAt(version);
    if (this.retired.size && this.queue.idle) await this.retired.sweep();
  }

  /** Uploaded tables, by name (with those registered that this replica could not copy yet). */
  async list(): Promise<FileRecord[]> {
    await this.refresh();
    return [...this.tables.values(), ...[...this.unreadable.values()].map((u) => u.record)].sort((a, b) =>
      a.name.localeCompare(b.name),
    );
  }

  get(name: string): FileRecord | null {
    return this.tables.get(name.toLowerCase()) ?? null;
  }

  // ---- uploads (uploads.ts) --------------------------------------------------------

  /** Refuse early (before reading a body) what would be refused after it. */
  precheck(name: string, replace: boolean): void {
    this.uploads.precheck(name, replace);
  }

  upload(name: string, body: NodeJS.ReadableStream, opts: UploadOptions): Promise<StoredFile> {
    this.assertOpen();
    return this.uploads.upload(name, body, opts);
  }

  /** Ingest a local file in place (CLI): no copy is made; the file is only read. */
  ingestLocalFile(name: string, path: string, opts: Omit<UploadOptions, 'maxBytes'>): Promise<StoredFile> {
    this.assertOpen();
    return this.uploads.ingestLocalFile(name, path, opts);
  }

  /** Remove a table, its stored file and its record. False when unknown. */
  async remove(name: string): Promise<boolean> {
    return this.withLock(name, () =>
      this.withLock(MIRROR, async () => {
        await this.refreshNow();
        const rec = this.get(name);
        if (!rec) return false;
        await this.removeNow(rec);
        this.opts.logger.info({ table: rec.name }, 'files: table removed');
        this.follower.announce();
        return true;
      }),
    );
  }

  /** Under the table's and the mirror's locks. A running conversion of it is aborted. */
  private async removeNow(rec: FileRecord): Promise<void> {
    const key = rec.name.toLowerCase();
    const bytes = localPathOf(this.opts.storageDir, rec);
    const dropView = async () => {
      const conn = await this.db.connect();
      try {
        await conn.run(`DROP VIEW IF EXISTS ${duckIdent(rec.name)}`);
      } finally {
        conn.closeSync();
      }
    };
    try {
      await this.opts.store.deleteFile(rec.name);
    } catch (e) {
      // A full disk cannot take the catalog without the file: free the file's space first
      // (its view dropped, so no handle keeps the bytes; under the catalog's lock, whose
      // own file took no page), since it is being deleted anyway, then write the catalog.
      if (!(e instanceof StorageFullError)) throw e;
      this.opts.logger.warn(
        { table: rec.name },
        'files: storage dir full; freeing the file before its record',
      );
      this.tables.delete(key);
      await dropView();
      await this.opts.store.deleteFile(rec.name, () => rm(bytes, { force: true }));
    }
    this.tables.delete(key);
    this.setPending(key, null);
    await dropView();
    await this.bytes.release(rec);
    await this.retire(bytes);
  }

  /**
   * Move a staged file (Parquet, or with `layout` a CSV/TSV kept for a later conversion)
   * into place under a new name and record it; the previous file (on replace) is retired
   * once the catalog has the new record, and stays in use if that fails.
   */
  private async register(
    name: string,
    format: string,
    staged: string,
    res: { rows: number; columns: number; sizeBytes: number },
    layout: CsvLayout | null = null,
    uploadedBy: string | null = null,
  ): Promise<FileRecord> {
    const key = name.toLowerCase();
    const proposed: FileRecord = {
      name,
      format,
      rows: res.rows,
      columns: res.columns,
      sizeBytes: res.sizeBytes,
      storagePath: storagePathFor(key, layout ? format : 'parquet'),
      createdAt: new Date().toISOString(),
      ...(uploadedBy ? { uploadedBy } : {}),
    };
    // Bytes first, where every replica reads them (into the catalog database: a second for
    // 50 MB), outside the mirror lock so statements and listings do not wait for it.
    const record = await this.bytes.put(staged, proposed);
    // Under the mirror lock so a concurrent refresh() cannot drop the view it is adding.
    return this.withLock(MIRROR, () => this.swapIn(this.tables.get(key) ?? null, record, layout));
  }

  /**
   * Put `record` (its bytes placed by bytes.put) in place of `previous`: catalog, view,
   * mirror. Under the mirror lock. On a catalog failure nothing changes (the placed bytes
   * are taken back).
   */
  private async swapIn(
    previous: FileRecord | null,
    record: FileRecord,
    layout: CsvLayout | null,
  ): Promise<FileRecord> {
    const key = record.name.toLowerCase();
    const final = localPathOf(this.opts.storageDir, record);
    try {
      if (previous && previous.name !== record.name) await this.opts.store.deleteFile(previous.name);
      await this.opts.store.putFile(record);
    } catch (e) {
      await this.bytes.unput(record, (p) => this.inUse(p));
      if (previous && previous.name !== record.name) await this.opts.store.putFile(previous).catch(() => {});
      throw e;
    }
    const conn = await this.db.connect();
    try {
      if (previous && previous.name !== record.name)
        await conn.run(`DROP VIEW IF EXISTS ${duckIdent(previous.name)}`);
      await conn.run(
        `CREATE OR REPLACE VIEW ${duckIdent(record.name)} AS ${this.viewSelect(record, final, layout)}`,
      );
    } finally {
      conn.closeSync();
    }
    this.tables.set(key, record);
    this.failures.delete(key);
    // A replaced table's conversion (if running) is aborted; the new CSV gets its own.
    this.setPending(key, null);
    this.setPending(key, layout);
    if (previous && previous.sha256 !== record.sha256) await this.bytes.release(previous);
    if (previous && previous.storagePath !== record.storagePath)
      await this.retire(localPathOf(this.opts.storageDir, previous));
    this.follower.announce();
    return record;
  }

  private viewSelect(rec: FileRecord, path: string, layout: CsvLayout | null): string {
    const fmt = pendingFormat(rec);
    return layout && fmt
      ? `SELECT * FROM ${csvReaderWith(path, layout, `, buffer_size = ${SMALL_CSV_BUFFER}`)}`
      : `SELECT * FROM read_parquet(${duckString(path)})`;
  }

  /**
   * Mark `key` as stored in CSV (queued for conversion unless `schedule` is false: another
   * replica converts it) or not (its conversion dropped).
   */
  private setPending(key: string, layout: CsvLayout | null, schedule = true): void {
    if (layout) {
      this.layouts.set(key, layout);
      if (schedule) this.queue.schedule(key);
    } else {
      this.layouts.delete(key);
      this.queue.cancel(key);
    }
  }

  /**
   * Convert every table still stored as CSV now. Returns why tables were removed on the
   * way (bad files), if any.
   */
  async convertPending(): Promise<string[]> {
    const keys = [...this.layouts.keys()];
    await Promise.all(keys.map((k) => this.queue.runNow(k)));
    const why = keys.flatMap((k) => this.failures.get(k) ?? []);
    for (const k of keys) this.failures.delete(k);
    return why;
  }

  /** Delete `path` now, or once no query that may be reading it is running. */
  private async retire(path: string): Promise<void> {
    this.retired.add(path);
    if (this.queue.idle) await this.retired.sweep();
  }

  /** Whether a table here reads the local file `path`. */
  private inUse(path: string): boolean {
    for (const r of this.tables.values()) if (localPathOf(this.opts.storageDir, r) === path) return true;
    return false;
  }

  // ---- Source --------------------------------------------------------------------

  async listTables(): Promise<TableInfo[]> {
    await this.refresh();
    return [...this.tables.values()]
      .map((r) => ({ name: r.name, schema: 'main', type: 'BASE TABLE' as const, rows: r.rows, comment: '' }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async listColumns(table: string, schema?: string): Promise<ColumnInfo[]> {
    if (schema && schema.toLowerCase() !== 'main') throw unknownTable(`${schema}.${table}`);
    await this.follower.beforeStatement();
    let rec = this.get(table);
    if (!rec) {
      await this.refresh();
      rec = this.get(table);
    }
    // A table whose bytes this replica could not copy (its storage dir is full): that, not 1146.
    if (!rec) throw this.unreadable.get(table.toLowerCase())?.error ?? unknownTable(table);
    const conn = await this.db.connect();
    try {
      const r = await conn.run(`SELECT * FROM ${duckIdent(rec.name)} LIMIT 0`);
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
    if (opts.signal?.aborted) throw interrupted(this.name);
    await this.follower.beforeStatement();
    try {
      return await queryOverCsv(
        {
          pending: () => this.layouts.size > 0,
          stream: (q, signal) => this.stream(q, signal),
          convertPending: () => this.convertPending(),
        },
        sql,
        opts.signal,
      );
    } catch (e) {
      // Another process (the CLI) may have added the table: look again once.
      if (!(e instanceof SqlError && e.code === ErrorCode.UNKNOWN_TABLE)) throw e;
      const before = this.tables.size;
      await this.refresh();
      if (this.tables.size === before) throw e;
      return this.stream(sql, opts.signal);
    }
  }

  /** One statement's rows; the query counts as activity until its stream ends. */
  private async stream(sql: string, signal?: AbortSignal): Promise<QueryStream> {
    return streamQuery(await this.db.connect(), sql, signal, this.queue.busy());
  }

  /** Every write reaches this source as a typed operation (writeTable); no other statement is run. */
  async execute(): Promise<{ affectedRows: number | null }> {
    throw new SqlError(
      ErrorCode.NOT_SUPPORTED,
      'files source supports SELECT, CREATE TABLE files.t [AS SELECT], DROP TABLE files.t, INSERT, UPDATE and DELETE',
    );
  }

  async writeTable(op: TableWrite, opts: QueryOptions = {}): Promise<{ affectedRows: number | null }> {
    this.assertOpen();
    if (op.kind !== 'drop') return this.writes.write(op, opts);
    const gone = await this.remove(op.table);
    if (!gone && !op.ifExists) throw unknownTable(op.table, 1051);
    return { affectedRows: 0 };
  }

  /** CREATE TABLE files.t AS SELECT over other sources (table-writes.ts). */
  createTableFromStream(
    table: string,
    columns: FieldInfo[],
    batches: AsyncIterable<Row[]>,
    opts: { ifNotExists?: boolean } = {},
  ): Promise<number> {
    this.assertOpen();
    return this.writes.fromStream(table, columns, batches, opts);
  }

  async test(): Promise<void> {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.scratchSweeper) clearInterval(this.scratchSweeper);
    // A conversion cut short here resumes on the next start: the record still says CSV.
    await this.queue.close();
    await this.retired.sweep();
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

  private async withConnection<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const conn = await this.db.connect();
    try {
      return await fn(conn);
    } finally {
      conn.closeSync();
    }
  }

  private tmpPath(kind: string): string {
    return join(this.tmpDir, scratchName(kind));
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
