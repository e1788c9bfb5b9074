import { FileError } from './errors.js';

export const FORMATS = ['csv', 'tsv', 'json', 'ndjson', 'parquet', 'xlsx'] as const;
export type FileFormat = (typeof FORMATS)[number];

const ALIASES: Record<string, FileFormat> = {
  csv: 'csv',
  tsv: 'tsv',
  tab: 'tsv',
  json: 'json',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
  parquet: 'parquet',
  pq: 'parquet',
  xlsx: 'xlsx',
};

const CONTENT_TYPES: Record<string, FileFormat> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/tab-separated-values': 'tsv',
  'text/tsv': 'tsv',
  'application/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/x-jsonlines': 'ndjson',
  'application/jsonlines': 'ndjson',
  'application/vnd.apache.parquet': 'parquet',
  'application/x-parquet': 'parquet',
  'application/parquet': 'parquet',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};

export interface FormatHints {
  /** `?format=` */
  param?: string | null;
  /** The multipart part's file name. */
  fileName?: string | null;
  contentType?: string | null;
}

/**
 * The declared format: `?format=` first (the caller said so), then the file name's
 * extension, then the content type. Generic types (octet-stream, text/plain) say
 * nothing; null then, and the first bytes decide (`sniffFormat`).
 */
export function declaredFormat(h: FormatHints): FileFormat | null {
  if (h.param) {
    const f = ALIASES[h.param.trim().toLowerCase()];
    if (!f) {
      throw new FileError(
        400,
        'unsupported_format',
        `Unsupported format '${h.param.slice(0, 40)}': use one of ${FORMATS.join(', ')}`,
      );
    }
    return f;
  }
  const ext = /\.([A-Za-z0-9]+)$/.exec(h.fileName ?? '')?.[1]?.toLowerCase();
  if (ext && ALIASES[ext]) return ALIASES[ext];
  if (ext === 'xls') {
    throw new FileError(
      415,
      'unsupported_format',
      `'${h.fileName}' is a legacy .xls workbook: save it as .xlsx or CSV`,
    );
  }
  const ct = (h.contentType ?? '').split(';')[0].trim().toLowerCase();
  return CONTENT_TYPES[ct] ?? null;
}

/** Parquet and XLSX (a zip) announce themselves; JSON is an array or one object per line. */
export function sniffFormat(head: Buffer): FileFormat | null {
  if (head.length >= 4 && head.subarray(0, 4).toString('latin1') === 'PAR1') return 'parquet';
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04)
    return 'xlsx';
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('[')) return 'json';
  if (text.startsWith('{')) return 'ndjson';
  return null;
}

/** `application/json` covers both JSON shapes; the first character tells which one this is. */
export function refineJson(format: FileFormat, head: Buffer): FileFormat {
  if (format !== 'json' && format !== 'ndjson') return format;
  const first = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()[0];
  if (first === '[') return 'json';
  if (first === '{') return 'ndjson';
  return format;
}
