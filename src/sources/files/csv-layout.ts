import { open, rm, writeFile } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { stringLiteral } from '../../core/sql-text.js';
import { type Delimiter, duckDelimiter } from './csv-delimiter.js';

const duckString = (value: string) => stringLiteral('duckdb', value);

/**
 * How a CSV is read: its delimiter (csv-delimiter.ts) and its column types (DuckDB's
 * sniffer on the file's head, then fixed-point columns as DECIMAL, column-types.ts). Read
 * with exactly this, a scan skips sniffing.
 */
export interface CsvLayout {
  delimiter: Delimiter;
  columns: { name: string; type: string }[];
  dateFormat: string | null;
  timestampFormat: string | null;
  /** Numbers are written with a decimal comma (`12,50`; the delimiter is then not a comma). */
  decimalComma?: boolean;
}

/**
 * A CSV read buffer of DuckDB's default max_line_size (2 MB): the smallest that still
 * reads every line the default reader would. For a large ingest it bounds memory; for a
 * view over a CSV it makes `LIMIT 10` read 2 MB rather than the default 32 MB (4 ms
 * instead of 15-100 ms), with no measured cost to full scans.
 */
export const SMALL_CSV_BUFFER = 2 * 1024 * 1024;

/**
 * The sniffer reads one buffer for its sample: 1 MB (~20k typical rows, its default
 * sample) instead of the default 32 MB cuts sniffing a 40 MB file from ~60 to ~15 ms.
 */
const SNIFF_BUFFER = 1 << 20;

/**
 * The layout is fixed by the format (delimiter, RFC 4180 quotes, a header line, no
 * skipped rows, strict mode): a ragged file fails instead of being read as one wide text
 * column or from a later "header" line. Only types are left to the sniffer.
 */
export function csvOptions(delimiter: Delimiter): string {
  return `delim = ${duckDelimiter(delimiter)}, quote = '"', escape = '"', header = true, skip = 0, strict_mode = true, encoding = 'utf-8'`;
}

/**
 * Every CSV's types are sniffed on its head: these bytes cut after the last line end in
 * them (the whole file when shorter). So one file gets one schema whatever its size and
 * whichever path it takes (read whole before the answer, or kept as CSV and converted
 * later), the types can be decided while the rest of an upload still arrives, and a
 * restart decides them again from the same bytes.
 */
export const SNIFF_HEAD = 1 << 20;

/**
 * The sniffed layout of a CSV whose first SNIFF_HEAD bytes are `head` (the file is
 * longer), on a scratch copy cut after its last newline; null when the head alone cannot
 * be sniffed: then the whole file is.
 */
export async function sniffHead(
  conn: DuckDBConnection,
  head: Buffer,
  delimiter: Delimiter,
  scratch: string,
): Promise<CsvLayout | null> {
  const cut = head.lastIndexOf(0x0a);
  if (cut <= 0) return null;
  try {
    await writeFile(scratch, head.subarray(0, cut + 1), { mode: 0o600 });
    return await sniffCsv(conn, scratch, delimiter);
  } catch {
    return null;
  } finally {
    await rm(scratch, { force: true });
  }
}

/** The first SNIFF_HEAD bytes of a file. */
export async function readHead(path: string): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(Math.min((await fh.stat()).size, SNIFF_HEAD));
    await fh.read(head, 0, head.length, 0);
    return head;
  } finally {
    await fh.close();
  }
}

/** Types (and date formats) from DuckDB's sniffer on a sample of the file. */
export async function sniffCsv(
  conn: DuckDBConnection,
  path: string,
  delimiter: Delimiter,
): Promise<CsvLayout> {
  const r = await conn.runAndReadAll(
    `SELECT Columns, DateFormat, TimestampFormat FROM sniff_csv(${duckString(path)}, ${csvOptions(delimiter)}, buffer_size = ${SNIFF_BUFFER})`,
  );
  const [cols, dateFormat, timestampFormat] = r.getRowsJS()[0] as [
    { name: string; type: string }[],
    string | null,
    string | null,
  ];
  return {
    delimiter,
    columns: cols.map((c) => ({ name: String(c.name), type: String(c.type) })),
    dateFormat: dateFormat || null,
    timestampFormat: timestampFormat || null,
  };
}

/** `read_csv(...)` with the sniffed layout spelled out, so reading it never sniffs again. */
export function csvReaderWith(path: string, layout: CsvLayout, extra = ''): string {
  const cols = layout.columns.map((c) => `${duckString(c.name)}: ${duckString(c.type)}`).join(', ');
  let opts = `${csvOptions(layout.delimiter)}, auto_detect = false, comment = '', columns = {${cols}}`;
  if (layout.dateFormat) opts += `, dateformat = ${duckString(layout.dateFormat)}`;
  if (layout.timestampFormat) opts += `, timestampformat = ${duckString(layout.timestampFormat)}`;
  if (layout.decimalComma) opts += `, decimal_separator = ','`;
  // No new_line: DuckDB 1.5 reads no row at all when told '\r\n' (the line end of Excel
  // and of Python's csv module), and finds the line end itself when it is not told.
  return `read_csv(${duckString(path)}, ${opts}${extra})`;
}
