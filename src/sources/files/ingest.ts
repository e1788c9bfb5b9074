import { open, rm, stat } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, stringLiteral } from '../../core/sql-text.js';
import { withTypes } from './column-types.js';
import { describeRecordProblem, type RecordScan, recordProblem, scanFile } from './csv-check.js';
import type { Delimiter } from './csv-delimiter.js';
import { type CsvLayout, csvOptions, csvReaderWith, readHead, SMALL_CSV_BUFFER } from './csv-layout.js';
import { decideLayout } from './csv-schema.js';
import { FileError, invalidFile } from './errors.js';
import type { FileFormat } from './formats.js';

const duckIdent = (name: string) => quoteIdent('duckdb', name);
const duckString = (value: string) => stringLiteral('duckdb', value);

export interface IngestInput {
  /** The received file. */
  path: string;
  format: FileFormat;
  /** XLSX: sheet name or 1-based number; null for the first sheet. */
  sheet?: string | null;
  /** Name shown in messages instead of the temp path (the table name). */
  label: string;
  /** Scratch path for intermediate files (XLSX → NDJSON); removed afterwards. */
  scratch: string;
  /** A large file: read CSV with small buffers to bound memory. */
  large?: boolean;
  /**
   * CSV/TSV: the layout decided for the upload (csv-layout.ts decideLayout; a table kept
   * as CSV was queried with it), so the Parquet file holds exactly those types; only a row
   * that does not fit them re-infers. Decided here when not given.
   */
  layout?: CsvLayout | null;
  /** CSV/TSV without a layout: the delimiter the upload names; else detected. */
  delimiter?: Delimiter | null;
  /** CSV/TSV: the upload's own column types (`?types=`), DuckDB type names by column. */
  types?: Map<string, string> | null;
}

export interface IngestResult {
  rows: number;
  columns: number;
  sizeBytes: number;
  /** XLSX: the sheet read. */
  sheet?: string;
}

/** Rows per Parquet row group: big enough for fast scans, small enough to bound the writer's memory. */
const ROW_GROUP = 122_880;
/**
 * A large file's row groups are half that: the writer holds one row group per thread
 * in memory, and this cuts the ingest's peak by ~10 MB at no measured speed cost.
 */
const LARGE_ROW_GROUP = 61_440;

/**
 * Read an uploaded file once with DuckDB (its type inference: integers, decimals as
 * DOUBLE, dates, timestamps, booleans, text) and write it as Parquet at `dest`, which
 * later queries scan far faster than re-parsing CSV or JSON. On failure `dest` is
 * removed and a FileError says what is wrong with the file.
 */
