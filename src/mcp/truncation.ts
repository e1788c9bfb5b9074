import type { TableResult } from '../sql/result.js';

/**
 * What a cut MCP answer says about itself (docs/reference/mcp.md#truncated-results): the
 * fields are added only when `truncated` is, and they come before `data`, so a client that
 * shows a model only the start of a long text still shows them. Pure: no store, no I/O.
 */
export interface TruncationFields {
  truncated: true;
  rows_returned: number;
  /** The result's row count, when the handle holds all of it. */
  rows_available?: number;
  /** Otherwise: the result has more rows than this. */
  more_than?: number;
  handle?: string;
  /** The statement that reads on from here. */
  next?: string;
  hint: string;
}

export type CutTable = Omit<TableResult, 'truncated'> & Partial<TruncationFields>;

/** The part of a result handle a note speaks of. */
export interface HandleView {
  id: string;
  /** Rows the handle holds (the whole result when complete). */
  held: number;
  complete: boolean;
  /** When not complete: the result has more rows than this. */
  moreThan: number;
}

/** Characters of a handle id after `r_`: 12 random bytes in base64url. */
export const HANDLE_ID_CHARS = 16;

/** Largest page `next` suggests: small enough that paging does not flood a context either. */
export const NEXT_PAGE_ROWS = 100;

const NARROW =
  'filter with WHERE, select fewer columns, aggregate (COUNT, GROUP BY), or ORDER BY ... LIMIT n';
const HINT_NEXT = `Not all rows are here. Run "next" for the following rows or, better, narrow the question: ${NARROW}.`;
const HINT_END = `Not all rows are here and no more can be paged. Narrow the question: ${NARROW}.`;

export function pageStatement(id: string, limit: number, offset: number): string {
  return `SELECT * FROM result('${id}') LIMIT ${limit} OFFSET ${offset}`;
}

/**
 * The fields of an answer that holds `returned` rows from `offset` on. `handle` is null when
 * no handle could be kept: the result is then only known to have more rows than it showed.
 */
export function truncationFields(
  offset: number,
  returned: number,
  handle: HandleView | null,
): TruncationFields {
  const nextOffset = offset + returned;
  if (!handle) return { truncated: true, rows_returned: returned, more_than: nextOffset, hint: HINT_END };
  // Keys in the order a reader should meet them.
  const f: Omit<TruncationFields, 'hint'> = {
    truncated: true,
    rows_returned: returned,
    ...(handle.complete ? { rows_available: handle.held } : { more_than: handle.moreThan }),
    handle: handle.id,
  };
  if (nextOffset >= handle.held) return { ...f, hint: HINT_END };
  const next = pageStatement(handle.id, Math.max(1, Math.min(NEXT_PAGE_ROWS, returned)), nextOffset);
  return { ...f, next, hint: HINT_NEXT };
}

/** The table with its note, the note's fields first. */
export function withTruncation(
  table: { column_names: string[]; data: unknown[][] },
  fields: TruncationFields,
): CutTable {
  return { type: 'table', column_names: table.column_names, ...fields, data: table.data };
}

/**
 * Bytes the note can add to an answer at most, kept free of rows in the byte budget so the
 * whole answer stays within api.mcp.max_result_bytes: the note with the longest values.
 */
export const NOTE_RESERVE_BYTES = (() => {
  const big = Number.MAX_SAFE_INTEGER;
  const id = `r_${'x'.repeat(HANDLE_ID_CHARS)}`;
  const worst = {
    rows_returned: big,
    rows_available: big,
    handle: id,
    next: pageStatement(id, NEXT_PAGE_ROWS, big),
    hint: HINT_NEXT.length > HINT_END.length ? HINT_NEXT : HINT_END,
  };
  return Buffer.byteLength(JSON.stringify(worst)) + 1;
})();
