import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Logger } from 'pino';
import { ErrorCode, SqlError } from '../../core/errors.js';
import { quoteIdent, stringLiteral } from '../../core/sql-text.js';
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
import { convertToParquet } from './conversion.js';
import { CsvRecordScan, type RecordScan, scanFile } from './csv-check.js';
import {
  type CsvLayout,
  csvReaderWith,
  SMALL_CSV_BUFFER,
  SNIFF_HEAD,
  sniffHead,
  sniffStoredCsv,
} from './csv-layout.js';
import { filesError, streamQuery } from './duck-stream.js';
import { FileError, unknownTable } from './errors.js';
import { FAST_TEXT_MACROS } from './fast-text.js';
import { declaredFormat, type FileFormat, refineJson, sniffFormat } from './formats.js';
import { IdleQueue } from './idle-queue.js';
import { ingestToParquet, inspectCsv } from './ingest.js';
import { checkTableName } from './names.js';
import { receiveToFile } from './receive.js';
import type { FileRecord } from './record.js';

export type { FileRecordStore, FilesSourceOptions } from './options.js';

import type { FileRecordStore, FilesSourceOptions } from './options.js';
import { scratchName, sweepScratch } from './scratch.js';
import { TableWrites } from './table-writes.js';

const duckIdent = (name: string) => quoteIdent('duckdb', name);
const duckString = (value: string) => stringLiteral('duckdb', value);

/** The part of the catalog the files source uses (CatalogStore satisfies it). */
export interface UploadOptions {
  /** `?format=`; else the file name's extension, the content type, then the first bytes. */
  format?: string | null;
  fileName?: string | null;
  contentType?: string | null;
  /** XLSX sheet name or 1-based number. */
  sheet?: string | null;
  /** CSV/TSV column types the upload names (column-types.ts parseTypesParam). */
  types?: Map<string, string> | null;
  replace?: boolean;
  maxBytes: number;
  /** The body's size when known in advance (Content-Length of a raw upload). */
  expectedBytes?: number;
}

export interface StoredFile {
  record: FileRecord;
  /** false when an existing table was replaced. */
  created: boolean;
  /** XLSX: the sheet that was read (named in the answer, since the first one is taken by default). */
  sheet?: string;
}

