import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { CsvRecordScan, type RecordScan, scanFile } from './csv-check.js';
import { type CsvLayout, SNIFF_HEAD, sniffHead } from './csv-layout.js';
import { FileError } from './errors.js';
import { declaredFormat, type FileFormat, refineJson, sniffFormat } from './formats.js';
import { ingestToParquet, inspectCsv } from './ingest.js';
import { checkTableName } from './names.js';
import type { FilesSourceOptions } from './options.js';
import { receiveToFile } from './receive.js';
import type { FileRecord } from './record.js';

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
      // A large CSV's types are sniffed from its head while the rest still arrives.
      let early: Promise<CsvLayout | null> = Promise.resolve(null);
      const csv = declared === 'csv' || declared === 'tsv' ? declared : null;
      const earlyHead = csv
        ? {
            bytes: SNIFF_HEAD,
            after: Math.max(SNIFF_HEAD, this.convertLaterAbove),
            onHead: (head: Buffer) => {
              early = this.ctx.withConnection((conn) => sniffHead(conn, head, csv, this.ctx.tmpPath('head')));
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
      this.ctx.opts.logger.debug(
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
    utf8: boolean,
    sniffed: CsvLayout | null,
    records: RecordScan,
    opts: Omit<UploadOptions, 'maxBytes'>,
  ): Promise<StoredFile> {
    const t0 = performance.now();
    const layout = await this.ctx.withConnection((conn) =>
      inspectCsv(conn, { path: received, format, label: name, size, utf8, sniffed, records }),
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
          },
          staged,
        );
        const created = !this.ctx.get(name);
        const record = await this.ctx.register(name, format, staged, res);
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

function exists(name: string): FileError {
  return new FileError(
    409,
    'file_exists',
    `A file table named '${name}' already exists; replace it with ?replace=true (tributary upload --replace)`,
  );
}
