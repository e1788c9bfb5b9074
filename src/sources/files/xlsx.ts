import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import ExcelJS from 'exceljs';
import { invalidFile, invalidRequest } from './errors.js';

export interface SheetConversion {
  sheet: string;
  rows: number;
  /** Columns whose every value was a date at midnight: stored as DATE rather than TIMESTAMP. */
  dateOnly: string[];
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** What this file reads of exceljs's streaming reader, whose typings omit the async iteration. */
interface SheetStream extends AsyncIterable<{ values?: unknown[] }> {
  name?: string;
  id: number;
}

/** A cell value that is not a plain scalar: a formula, an error, rich text or a hyperlink. */
interface CellObject {
  result?: unknown;
  error?: unknown;
  richText?: Array<{ text?: string }>;
  text?: unknown;
}

/**
 * One sheet of an XLSX workbook as NDJSON (one object per row, keyed by the header
 * row), streamed with exceljs's WorkbookReader so a large workbook is read row by row.
 * NDJSON keeps the cell types Excel knows (numbers, booleans, text) for DuckDB's
 * read_json; dates are written as ISO text, which it detects.
 */
export async function xlsxToNdjson(
  src: string,
  dest: string,
  wanted: string | null,
): Promise<SheetConversion> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(src, {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'emit',
  });
  const out = createWriteStream(dest, { flags: 'wx', mode: 0o600 });
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  const seen: string[] = [];
  let chosen: SheetConversion | null = null;
  try {
    for await (const ws of reader as unknown as AsyncIterable<SheetStream>) {
      const name: string = ws.name ?? `Sheet${ws.id}`;
      seen.push(name);
      const match =
        chosen === null &&
        (wanted === null ||
          name.toLowerCase() === wanted.toLowerCase() ||
          (/^\d+$/.test(wanted) && Number(wanted) === seen.length && !wanted.startsWith('0')));
      if (!match) {
        // The reader is a single pass over the zip: skip this sheet's rows to reach the next one.
        for await (const _ of ws) {
        }
        continue;
      }
      chosen = await convertSheet(ws, name, write);
      if (wanted === null || chosen) break;
    }
  } catch (e) {
    out.destroy();
    if ((e as { status?: number } | null)?.status) throw e;
    throw invalidFile(`Could not read the XLSX workbook: ${(e as Error)?.message ?? e}`);
  }
  out.end();
  await once(out, 'close');
  if (!chosen) {
    if (wanted !== null) {
      throw invalidRequest(
        `The workbook has no sheet '${wanted}'; its sheets are: ${seen.map((s) => `'${s}'`).join(', ')}`,
      );
    }
    throw invalidFile('The XLSX workbook has no sheets');
  }
  return chosen;
}

async function convertSheet(
  ws: SheetStream,
  sheet: string,
  write: (s: string) => Promise<void>,
): Promise<SheetConversion> {
  let header: string[] | null = null;
  let rows = 0;
  // Per column: has it held a date, and did every date fall on midnight?
  const dateSeen: boolean[] = [];
  const timeSeen: boolean[] = [];
  for await (const row of ws) {
    const values: unknown[] = row.values ?? [];
    if (header === null) {
      const texts = values.slice(1).map((v) => cellText(v));
      if (texts.every((t) => t === '')) continue; // leading blank rows
      header = uniqueHeader(texts);
      continue;
    }
    const cells: unknown[] = [];
    let any = false;
    const n = Math.max(values.length - 1, 0);
    for (let c = 0; c < n; c++) {
      const v = cellValue(values[c + 1]);
      if (v === null) continue;
      while (header.length <= c) header.push(freshName(header, `column${header.length + 1}`));
      any = true;
      if (v instanceof Date) {
        dateSeen[c] = true;
        const midnight =
          v.getUTCHours() + v.getUTCMinutes() + v.getUTCSeconds() + v.getUTCMilliseconds() === 0;
        if (!midnight) timeSeen[c] = true;
        cells[c] = isoDateTime(v);
      } else cells[c] = v;
    }
    if (!any) continue; // blank rows carry nothing
    // Every key on every line, in header order, so DuckDB keeps the sheet's column order.
    const obj: Record<string, unknown> = {};
    for (let c = 0; c < header.length; c++) obj[header[c]] = cells[c] ?? null;
    rows++;
    await write(`${JSON.stringify(obj)}\n`);
  }
  if (header === null) throw invalidFile(`Sheet '${sheet}' is empty`);
  const dateOnly = header.filter((_, i) => dateSeen[i] && !timeSeen[i]);
  return { sheet, rows, dateOnly };
}

function cellValue(v: unknown): string | number | boolean | Date | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v === '' ? null : v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean' || v instanceof Date) return v;
  const o = v as CellObject;
  if ('result' in o) return cellValue(o.result); // formula: its cached result
  if ('error' in o) return null; // #N/A, #DIV/0!
  if (Array.isArray(o.richText)) return o.richText.map((t) => t.text ?? '').join('');
  if ('text' in o) return cellValue(o.text); // hyperlink
  return String(v);
}

function cellText(v: unknown): string {
  const c = cellValue(v);
  if (c === null) return '';
  return c instanceof Date ? isoDateTime(c) : String(c).trim();
}

function freshName(taken: string[], want: string): string {
  const lower = new Set(taken.map((t) => t.toLowerCase()));
  let name = want;
  for (let i = 2; lower.has(name.toLowerCase()); i++) name = `${want}_${i}`;
  return name;
}

function uniqueHeader(texts: string[]): string[] {
  const out: string[] = [];
  texts.forEach((t, i) => {
    out.push(freshName(out, t || `column${i + 1}`));
  });
  return out;
}

/** Excel stores wall-clock times; exceljs hands them over as UTC fields. */
function isoDateTime(d: Date): string {
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const ms = d.getUTCMilliseconds();
  return `${date} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${ms ? `.${pad(ms, 3)}` : ''}`;
}
