import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { CsvRecordScan, type RecordScan } from './csv-check.js';
import type { Delimiter } from './csv-delimiter.js';
import { type CsvLayout, SNIFF_HEAD, sniffHead } from './csv-layout.js';
import { FileError } from './errors.js';
import { declaredFormat, type FileFormat, refineJson, sniffFormat } from './formats.js';
import { csvLayout, csvRefusal, ingestToParquet, inspectCsv } from './ingest.js';
import { checkTableName } from './names.js';
import type { FilesSourceOptions } from './options.js';
import { receiveToFile } from './receive.js';
import type { FileRecord } from './record.js';
import { lineAt } from './utf8-check.js';

/** Past this size an ingest reads with one thread and small buffers: peak memory over speed. */
const LARGE_FILE = 256 * 1024 * 1024;
const CONVERT_LATER_ABOVE = 8 * 1024 * 1024;
/** `rows` of a table whose CSV has not been converted (counted) yet; null in answers. */
export const ROWS_UNKNOWN = -1;

export interface UploadOptions {
  /** `?format=`; else the file name's extension, the content type, then the first bytes. */
  format?: string | null;
  fileName?: string | null;
  contentType?: string | null;
  /** XLSX sheet name or 1-based number. */
  sheet?: string | null;
  /** CSV/TSV column types the upload names (column-types.ts parseTypesParam). */
  types?: Map<string, string> | null;
  /** CSV/TSV: the delimiter the upload names (`?delimiter=`); else detected (csv-delimiter.ts). */
  delimiter?: Delimiter | null;
  replace?: boolean;
  maxBytes: number;
  /** The principal storing it, kept with the registration. */
  uploadedBy?: string | null;
}

export interface StoredFile {
  record: FileRecord;
  /** false when an existing table was replaced. */
  created: boolean;
  /** XLSX: the sheet that was read (named in the answer, since the first one is taken by default). */
  sheet?: string;
}

/** What uploads need of the files source: its tables, locks, DuckDB and registration. */
export interface UploadContext {
  opts: FilesSourceOptions;
  db: DuckDBInstance;
  tmpDir: string;
  get(name: string): FileRecord | null;
  tmpPath(kind: string): string;
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  withConnection<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T>;
  /** Marks activity: no background conversion starts until the returned function is called. */
  busy(): () => void;
  register(
    name: string,
    format: string,
    staged: string,
    res: { rows: number; columns: number; sizeBytes: number },
    layout?: CsvLayout | null,
    uploadedBy?: string | null,
  ): Promise<FileRecord>;
}

/**
 * Uploads into the files source: the body streamed to a scratch file (bounded), its format
 * told, then ingested to Parquet and registered; a large CSV/TSV is checked, registered as
 * CSV and converted later (conversion.ts).
 */
export class Uploads {
  constructor(private readonly ctx: UploadContext) {}

  /** Refuse early (before reading a body) what would be refused after it. */
  precheck(name: string, replace: boolean): void {
    checkTableName(name);
    if (!replace && this.ctx.get(name)) throw exists(name);
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
    const received = this.ctx.tmpPath('upload');
    // An upload counts as activity: no background conversion starts under it.
    const done = this.ctx.busy();
    try {
      const t0 = performance.now();
      const csv = declared === 'csv' || declared === 'tsv' ? declared : null;
      // Every record of a CSV is scanned as it arrives (its delimiter decided on the first
      // records): a ragged row anywhere refuses the upload before anything is read or
      // registered, the row count is known at once, and the columns holding only
      // fixed-point numbers are known. (A worker thread for it measured no faster on two
      // cores: the client, the receive and the scan then share them.)
      const scan = csv ? new CsvRecordScan(givenDelimiter(csv, opts.delimiter)) : null;
      // A CSV's types are sniffed on its head (csv-layout.ts), while the rest still arrives.
      let early: Promise<CsvLayout | null> = Promise.resolve(null);
      const earlyHead = scan
        ? {
            bytes: SNIFF_HEAD,
            after: SNIFF_HEAD,
            onHead: (head: Buffer) => {
              const delimiter = scan.decided as Delimiter;
              early = this.ctx.withConnection((conn) =>
                sniffHead(conn, head, delimiter, this.ctx.tmpPath('head')),
              );
              early.catch(() => {});
            },
          }
        : undefined;
      const { head, bytes, badUtf8At } = await receiveToFile(body, received, opts.maxBytes, {
        earlyHead,
        onChunk: scan ? (c) => scan.push(c) : undefined,
      });
      this.ctx.opts.logger.debug(
        { table: name, ms: Math.round(performance.now() - t0) },
        'files: upload received',
      );
      if (!csv || !scan) return await this.ingestReceived(name, received, head, declared, opts, null);
      const records = scan.end();
      const badUtf8Line = badUtf8At === null ? null : await lineAt(received, badUtf8At);
      const refused = csvRefusal({ label: name, format: csv, size: bytes, badUtf8Line }, records);
      if (refused) throw refused;
      const layout = await this.ctx.withConnection((conn) =>
        csvLayout(
          conn,
          { path: received, format: csv, label: name, size: bytes, head: early },
          records,
          this.ctx.tmpPath('head'),
        ),
      );
      // Types or a delimiter named by the upload are applied by converting now: the later
      // conversion and a restart decide the stored CSV's layout again and would not know them.
      if (bytes > this.convertLaterAbove && !opts.types?.size && !opts.delimiter)
        return await this.storeCsvForLater(name, received, csv, bytes, layout, records, opts);
      return await this.ingestReceived(name, received, head, declared, opts, layout);
    } finally {
      done();
      await rm(received, { force: true });
    }
  }

