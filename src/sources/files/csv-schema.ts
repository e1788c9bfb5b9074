/**
 * One file, one schema: the layout of a CSV (delimiter and column types) decided in one
 * place, for a small upload read before the answer, a large one kept as CSV and converted
 * later, and a restart that finds one still waiting.
 */
import { stat } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { fixedPointColumns } from './column-types.js';
import { type RecordScan, scanFile } from './csv-check.js';
import { type CsvLayout, readHead, SNIFF_HEAD, sniffCsv, sniffHead } from './csv-layout.js';

/**
 * The layout of a CSV, decided in this one place for every path: DuckDB's sniffer on the
 * head (`head`: the file's first SNIFF_HEAD bytes, `size` the file's), else on the whole
 * file when the head alone cannot be sniffed (a quoted field runs past the cut, a line
 * longer than the head); then fixed-point columns from the record scan of every row.
 */
export async function decideLayout(
  conn: DuckDBConnection,
  file: { path: string; size: number; head: Buffer | Promise<CsvLayout | null> },
  scan: RecordScan,
  scratch: string,
): Promise<CsvLayout> {
  const early =
    file.size <= SNIFF_HEAD
      ? null
      : Buffer.isBuffer(file.head)
        ? await sniffHead(conn, file.head, scan.delimiter, scratch)
        : await file.head;
  const sniffed = early ?? (await sniffCsv(conn, file.path, scan.delimiter));
  return fixedPointColumns(sniffed, scan);
}

/** The layout of a stored CSV, decided exactly as for its upload (a restart, another replica). */
export async function storedLayout(
  conn: DuckDBConnection,
  path: string,
  format: 'csv' | 'tsv',
  scratch: string,
): Promise<CsvLayout> {
  const head = await readHead(path);
  const size = (await stat(path)).size;
  const scan = await scanFile(path, format === 'tsv' ? '\t' : null);
  return decideLayout(conn, { path, size, head }, scan, scratch);
}
