import { createReadStream } from 'node:fs';

export interface RaggedRow {
  line: number;
  fields: number;
  expected: number;
}

/**
 * Finds the first record whose field count differs from the header's, honouring
 * quotes (a quoted field may hold the delimiter and newlines). Only run after DuckDB
 * refused a file, to turn its generic complaint into a line number.
 */
export async function findRaggedRow(path: string, delimiter: number): Promise<RaggedRow | null> {
  const QUOTE = 0x22;
  const NL = 0x0a;
  const CR = 0x0d;
  let inQuote = false;
  let fields = 1;
  let empty = true;
  let line = 1;
  let recordLine = 1;
  let expected = -1;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === NL) line++;
      if (b === QUOTE) {
        inQuote = !inQuote;
        empty = false;
      } else if (inQuote) {
      } else if (b === delimiter) {
        fields++;
        empty = false;
      } else if (b === NL) {
        if (!empty) {
          if (expected < 0) expected = fields;
          else if (fields !== expected) return { line: recordLine, fields, expected };
        }
        fields = 1;
        empty = true;
        recordLine = line;
      } else if (b !== CR) empty = false;
    }
  }
  if (!empty && expected >= 0 && fields !== expected) return { line: recordLine, fields, expected };
  return null;
}
