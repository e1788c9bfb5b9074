import { createReadStream } from 'node:fs';

export interface RaggedRow {
  line: number;
  fields: number;
  expected: number;
}

export interface RecordScan {
  /** Data records (the header not counted), as DuckDB's strict reader counts rows; null when unsure. */
  rows: number | null;
  /** The first record whose field count differs from the header's. */
  ragged: RaggedRow | null;
  /** The file ends inside a quoted field. */
  unclosedQuote: boolean;
  /** Then: the line of the quote that opened it. */
  unclosedQuoteLine: number | null;
}

const QUOTE = 0x22;
const NL = 0x0a;
const CR = 0x0d;

/**
 * RFC 4180 records of a CSV/TSV, fed chunk by chunk (while an upload arrives, or from a
 * file): counts the records and finds the first whose field count differs from the
 * header's, honouring quotes (a quoted field may hold the delimiter and newlines; a
 * doubled quote toggles twice). Empty lines are skipped, as DuckDB's reader skips them,
 * except in a one-column file, where DuckDB reads them as NULL rows: the count is then
 * left unknown.
 */
export class CsvRecordScan {
  private inQuote = false;
  private fields = 1;
  private empty = true;
  private line = 1;
  private recordLine = 1;
  private expected = -1;
  private records = 0;
  private sawEmptyLine = false;
  /** Line of the quote that opened the current quoted field. */
  private quoteLine = 0;
  ragged: RaggedRow | null = null;
  /** A comma or a tab (push() relies on the delimiter being <= 44). */
  constructor(private readonly delimiter: 0x2c | 0x09) {}

  push(chunk: Buffer): void {
    if (this.ragged) return;
    const delimiter = this.delimiter;
    // A plain Uint8Array view: element reads on it are ~15% faster than on a Buffer.
    const u = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    let { inQuote, fields, empty, line, recordLine, quoteLine } = this;
    for (let i = 0; i < u.length; i++) {
      const b = u[i];
      // Every byte the scan looks at (tab, LF, CR, quote, comma) is <= 44: one compare
      // passes the rest.
      if (b > 44) {
        empty = false;
        continue;
      }
      if (b === QUOTE) {
        inQuote = !inQuote;
        if (inQuote) quoteLine = line;
        empty = false;
      } else if (b === NL) {
        line++;
        if (inQuote) continue;
        if (!this.record(fields, empty, recordLine)) break;
        fields = 1;
        empty = true;
        recordLine = line;
      } else if (inQuote) {
      } else if (b === delimiter) {
        fields++;
        empty = false;
      } else if (b !== CR) empty = false;
    }
    Object.assign(this, { inQuote, fields, empty, line, recordLine, quoteLine });
  }

  end(): RecordScan {
    if (!this.ragged && !this.inQuote) this.record(this.fields, this.empty, this.recordLine);
    const unsure = this.inQuote || this.ragged !== null || (this.expected === 1 && this.sawEmptyLine);
    return {
      rows: unsure || this.expected < 0 ? null : this.records,
      ragged: this.ragged,
      unclosedQuote: this.inQuote,
      unclosedQuoteLine: this.inQuote ? this.quoteLine : null,
    };
  }

  /** One record ended; false once a ragged one is found (scanning can stop). */
  private record(fields: number, empty: boolean, recordLine: number): boolean {
    if (empty) {
      if (this.expected >= 0) this.sawEmptyLine = true;
      return true;
    }
    if (this.expected < 0) {
      this.expected = fields;
      return true;
    }
    if (fields !== this.expected) {
      this.ragged = { line: recordLine, fields, expected: this.expected };
      return false;
    }
    this.records++;
    return true;
  }
}

/** The record scan of a stored file (an upload whose scan could not run while it arrived). */
export function scanFile(path: string, format: 'csv' | 'tsv'): Promise<RecordScan> {
  return scanStored(path, format === 'tsv' ? 0x09 : 0x2c);
}

/**
 * The first ragged record of a file. Run after DuckDB refused a file, to turn its
 * generic complaint into a line number.
 */
export async function findRaggedRow(path: string, delimiter: 0x2c | 0x09): Promise<RaggedRow | null> {
  return (await scanStored(path, delimiter)).ragged;
}

/** What is wrong with a CSV/TSV DuckDB refused, as its record scan sees it: a line and a reason. */
export async function recordProblem(path: string, delimiter: 0x2c | 0x09): Promise<string | null> {
  const scan = await scanStored(path, delimiter);
  return describeRecordProblem(scan);
}

export function describeRecordProblem(scan: RecordScan): string | null {
  if (scan.ragged)
    return `line ${scan.ragged.line} has ${scan.ragged.fields} field(s) but the header has ${scan.ragged.expected}`;
  if (scan.unclosedQuote)
    return `line ${scan.unclosedQuoteLine}: a quoted field starts there and is never closed (a '"' is missing; a quote inside a quoted field is written '""')`;
  return null;
}

/** Reads the file through a scan, stopping at its first ragged record. */
async function scanStored(path: string, delimiter: 0x2c | 0x09): Promise<RecordScan> {
  const scan = new CsvRecordScan(delimiter);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    scan.push(chunk);
    if (scan.ragged) break;
  }
  return scan.end();
}
