/**
 * Printing answers: a capped table for people, and --json / --csv that stream every row.
 * Writes wait for 'drain', so a slow pipe (`| less`, `| head`) holds the query back instead
 * of the rows piling up in memory.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { ErrorResult, OkResult } from '../sql/result.js';

export interface RowsAnswer {
  type: 'rows';
  columns: string[];
  batches: AsyncIterable<unknown[][]>;
  cancel(): Promise<void>;
}
export type Answer = RowsAnswer | OkResult | ErrorResult;
export type Format = 'table' | 'json' | 'csv';

export const DEFAULT_MAX_ROWS = 200;
/** How long the table keeps counting the rows it does not show. */
const COUNT_BUDGET_MS = 500;

async function put(out: Writable, text: string): Promise<void> {
  if (text && !out.write(text)) await once(out, 'drain');
}

export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  // One row stays one line.
  return /[\n\r\t]/.test(s) ? s.replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace(/\t/g, '\\t') : s;
}

export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  // An empty string must differ from NULL, so it is quoted.
  if (s === '' || /[",\r\n]/.test(s)) return `"${s.replace(/"/g, '""')}"`;
  return s;
}

/** Print one answer in the format asked; the row source is always closed. */
export async function writeAnswer(
  out: Writable,
  answer: Answer,
  format: Format,
  opts: { maxRows?: number } = {},
): Promise<void> {
  if (answer.type === 'error') {
    if (format === 'json') await put(out, `${JSON.stringify(answer)}\n`);
    return;
  }
  if (answer.type === 'ok') {
    if (format === 'json') await put(out, `${JSON.stringify(answer)}\n`);
    else if (format === 'table')
      await put(
        out,
        `OK${answer.affected_rows === null ? '' : `, ${answer.affected_rows} row(s) affected`}${
          answer.inserted === undefined
            ? ''
            : ` (${answer.inserted} inserted, ${answer.updated} updated, ${answer.unchanged} unchanged, ${answer.failed} failed)`
        }\n`,
      );
    return;
  }
  try {
    if (format === 'json') await writeJson(out, answer);
    else if (format === 'csv') await writeCsv(out, answer);
    else await writeTable(out, answer, opts.maxRows ?? DEFAULT_MAX_ROWS);
  } finally {
    await answer.cancel().catch(() => {});
  }
}

/** docs/reference/sql.md's table result object, written piecewise on one line. */
async function writeJson(out: Writable, a: RowsAnswer): Promise<void> {
  await put(out, `{"type":"table","column_names":${JSON.stringify(a.columns)},"data":[`);
  let first = true;
  for await (const batch of a.batches) {
    if (batch.length === 0) continue;
    const body = JSON.stringify(batch);
    await put(out, first ? body.slice(1, -1) : `,${body.slice(1, -1)}`);
    first = false;
  }
  await put(out, ']}\n');
}

/** RFC 4180: CRLF line ends, quotes doubled; NULL is an empty field, '' a quoted empty one. */
async function writeCsv(out: Writable, a: RowsAnswer): Promise<void> {
  await put(out, `${a.columns.map(csvField).join(',')}\r\n`);
  for await (const batch of a.batches) {
    let chunk = '';
    for (const row of batch) chunk += `${row.map(csvField).join(',')}\r\n`;
    await put(out, chunk);
  }
}

async function writeTable(out: Writable, a: RowsAnswer, maxRows: number): Promise<void> {
  const shown: string[][] = [];
  const it = a.batches[Symbol.asyncIterator]();
  let more = 0;
  let done = false;
  while (!done && shown.length < maxRows) {
    const n = await it.next();
    if (n.done) {
      done = true;
      break;
    }
    for (const row of n.value) {
      if (shown.length < maxRows) shown.push(row.map(cellText));
      else more++;
    }
  }
  let counted = true;
  if (!done) {
    // Say how many were left out, but never keep a newcomer waiting on a huge table.
    const deadline = performance.now() + COUNT_BUDGET_MS;
    for (;;) {
      if (performance.now() > deadline) {
        counted = false;
        break;
      }
      const n = await it.next();
      if (n.done) break;
      more += n.value.length;
    }
    if (!counted) await it.return?.(undefined).catch(() => {});
  }
  await put(out, renderTable(a.columns, shown));
  if (more === 0 && counted) await put(out, `${shown.length} row${shown.length === 1 ? '' : 's'}\n`);
  else
    await put(
      out,
      `… ${counted ? '' : 'at least '}${more} more row${more === 1 ? '' : 's'} (use --json, --csv or LIMIT)\n`,
    );
}

const width = (s: string) => [...s].length;

/** A plain box table: `+---+` rules, `| a |` rows. */
export function renderTable(columns: string[], rows: string[][]): string {
  const w = columns.map(width);
  for (const r of rows) for (let i = 0; i < r.length; i++) w[i] = Math.max(w[i], width(r[i]));
  const rule = `+${w.map((n) => '-'.repeat(n + 2)).join('+')}+\n`;
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c + ' '.repeat(w[i] - width(c))).join(' | ')} |\n`;
  let s = rule + line(columns) + rule;
  for (const r of rows) s += line(r);
  if (rows.length) s += rule;
  return s;
}
