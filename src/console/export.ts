/** Result rows as CSV (RFC 4180) or TSV text, with a header line of column names. */
export type Delimited = 'csv' | 'tsv';

export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function csvField(v: unknown): string {
  // NULL is an empty unquoted field and the empty string a quoted one, so the two stay apart.
  if (v === null || v === undefined) return '';
  const s = cellText(v);
  return s === '' || /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function tsvField(v: unknown): string {
  // TSV has no quoting: NULL is \N (as mysql and LOAD DATA write it), controls are escaped.
  if (v === null || v === undefined) return '\\N';
  return cellText(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** Rows as CSV lines (no header), for a download written piece by piece. */
export function csvLines(rows: readonly (readonly unknown[])[]): string {
  let out = '';
  for (const r of rows) out += `${r.map(csvField).join(',')}\r\n`;
  return out;
}

export function toDelimited(
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  kind: Delimited,
): string {
  const field = kind === 'csv' ? csvField : tsvField;
  const sep = kind === 'csv' ? ',' : '\t';
  const eol = kind === 'csv' ? '\r\n' : '\n';
  const lines = [columns.map((c) => (kind === 'csv' ? csvField(c) : tsvField(c))).join(sep)];
  for (const r of rows) lines.push(r.map(field).join(sep));
  return lines.join(eol) + eol;
}
