/**
 * The delimiter of a CSV upload, decided in one place for every path (a small upload, a
 * large one kept as CSV, its conversion, a restart): `,` `;` tab or `|`, from the file's
 * first records, as Excel (`;` in much of Europe), Python's csv module and other tools
 * write them.
 */
import { FileError } from './errors.js';

export type Delimiter = ',' | ';' | '\t' | '|';

/** The candidates, in the order that breaks a tie. */
export const DELIMITERS: readonly Delimiter[] = [',', ';', '\t', '|'];

/** How much of a file's head the delimiter is decided on. */
export const DETECT_BYTES = 64 * 1024;
/** At most this many records of that head are looked at. */
const DETECT_RECORDS = 200;

/**
 * The delimiter of a CSV whose text starts with `sample` (`complete`: the sample is the
 * whole file, so its last line counts even without a line end). Each candidate is counted
 * outside quotes in every record of the sample (quoted fields may hold any of them and line
 * breaks; a quote toggles, so `""` toggles twice). A candidate must be in the header; the
 * one that gives the most records the header's field count wins, then the one making more
 * fields, then the first of `,` `;` tab `|`. With no candidate in the header (one column),
 * `,`.
 */
export function detectDelimiter(sample: string, complete: boolean): Delimiter {
  const text = sample.charCodeAt(0) === 0xfeff ? sample.slice(1) : sample;
  const records: number[][] = [];
  let counts = [0, 0, 0, 0];
  let inQuote = false;
  let blank = true;
  const end = () => {
    if (!blank) records.push(counts);
    counts = [0, 0, 0, 0];
    blank = true;
  };
  for (let i = 0; i < text.length && records.length < DETECT_RECORDS; i++) {
    const c = text[i];
    if (c === '"') {
      inQuote = !inQuote;
      blank = false;
    } else if (inQuote) {
    } else if (c === '\n') end();
    else if (c === '\r') {
    } else {
      const k = DELIMITERS.indexOf(c as Delimiter);
      if (k >= 0) counts[k]++;
      blank = false;
    }
  }
  // The sample's last line is cut unless the sample is the whole file.
  if (complete && !inQuote && records.length < DETECT_RECORDS) end();
  const header = records[0];
  if (!header) return ',';
  let best: Delimiter = ',';
  let bestScore = -1;
  let bestFields = 0;
  DELIMITERS.forEach((d, k) => {
    const h = header[k];
    if (h === 0) return;
    let score = 0;
    for (let r = 1; r < records.length; r++) if (records[r][k] === h) score++;
    if (score > bestScore || (score === bestScore && h > bestFields)) {
      best = d;
      bestScore = score;
      bestFields = h;
    }
  });
  return best;
}

const NAMES: Record<string, Delimiter> = {
  ',': ',',
  comma: ',',
  ';': ';',
  semicolon: ';',
  '\t': '\t',
  '\\t': '\t',
  tab: '\t',
  '|': '|',
  pipe: '|',
};

/** `?delimiter=`: `,` `;` `\t` (or `tab`) `|`, or their names; a FileError otherwise. */
export function parseDelimiterParam(text: string): Delimiter {
  const d = NAMES[text] ?? NAMES[text.trim().toLowerCase()];
  if (!d)
    throw new FileError(
      400,
      'invalid_delimiter',
      `Invalid delimiter '${text.slice(0, 20)}': use , ; \\t (tab) or | (or comma, semicolon, tab, pipe)`,
    );
  return d;
}

/** The delimiter as a DuckDB option value. */
export function duckDelimiter(d: Delimiter): string {
  return d === '\t' ? "'\\t'" : `'${d}'`;
}

/** The delimiter's byte, for the record scan. */
export function delimiterByte(d: Delimiter): number {
  return d.charCodeAt(0);
}