/** Lock key for the catalog mirror (views and the name map); not a valid table name. */
const MIRROR = '\u0000mirror';
/** Past this size an ingest reads with one thread and small buffers: peak memory over speed. */
const LARGE_FILE = 256 * 1024 * 1024;
/** The query instance's default budget (DuckDB's own default is 80% of RAM). */
const DEFAULT_MEMORY_LIMIT = '1GB';
const CONVERT_LATER_ABOVE = 8 * 1024 * 1024;
const CONVERT_IDLE_MS = 500;
/** How often scratch files left by dead processes are looked for while running. */
const SCRATCH_SWEEP_MS = 600_000;
/** `rows` of a table whose CSV has not been converted (counted) yet; null in answers. */
export const ROWS_UNKNOWN = -1;

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
  private retired: string[] = [];
  private readonly queue: IdleQueue;
  private closed = false;
  private seq = 0;
  private readonly writes: TableWrites;
  private scratchSweeper: NodeJS.Timeout | null = null;

  private constructor(
    private readonly db: DuckDBInstance,
    private readonly opts: FilesSourceOptions,
    readonly dir: string,
    private readonly tmpDir: string,
  ) {
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
            swapIn: (previous, record, staged, layout) => this.swapIn(previous, record, staged, layout),
            removeNow: (rec) => this.removeNow(rec),
            storagePathFor,
            pendingFormat,
          },
          key,
          signal,
        ),
      opts.convertIdleMs ?? CONVERT_IDLE_MS,
      () => void this.sweep(),
    );
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
    src.scratchSweeper = setInterval(() => void sweepScratch(tmpDir, false), SCRATCH_SWEEP_MS);
    src.scratchSweeper.unref();
    await src.refresh();
    await clearOrphans(
      dir,
      new Set([...src.tables.values()].map((r) => join(opts.storageDir, r.storagePath))),
    );
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
          await conn.run(`DROP VIEW IF EXISTS ${duckIdent(rec.name)}`);
          this.tables.delete(key);
          this.layouts.delete(key);
          this.queue.cancel(key);
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
          this.opts.logger.warn({ table: rec.name }, 'files: stored file is missing; table not exposed');
          continue;
        }
        try {
          // A CSV still waiting for its conversion (a restart, or another process): the
          // sniffer decides the same types again, and the conversion is rescheduled.
          const fmt = pendingFormat(rec);
          const layout = fmt ? await sniffStoredCsv(conn, path, fmt, this.tmpPath('head')) : null;
          if (have && have.name !== rec.name) await conn.run(`DROP VIEW IF EXISTS ${duckIdent(have.name)}`);
          await conn.run(
            `CREATE OR REPLACE VIEW ${duckIdent(rec.name)} AS ${this.viewSelect(rec, path, layout)}`,
          );
          this.tables.set(key, rec);
          this.setPending(key, layout);
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

  /**
   * Stream an upload to disk (bounded by maxBytes), ingest it to Parquet and register it;
   * a CSV/TSV over convertLaterAbove is registered as CSV and converted later.
   */
  async upload(name: string, body: NodeJS.ReadableStream, opts: UploadOptions): Promise<StoredFile> {
    this.precheck(name, !!opts.replace);
    const declared = declaredFormat({
      param: opts.format,
      fileName: opts.fileName,
      contentType: opts.contentType,
    });
    const received = this.tmpPath('upload');
    // An upload counts as activity: no background conversion starts under it.
    const done = this.queue.busy();
    try {
      const t0 = performance.now();
      // A large CSV's types are sniffed from its head while the rest still arrives.
      let early: Promise<CsvLayout | null> = Promise.resolve(null);
      const csv = declared === 'csv' || declared === 'tsv' ? declared : null;
      const earlyHead = csv
        ? {
            bytes: SNIFF_HEAD,
            after: Math.max(SNIFF_HEAD, this.convertLaterAbove),
            onHead: (head: Buffer) => {
              early = this.withConnection((conn) => sniffHead(conn, head, csv, this.tmpPath('head')));
              early.catch(() => {});
            },
          }
        : undefined;
      // Every record of a CSV that may be kept for a later conversion is checked as it
      // arrives: a ragged row anywhere refuses the upload before anything is registered,
      // and the row count is known at once. (A worker thread for it measured no faster on
      // two cores: the client, the receive and the scan then share them.)
      const scan =
        csv && this.mayConvertLater(opts.expectedBytes)
          ? new CsvRecordScan(csv === 'tsv' ? 0x09 : 0x2c)
          : null;
      const { head, bytes, utf8 } = await receiveToFile(body, received, opts.maxBytes, {
        earlyHead,
        onChunk: scan ? (c) => scan.push(c) : undefined,
      });
      this.opts.logger.debug(
        { table: name, ms: Math.round(performance.now() - t0) },
        'files: upload received',
      );
      // Types named by the upload are applied by converting now: the later conversion and a
      // restart re-sniff the stored CSV and would not know them.
      if (csv && bytes > this.convertLaterAbove && !opts.types?.size) {
        const records = scan ? scan.end() : await scanFile(received, csv);
        return await this.storeCsvForLater(name, received, csv, bytes, utf8, await early, records, opts);
      }
      return await this.ingestReceived(name, received, head, declared, opts);
    } finally {
      done();
      await rm(received, { force: true });
    }
  }

  /** Whether an upload of this declared size (unknown: maybe) could take the convert-later path. */
  private mayConvertLater(expected: number | undefined): boolean {
    return expected === undefined || expected > this.convertLaterAbove;
  }

  private get convertLaterAbove(): number {
    return this.opts.convertLaterAbove ?? CONVERT_LATER_ABOVE;
  }

  /**
   * A large CSV/TSV: checked cheaply, moved into the store as it is, queryable at once
   * through a view with the sniffed types; the conversion to Parquet comes later.
   */
  private async storeCsvForLater(
    name: string,
    received: string,
    format: 'csv' | 'tsv',
    size: number,
    utf8: boolean,
    sniffed: CsvLayout | null,
    records: RecordScan,
    opts: Omit<UploadOptions, 'maxBytes'>,
  ): Promise<StoredFile> {
    const t0 = performance.now();
    const layout = await this.withConnection((conn) =>
      inspectCsv(conn, { path: received, format, label: name, size, utf8, sniffed, records }),
    );
    return this.withLock(name, async () => {
      if (!opts.replace && this.get(name)) throw exists(name);
      const created = !this.get(name);
      const record = await this.register(
        name,
        format,
        received,
        { rows: records.rows ?? ROWS_UNKNOWN, columns: layout.columns.length, sizeBytes: size },
        layout,
      );
      this.opts.logger.info(
        { table: name, format, check_ms: Math.round(performance.now() - t0) },
        'files: table stored as CSV; Parquet conversion scheduled',
      );
      return { record, created };
    });
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
    // Activity, like an upload: this process (the CLI) starts no background conversion meanwhile.
    const done = this.queue.busy();
    try {
      return await this.ingestReceived(name, path, head.subarray(0, bytesRead), declared, opts);
    } finally {
      done();
    }
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
          {
            path,
            format,
            sheet: opts.sheet ?? null,
            label: name,
            scratch: this.tmpPath('scratch'),
            large,
            types: opts.types ?? null,
          },
          staged,
        );
        const created = !this.get(name);
        const record = await this.register(name, format, staged, res);
        const ms = Math.round(performance.now() - t0);
        this.opts.logger.info({ table: name, format, rows: res.rows, ingest_ms: ms }, 'files: table stored');
        return res.sheet === undefined ? { record, created } : { record, created, sheet: res.sheet };
      } finally {
        conn.closeSync();
        db?.closeSync();
        await rm(staged, { force: true });
      }
    });
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
        return true;
      }),
    );
  }

  /** Under the table's and the mirror's locks. A running conversion of it is aborted. */
  private async removeNow(rec: FileRecord): Promise<void> {
    const key = rec.name.toLowerCase();
    await this.opts.store.deleteFile(rec.name);
    this.tables.delete(key);
    this.setPending(key, null);
    const conn = await this.db.connect();
    try {
      await conn.run(`DROP VIEW IF EXISTS ${duckIdent(rec.name)}`);
    } finally {
      conn.closeSync();
    }
    await this.retire(join(this.opts.storageDir, rec.storagePath));
  }

  /**
   * Move a staged file (Parquet, or with `layout` a CSV/TSV kept for a later conversion)
   * into place under a new name and record it; the previous file (on replace) is retired
   * once the catalog has the new record, and stays in use if that fails.
   */
  private register(
    name: string,
    format: string,
    staged: string,
    res: { rows: number; columns: number; sizeBytes: number },
    layout: CsvLayout | null = null,
  ): Promise<FileRecord> {
    // Under the mirror lock so a concurrent refresh() cannot drop the view it is adding.
    return this.withLock(MIRROR, () => this.registerNow(name, format, staged, res, layout));
  }

  private async registerNow(
    name: string,
    format: string,
    staged: string,
    res: { rows: number; columns: number; sizeBytes: number },
    layout: CsvLayout | null,
  ): Promise<FileRecord> {
    const key = name.toLowerCase();
    const previous = this.tables.get(key) ?? null;
    const record: FileRecord = {
      name,
      format,
      rows: res.rows,
      columns: res.columns,
      sizeBytes: res.sizeBytes,
      storagePath: storagePathFor(key, layout ? format : 'parquet'),
      createdAt: new Date().toISOString(),
    };
    await this.swapIn(previous, record, staged, layout);
    return record;
  }

  /**
   * Put `record` (its file staged at `staged`) in place of `previous`: file, catalog,
   * view, mirror. Under the mirror lock. On a catalog failure nothing changes.
   */
  private async swapIn(
    previous: FileRecord | null,
    record: FileRecord,
    staged: string,
    layout: CsvLayout | null,
  ): Promise<void> {
    const key = record.name.toLowerCase();
    const final = join(this.opts.storageDir, record.storagePath);
    await rename(staged, final);
    try {
      if (previous && previous.name !== record.name) await this.opts.store.deleteFile(previous.name);
      await this.opts.store.putFile(record);
    } catch (e) {
      await rm(final, { force: true });
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
    if (previous && previous.storagePath !== record.storagePath)
      await this.retire(join(this.opts.storageDir, previous.storagePath));
  }

  private viewSelect(rec: FileRecord, path: string, layout: CsvLayout | null): string {
    const fmt = pendingFormat(rec);
    return layout && fmt
      ? `SELECT * FROM ${csvReaderWith(path, fmt, layout, `, buffer_size = ${SMALL_CSV_BUFFER}`)}`
      : `SELECT * FROM read_parquet(${duckString(path)})`;
  }

  /** Mark `key` as stored in CSV (queued for conversion) or not (its conversion dropped). */
  private setPending(key: string, layout: CsvLayout | null): void {
    if (layout) {
      this.layouts.set(key, layout);
      this.queue.schedule(key);
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
    this.retired.push(path);
    if (this.queue.idle) await this.sweep();
  }

  private async sweep(): Promise<void> {
    const paths = this.retired;
    this.retired = [];
    await Promise.all(paths.map((p) => rm(p, { force: true })));
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
    let rec = this.get(table);
    if (!rec) {
      await this.refresh();
      rec = this.get(table);
    }
    if (!rec) throw unknownTable(table);
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
    try {
      return await this.queryOverCsv(sql, opts.signal);
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

  /**
   * While tables are still stored as CSV, a row past the sniffer's sample may not fit
   * its column's type (or the file may be bad past it). The first batch is read here so
   * such a failure is seen before any row is sent: the pending conversions then run now
   * (a type that does not fit is widened from every row, as a small upload gets) and the
   * statement runs again, or the error says which bad file was removed.
   */
  private async queryOverCsv(sql: string, signal?: AbortSignal): Promise<QueryStream> {
    if (!this.layouts.size) return this.stream(sql, signal);
    let s: QueryStream | null = null;
    let it: AsyncIterator<Row[]>;
    let first: IteratorResult<Row[]>;
    try {
      s = await this.stream(sql, signal);
      it = s.batches[Symbol.asyncIterator]();
      first = await it.next();
    } catch (e) {
      await s?.cancel();
      if (!(e instanceof SqlError) || !isCsvReadFailure(e.message)) throw e;
      const removed = await this.convertPending();
      if (removed.length) throw new SqlError(ErrorCode.SOURCE_ERROR, `files source: ${removed.join('; ')}`);
      return this.stream(sql, signal);
    }
    const stream = s;
    const self = this;
    async function* rest() {
      try {
        if (first.done) return;
        yield first.value;
        for (;;) {
          const n = await it.next();
          if (n.done) return;
          yield n.value;
        }
      } catch (e) {
        // Rows were sent already; convert now so the next statement reads the fixed table.
        if (e instanceof SqlError && isCsvReadFailure(e.message)) void self.convertPending();
        throw e;
      } finally {
        await it.return?.();
      }
    }
    return { columns: stream.columns, batches: rest(), cancel: stream.cancel };
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
    await this.sweep();
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

function exists(name: string): FileError {
  return new FileError(
    409,
    'file_exists',
    `A file table named '${name}' already exists; replace it with ?replace=true (tributary upload --replace)`,
  );
}

/** The stored form of a table still waiting for its conversion, else null (Parquet). */
function pendingFormat(rec: FileRecord): 'csv' | 'tsv' | null {
  const m = /\.(csv|tsv)$/.exec(rec.storagePath);
  return m ? (m[1] as 'csv' | 'tsv') : null;
}

/**
 * A new name per stored file: a replaced or converted table's old file can stay readable
 * for queries still running on it, and a stale writer can never overwrite a newer file.
 */
function storagePathFor(key: string, ext: string): string {
  return join('files', `${key}.${randomUUID().slice(0, 8)}.${ext}`);
}

function isCsvReadFailure(msg: string): boolean {
  return /CSV Error|Could not convert|Conversion Error|Invalid unicode|Expected Number of Columns/i.test(msg);
}

/**
 * Stored files no record names are leftovers of a crash (a conversion or a replace cut
 * short). Only old ones: another process (the CLI) may be between moving a file in and
 * recording it.
 */
async function clearOrphans(dir: string, referenced: Set<string>): Promise<void> {
  const cutoff = Date.now() - 600_000;
  for (const n of await readdir(dir).catch(() => [] as string[])) {
    if (n.startsWith('.')) continue;
    const p = join(dir, n);
    if (referenced.has(p)) continue;
    const s = await stat(p).catch(() => null);
    if (s?.isFile() && s.mtimeMs < cutoff) await rm(p, { force: true });
  }
}
