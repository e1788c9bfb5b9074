/**
 * Reads a `POST /api/sql/query` answer as it arrives, so a result of millions of rows never
 * sits in the page whole: the server writes a table as `{"type":"table","column_names":[...],
 * "data":[[...],[...],...]}` (and a failure after the first rows as a last `"error"` member,
 * docs/reference/http.md). This finds where each row of `data` ends (tracking strings and
 * nesting) and gives JSON.parse one row at a time; rows outside the wanted window are only
 * counted. Any other answer (ok, error) is parsed whole.
 */

export interface RowWindow {
  /** Index of the first row to keep. */
  from: number;
  /** Rows to keep from there. */
  count: number;
  /** Called with each batch of rows parsed (all rows, kept or not), e.g. to write a download. */
  onRows?: (rows: unknown[][]) => void;
  /** When false, rows are parsed only for onRows and none are kept. */
  keep?: boolean;
}

export interface StreamedTable {
  type: 'table';
  column_names: string[];
  /** The kept rows (the window). */
  data: unknown[][];
  /** Rows in the whole result. */
  total: number;
  /** Index of the first kept row. */
  offset: number;
  error?: { type: 'error'; error_code: number | string; error_message: string };
}

const DATA = '"data":[';

/** A scanner fed text pieces; `end()` gives the answer. */
export class RowScanner {
  private phase: 'head' | 'rows' | 'tail' | 'whole' = 'head';
  private head = '';
  private tail = '';
  private row = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private index = 0;
  private kept: unknown[][] = [];
  private batch: unknown[][] = [];
  private columns: string[] = [];

  constructor(private window: RowWindow) {}

  push(text: string): void {
    if (this.phase === 'head') {
      this.head += text;
      if (this.head.length >= 15 && !this.head.startsWith('{"type":"table"')) {
        this.phase = 'whole';
        return;
      }
      const at = this.head.indexOf(DATA);
      if (at < 0) return;
      this.columns = JSON.parse(`${this.head.slice(0, at)}"x":0}`).column_names ?? [];
      const rest = this.head.slice(at + DATA.length);
      this.head = this.head.slice(0, at);
      this.phase = 'rows';
      this.scan(rest);
      return;
    }
    if (this.phase === 'whole') this.head += text;
    else if (this.phase === 'tail') this.tail += text;
    else this.scan(text);
  }

  private scan(text: string): void {
    const w = this.window;
    const wanted = () => w.onRows !== undefined || (this.index >= w.from && this.index < w.from + w.count);
    let start = this.depth > 0 ? 0 : -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92 /* \ */) this.escaped = true;
        else if (c === 34 /* " */) this.inString = false;
        continue;
      }
      if (c === 34) this.inString = true;
      else if (c === 91 /* [ */ || c === 123 /* { */) {
        if (this.depth === 0) start = i;
        this.depth += 1;
      } else if (c === 93 /* ] */ || c === 125 /* } */) {
        if (this.depth === 0) {
          // The end of `data`.
          this.phase = 'tail';
          this.tail = text.slice(i + 1);
          this.flush();
          return;
        }
        this.depth -= 1;
        if (this.depth === 0) {
          if (wanted()) this.take(JSON.parse(this.row + text.slice(start, i + 1)) as unknown[]);
          this.row = '';
          this.index += 1;
          start = -1;
        }
      }
    }
    if (this.depth > 0 && wanted()) this.row += text.slice(Math.max(0, start));
    this.flush();
  }

  private take(row: unknown[]): void {
    const w = this.window;
    if (w.keep !== false && this.index >= w.from && this.index < w.from + w.count) this.kept.push(row);
    if (w.onRows) {
      this.batch.push(row);
      if (this.batch.length >= 2000) this.flush();
    }
  }

  private flush(): void {
    if (this.batch.length && this.window.onRows) this.window.onRows(this.batch);
    this.batch = [];
  }

  end(): StreamedTable | Record<string, unknown> {
    if (this.phase === 'whole' || this.phase === 'head')
      return JSON.parse(this.head) as Record<string, unknown>;
    if (this.phase !== 'tail') throw new Error('The answer ended in the middle of its rows');
    this.flush();
    const rest = this.tail.trim().replace(/^,/, '');
    const extra = rest === '}' ? {} : (JSON.parse(`{${rest}`) as { error?: StreamedTable['error'] });
    return {
      type: 'table',
      column_names: this.columns,
      data: this.kept,
      total: this.index,
      offset: Math.min(this.window.from, this.index),
      ...(extra.error ? { error: extra.error } : {}),
    };
  }
}