export async function ingestToParquet(
  conn: DuckDBConnection,
  input: IngestInput,
  dest: string,
): Promise<IngestResult> {
  const display = (msg: string) => cleanMessage(msg, [input.path, input.scratch, dest], input.label);
  try {
    const size = (await stat(input.path)).size;
    if (size === 0) throw invalidFile(`The file for '${input.label}' is empty`);
    if (input.format === 'json' && !(await endsWith(input.path, 0x5d))) {
      // DuckDB reads a truncated array up to the cut; a JSON array must close.
      throw invalidFile(
        `Could not read '${input.label}' as a JSON array of objects: the array is not closed (truncated file?)`,
      );
    }
    let source = input.path;
    let format = input.format;
    let replace = '';
    let sheet: string | undefined;
    if (format === 'xlsx') {
      // Loaded on first use: exceljs costs the idle server ~10 MB and only XLSX needs it.
      const { xlsxToNdjson } = await import('./xlsx.js');
      const conv = await xlsxToNdjson(input.path, input.scratch, input.sheet ?? null);
      if (conv.rows === 0) throw invalidFile(`Sheet '${conv.sheet}' of '${input.label}' has no data rows`);
      source = input.scratch;
      format = 'ndjson';
      sheet = conv.sheet;
      if (conv.dateOnly.length)
        replace = ` REPLACE (${conv.dateOnly.map((c) => `CAST(${duckIdent(c)} AS DATE) AS ${duckIdent(c)}`).join(', ')})`;
    }
    const rowGroup = input.large ? LARGE_ROW_GROUP : ROW_GROUP;
    const csv = format === 'csv' || format === 'tsv' ? format : null;
    const types = input.types?.size ? input.types : null;
    if (types && !csv)
      throw new FileError(
        400,
        'invalid_types',
        `types applies to CSV and TSV files, not ${formatName(format)}`,
      );
    let layout = input.layout ?? null;
    if (csv && !layout) {
      const scan = await scanFile(source, input.delimiter ?? (csv === 'tsv' ? '\t' : null));
      const problem = describeRecordProblem(scan);
      if (problem) throw invalidFile(`Could not read '${input.label}' as ${csv.toUpperCase()}: ${problem}`);
      layout = await decideLayout(
        conn,
        { path: source, size, head: await readHead(source) },
        scan,
        input.scratch,
      );
    }
    if (types && layout) layout = withTypes(layout, types, input.label);
    let rows: number;
    try {
      const first =
        layout && csv
          ? csvReaderWith(source, layout, csvBuffer(!!input.large))
          : reader(format, source, false, !!input.large, null);
      rows = await copy(conn, `SELECT *${replace} FROM ${first}`, dest, rowGroup);
    } catch (e) {
      // DuckDB infers types from a sample of rows; a later row that does not fit makes
      // the whole read fail. Infer again from every row (slower, only when needed). Types
      // the upload named are kept: a value that does not fit them is the file's error.
      if (!isCastError(e) || types) throw e;
      rows = await copy(
        conn,
        `SELECT *${replace} FROM ${reader(format, source, true, !!input.large, layout)}`,
        dest,
        rowGroup,
      );
    }
    if (rows === 0) throw invalidFile(`'${input.label}' has no data rows`);
    const desc = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${duckString(dest)})`);
    const out: IngestResult = { rows, columns: desc.currentRowCount, sizeBytes: (await stat(dest)).size };
    if (sheet !== undefined) out.sheet = sheet;
    return out;
  } catch (e) {
    await rm(dest, { force: true });
    throw await fileErrorFrom(e, input, input.layout?.delimiter ?? null, display);
  } finally {
    if (input.format === 'xlsx') await rm(input.scratch, { force: true });
  }
}

/**
 * What the whole-file checks of a received CSV/TSV found, as the refusal the client gets:
 * not empty, UTF-8 (the line of the first bad byte), every record as wide as the header
 * and every quote closed (the line and the reason). Both paths check this before reading.
 */
export function csvRefusal(
  input: { label: string; format: 'csv' | 'tsv'; size: number; badUtf8Line: number | null },
  records: RecordScan,
): FileError | null {
  const what = input.format.toUpperCase();
  if (input.size === 0) return invalidFile(`The file for '${input.label}' is empty`);
  if (input.badUtf8Line !== null)
    return invalidFile(
      `Could not read '${input.label}' as ${what}: line ${input.badUtf8Line} is not valid UTF-8 (Unicode) text; save the file as UTF-8`,
    );
  const problem = describeRecordProblem(records);
  return problem ? invalidFile(`Could not read '${input.label}' as ${what}: ${problem}`) : null;
}

/** The upload's layout (csv-schema.ts decideLayout); a file DuckDB's sniffer refuses is a FileError. */
export async function csvLayout(
  conn: DuckDBConnection,
  input: {
    path: string;
    format: 'csv' | 'tsv';
    label: string;
    size: number;
    head: Buffer | Promise<CsvLayout | null>;
  },
  scan: RecordScan,
  scratch: string,
): Promise<CsvLayout> {
  try {
    return await decideLayout(conn, input, scan, scratch);
  } catch (e) {
    throw await fileErrorFrom(e, input, scan.delimiter, (msg) =>
      cleanMessage(msg, [input.path], input.label),
    );
  }
}

/**
 * The cheap check of a CSV/TSV whose conversion runs later, its whole-file checks passed
 * (csvRefusal): the layout reads a first data row. A FileError says what is wrong.
 */
export async function inspectCsv(
  conn: DuckDBConnection,
  input: { path: string; format: 'csv' | 'tsv'; label: string; layout: CsvLayout },
): Promise<void> {
  const display = (msg: string) => cleanMessage(msg, [input.path], input.label);
  try {
    // One data row, read with a small buffer (the default one would read 32 MB for it).
    const first = csvReaderWith(input.path, input.layout, `, buffer_size = ${SMALL_CSV_BUFFER}`);
    const r = await conn.runAndReadAll(`SELECT 1 FROM ${first} LIMIT 1`);
    if (r.currentRowCount === 0) throw invalidFile(`'${input.label}' has no data rows`);
  } catch (e) {
    throw await fileErrorFrom(e, input, input.layout.delimiter, display);
  }
}

/** A failed read as the FileError the client sees: a ragged CSV names its line. */
async function fileErrorFrom(
  e: unknown,
  input: Pick<IngestInput, 'path' | 'format' | 'label'>,
  delimiter: Delimiter | null,
  display: (msg: string) => string,
): Promise<FileError> {
  if (e instanceof FileError) return e;
  const msg = (e as Error)?.message ?? String(e);
  if (
    (input.format === 'csv' || input.format === 'tsv') &&
    /sniff|Expected Number of Columns|too many columns/i.test(msg)
  ) {
    const d = delimiter ?? (input.format === 'tsv' ? '\t' : null);
    const problem = await recordProblem(input.path, d).catch(() => null);
    if (problem)
      return invalidFile(`Could not read '${input.label}' as ${input.format.toUpperCase()}: ${problem}`);
  }
  return invalidFile(`Could not read '${input.label}' as ${formatName(input.format)}: ${display(msg)}`);
}

/** `SELECT ...` → Parquet at `dest`; returns the row count. */
export async function copy(
  conn: DuckDBConnection,
  select: string,
  dest: string,
  rowGroup = ROW_GROUP,
): Promise<number> {
  const r = await conn.runAndReadAll(
    `COPY (${select}) TO ${duckString(dest)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${rowGroup})`,
  );
  return Number(r.getRows()[0]?.[0] ?? 0);
}

function csvBuffer(large: boolean): string {
  return large ? `, buffer_size = ${SMALL_CSV_BUFFER}` : '';
}

function reader(
  format: FileFormat,
  path: string,
  fullScan: boolean,
  large: boolean,
  layout: CsvLayout | null,
): string {
  const sample = fullScan ? ', sample_size = -1' : '';
  switch (format) {
    case 'csv':
    case 'tsv':
      return `read_csv(${duckString(path)}, ${csvOptions(layout?.delimiter ?? (format === 'tsv' ? '\t' : ','))}${layout?.decimalComma ? ", decimal_separator = ','" : ''}${sample}${csvBuffer(large)})`;
    case 'json':
      return `read_json(${duckString(path)}, format = 'array', records = true${sample})`;
    case 'ndjson':
      return `read_json(${duckString(path)}, format = 'newline_delimited', records = true${sample})`;
    case 'parquet':
      return `read_parquet(${duckString(path)})`;
    default:
      throw new Error(`no reader for ${format}`);
  }
}

/** Whether the last non-whitespace byte of the file is `byte`. */
async function endsWith(path: string, byte: number): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const n = Math.min(size, 4096);
    const buf = Buffer.alloc(n);
    await fh.read(buf, 0, n, size - n);
    for (let i = n - 1; i >= 0; i--) {
      const b = buf[i];
      if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue;
      return b === byte;
    }
    return false;
  } finally {
    await fh.close();
  }
}

export function isCastError(e: unknown): boolean {
  return /Could not convert|Conversion Error|could not be cast|Could not parse/i.test(
    (e as Error)?.message ?? '',
  );
}

function formatName(f: FileFormat): string {
  return f === 'json' ? 'a JSON array of objects' : f === 'ndjson' ? 'NDJSON' : f.toUpperCase();
}

/**
 * DuckDB's message without the SQL echo and with our storage paths replaced by the
 * table name: the client learns what is wrong with the file, not where we keep it.
 */
function cleanMessage(msg: string, paths: string[], label: string): string {
  let m = msg.split(/\n\s*\n|\nLINE \d+:|\nThe search space|\nPossible fixes/)[0].trim();
  for (const p of paths) m = m.split(p).join(label);
  m = m.replace(/^(Invalid Input Error|Conversion Error|Binder Error|IO Error|Parser Error): /, '');
  m = m.replace(/\s*\n\s*/g, ' ');
  return m.length > 600 ? `${m.slice(0, 600)}…` : m;
}
