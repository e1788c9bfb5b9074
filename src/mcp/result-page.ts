import { ErrorCode } from '../core/errors.js';
import type { ErrorResult, Result } from '../sql/result.js';
import type { HandlePage } from './result-handles.js';
import { NOTE_RESERVE_BYTES, truncationFields, withTruncation } from './truncation.js';

/** `SELECT * FROM result('r_...') [LIMIT n [OFFSET m] | LIMIT m, n]`: what reads a result handle. */
export interface PageRequest {
  id: string;
  offset: number;
  /** Rows asked for; null without LIMIT (all, within the budget). */
  limit: number | null;
}

const PAGE =
  /^\s*SELECT\s+\*\s+FROM\s+result\s*\(\s*(['"])(r_[A-Za-z0-9_-]{1,64})\1\s*\)(?:\s+LIMIT\s+(\d{1,15})(?:\s*,\s*(\d{1,15})|\s+OFFSET\s+(\d{1,15}))?)?\s*;?\s*$/i;

/** Any mention of a handle read, well formed or not. */
const MENTION = /\bresult\s*\(\s*['"]r_/i;

/**
 * The page a statement asks for; null when it does not read a handle; an error result when
 * it tries to but in a form this server does not take (a handle is rows already computed:
 * WHERE, ORDER BY or a join belong in the original query).
 */
export function parsePageRequest(sql: string): PageRequest | ErrorResult | null {
  const m = PAGE.exec(sql);
  if (!m) {
    if (!MENTION.test(sql)) return null;
    return {
      type: 'error',
      error_code: ErrorCode.SYNTAX,
      error_message:
        "A result handle is read only as SELECT * FROM result('r_...') LIMIT n OFFSET m; for WHERE, ORDER BY, columns or joins, run the original query again with them",
    };
  }
  const [, , id, a, b, c] = m;
  if (a === undefined) return { id, offset: 0, limit: null };
  // LIMIT m, n is MySQL's offset-first form.
  if (b !== undefined) return { id, offset: Number(a), limit: Number(b) };
  return { id, offset: c === undefined ? 0 : Number(c), limit: Number(a) };
}

export function unknownHandle(id: string): ErrorResult {
  return {
    type: 'error',
    error_code: ErrorCode.UNKNOWN_TABLE,
    error_message: `Unknown or expired result handle '${id}': run the original query again`,
  };
}

/** The shared store of handles (Redis) did not answer: the handle may exist, this replica cannot read it now. */
export function handleStoreDown(id: string): ErrorResult {
  return {
    type: 'error',
    error_code: ErrorCode.SOURCE_ERROR,
    error_message: `Result handle '${id}' cannot be read now: the shared handle store (TRIBUTARY_REDIS_URL) is not reachable; try again, or run the original query again`,
  };
}

/** A row alone larger than the answer budget: no page could ever hold it. */
export function rowTooLarge(maxBytes: number): ErrorResult {
  return {
    type: 'error',
    error_code: ErrorCode.PACKET_TOO_LARGE,
    error_message: `A row of this result is larger than the MCP answer budget (api.mcp.max_result_bytes = ${maxBytes} bytes): select fewer or shorter columns, e.g. LEFT(col, 200)`,
  };
}

/**
 * One page of a handle within the budget (rows and bytes, as for any answer). It is cut, and
 * says so with a note, only when it holds fewer rows than asked and more exist.
 */
export function pageAnswer(p: HandlePage, req: PageRequest, maxRows: number, maxBytes: number): Result {
  const asked = req.limit ?? Number.POSITIVE_INFINITY;
  const end = Math.min(p.rows.length, req.offset + Math.min(asked, maxRows));
  let bytes =
    Buffer.byteLength(
      JSON.stringify({ type: 'table', column_names: p.column_names, data: [], truncated: true }),
    ) + NOTE_RESERVE_BYTES;
  const texts: string[] = [];
  for (let i = req.offset; i < end; i++) {
    const b = Buffer.byteLength(p.rows[i]) + (texts.length ? 1 : 0);
    if (bytes + b > maxBytes) break;
    bytes += b;
    texts.push(p.rows[i]);
  }
  const data = JSON.parse(`[${texts.join(',')}]`) as unknown[][];
  const table = { column_names: p.column_names, data };
  const afterPage = req.offset + data.length;
  const moreExist = afterPage < p.rows.length || !p.view.complete;
  if (data.length >= asked || !moreExist) return { type: 'table', ...table };
  if (data.length === 0 && afterPage < p.rows.length) return rowTooLarge(maxBytes);
  return withTruncation(table, truncationFields(req.offset, data.length, p.view));
}
