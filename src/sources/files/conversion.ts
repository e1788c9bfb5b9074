import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { CsvLayout } from './csv-layout.js';
import { FileError } from './errors.js';
import { ingestToParquet } from './ingest.js';
import type { FilesSourceOptions } from './options.js';
import type { FileRecord } from './record.js';

/** What a background conversion needs of the files source: its tables, locks and the swap. */
export interface ConversionContext {
  opts: FilesSourceOptions;
  tmpDir: string;
  tables: ReadonlyMap<string, FileRecord>;
  layouts: ReadonlyMap<string, CsvLayout>;
  /** Why a conversion removed a table (a bad file), for the next query. */
  failures: Map<string, string>;
  closed(): boolean;
  tmpPath(kind: string): string;
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Lock key of the catalog mirror. */
  mirror: string;
  /** Store the staged bytes for `record` (bytes.ts); returns the record naming them. */
  place(staged: string, record: FileRecord): Promise<FileRecord>;
  /** Take back placed bytes that were not registered. */
  unplace(record: FileRecord): Promise<void>;
  swapIn(previous: FileRecord, record: FileRecord, layout: CsvLayout | null): Promise<void>;
  removeNow(rec: FileRecord): Promise<void>;
  storagePathFor(key: string, ext: string): string;
  pendingFormat(rec: FileRecord): 'csv' | 'tsv' | null;
}

/**
 * Convert a table still stored as CSV to Parquet with the types its view reads with,
 * then swap it in, if the table is still the record this started from (a replace or a
 * drop meanwhile wins; they also abort `signal`). A file the conversion finds bad (a
 * ragged row or bad bytes past the sniffer's sample) is a bad upload: the table is
 * removed, and the next query says why.
 */
export async function convertToParquet(
  ctx: ConversionContext,
  key: string,
  signal: AbortSignal,
): Promise<void> {
  const rec = ctx.tables.get(key);
  const layout = ctx.layouts.get(key);
  const format = rec && ctx.pendingFormat(rec);
  if (!rec || !layout || !format || ctx.closed()) return;
  const t0 = performance.now();
  const csv = join(ctx.opts.storageDir, rec.storagePath);
  const staged = ctx.tmpPath('parquet');
  let db: DuckDBInstance;
  let conn: DuckDBConnection;
  try {
    // Its own small DuckDB: one thread leaves the other core to queries, and its
    // memory is bounded (it spills to disk past the limit) without limiting queries.
    db = await DuckDBInstance.create(':memory:', {
      memory_limit: ctx.opts.ingestMemoryLimit ?? '128MB',
      threads: '1',
      temp_directory: join(ctx.tmpDir, 'duckdb'),
      autoinstall_known_extensions: 'false',
    });
    conn = await db.connect();
  } catch (e) {
    ctx.opts.logger.error({ table: rec.name, err: (e as Error)?.message }, 'files: conversion failed');
    return;
  }
  const onAbort = () => conn.interrupt();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await ingestToParquet(
      conn,
      { path: csv, format, label: rec.name, scratch: ctx.tmpPath('scratch'), large: true, layout },
      staged,
    );
    if (signal.aborted) return;
    // The Parquet's bytes are stored before the locks (in the catalog database they take a
    // while), and taken back if a replace or drop won meanwhile.
    const next = await ctx.place(staged, {
      ...rec,
      rows: res.rows,
      columns: res.columns,
      sizeBytes: res.sizeBytes,
      storagePath: ctx.storagePathFor(key, 'parquet'),
    });
    let registered = false;
    try {
      await ctx.withLock(rec.name, () =>
        ctx.withLock(ctx.mirror, async () => {
          if (ctx.closed() || signal.aborted || !(await stillCurrent(ctx, rec))) return;
          await ctx.swapIn(rec, next, null);
          registered = true;
          ctx.opts.logger.info(
            { table: rec.name, rows: res.rows, convert_ms: Math.round(performance.now() - t0) },
            'files: CSV converted to Parquet',
          );
        }),
      );
    } finally {
      if (!registered) await ctx.unplace(next);
    }
  } catch (e) {
    if (signal.aborted || ctx.closed()) return;
    if (!(e instanceof FileError) || e.status === 507) {
      // Not the file's fault (disk, catalog): it stays queryable as CSV; a restart retries.
      ctx.opts.logger.error({ table: rec.name, err: (e as Error)?.message }, 'files: conversion failed');
      return;
    }
    await ctx.withLock(rec.name, () =>
      ctx.withLock(ctx.mirror, async () => {
        if (!(await stillCurrent(ctx, rec))) return;
        await ctx.removeNow(rec);
        ctx.failures.set(key, `${e.message}; the table '${rec.name}' was removed`);
        ctx.opts.logger.warn(
          { table: rec.name, err: e.message },
          'files: bad CSV found by its conversion; table removed',
        );
      }),
    );
  } finally {
    signal.removeEventListener('abort', onAbort);
    conn.closeSync();
    db.closeSync();
    await rm(staged, { force: true });
  }
}

/**
 * Whether `rec` is still the table here and in the catalog (another process sharing the
 * storage dir, such as the CLI, may have converted or replaced it meanwhile).
 */
async function stillCurrent(ctx: ConversionContext, rec: FileRecord): Promise<boolean> {
  const key = rec.name.toLowerCase();
  if (ctx.tables.get(key) !== rec) return false;
  const stored = (await ctx.opts.store.listFiles()).find((r) => r.name.toLowerCase() === key);
  return stored?.storagePath === rec.storagePath;
}