  private get convertLaterAbove(): number {
    return this.ctx.opts.convertLaterAbove ?? CONVERT_LATER_ABOVE;
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
    layout: CsvLayout,
    records: RecordScan,
    opts: Omit<UploadOptions, 'maxBytes'>,
  ): Promise<StoredFile> {
    const t0 = performance.now();
    await this.ctx.withConnection((conn) =>
      inspectCsv(conn, { path: received, format, label: name, layout }),
    );
    return this.ctx.withLock(name, async () => {
      if (!opts.replace && this.ctx.get(name)) throw exists(name);
      const created = !this.ctx.get(name);
      const record = await this.ctx.register(
        name,
        format,
        received,
        { rows: records.rows ?? ROWS_UNKNOWN, columns: layout.columns.length, sizeBytes: size },
        layout,
        opts.uploadedBy,
      );
      this.ctx.opts.logger.info(
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
    const done = this.ctx.busy();
    try {
      return await this.ingestReceived(name, path, head.subarray(0, bytesRead), declared, opts, null);
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
    layout: CsvLayout | null,
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
    return this.ctx.withLock(name, async () => {
      if (!opts.replace && this.ctx.get(name)) throw exists(name);
      const t0 = performance.now();
      const staged = this.ctx.tmpPath('parquet');
      const size = (await stat(path)).size;
      // A large upload gets its own small DuckDB, so its memory is bounded (and spills to
      // disk) without limiting queries. A smaller one runs on the query instance: a fresh
      // instance per upload costs more than the ingest of a small file, and its budget
      // (its memory_limit, set in open()) already bounds it.
      const large = size > LARGE_FILE;
      const db = large
        ? await DuckDBInstance.create(':memory:', {
            memory_limit: this.ctx.opts.ingestMemoryLimit ?? '128MB',
            threads: '1',
            temp_directory: join(this.ctx.tmpDir, 'duckdb'),
            autoinstall_known_extensions: 'false',
          })
        : null;
      const conn = await (db ?? this.ctx.db).connect();
      try {
        const res = await ingestToParquet(
          conn,
          {
            path,
            format,
            sheet: opts.sheet ?? null,
            label: name,
            scratch: this.ctx.tmpPath('scratch'),
            large,
            types: opts.types ?? null,
            layout,
            delimiter: opts.delimiter ?? null,
          },
          staged,
        );
        const created = !this.ctx.get(name);
        const record = await this.ctx.register(name, format, staged, res, null, opts.uploadedBy);
        const ms = Math.round(performance.now() - t0);
        this.ctx.opts.logger.info(
          { table: name, format, rows: res.rows, ingest_ms: ms },
          'files: table stored',
        );
        return res.sheet === undefined ? { record, created } : { record, created, sheet: res.sheet };
      } finally {
        conn.closeSync();
        db?.closeSync();
        await rm(staged, { force: true });
      }
    });
  }
}

/** The delimiter an upload fixes: the caller's, or tab for TSV; null: detected from the file. */
function givenDelimiter(format: 'csv' | 'tsv', given: Delimiter | null | undefined): Delimiter | null {
  return given ?? (format === 'tsv' ? '\t' : null);
}

function exists(name: string): FileError {
  return new FileError(
    409,
    'file_exists',
    `A file table named '${name}' already exists; replace it with ?replace=true (tributary upload --replace)`,
  );
}
