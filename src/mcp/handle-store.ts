import type { RestOfRows } from '../sql/engine-types.js';
import type { HandleView } from './truncation.js';

/** api.mcp.result_handles.* (docs/reference/configuration.md). */
export interface HandleLimits {
  /** Bytes all handles together may hold (rows' JSON text, plus ROW_OVERHEAD a row). */
  maxBytes: number;
  /** A handle not used for this long is dropped. */
  ttlMs: number;
  /** Handles one principal may hold; a new one drops that principal's least recently used. */
  perPrincipal: number;
}

/**
 * A row held as its JSON text costs about its length (V8 keeps ASCII strings one byte a
 * character) plus the string's header and the array slot; counted generously.
 */
export const ROW_OVERHEAD = 32;

/** One handle may take at most this share of the whole budget, so one result cannot evict every other. */
export const HANDLE_SHARE = 4;

/** A page read from a handle. */
export interface HandlePage {
  view: HandleView;
  column_names: string[];
  /**
   * JSON text of the handle's rows (read, never changed), `view.held` long. A store may fill
   * only the rows of the range asked for (the others are holes): pageAnswer reads no others.
   */
  rows: readonly string[];
}

/** The rows a page asks for: `count` from `offset`. */
export interface PageRange {
  offset: number;
  count: number;
}

/**
 * Where the rows of cut MCP answers are kept for paging (SPEC §4, §13): in this process's
 * memory for one server (result-handles.ts), in Redis for replicas, so a handle made on one
 * replica pages on any (redis-handles.ts). Every store keeps the same rules: a handle belongs
 * to the principal that made it (to anyone else it does not exist), expires `ttlMs` after its
 * last use, one principal holds at most `perPrincipal`, and all of them at most `maxBytes`
 * (least recently used evicted first; one handle at most a quarter of it).
 */
export interface HandleStore {
  /**
   * Keep a cut answer's rows: those shown and as many after them as the budget allows.
   * Null when not even the shown rows fit (no handle then).
   */
  keep(owner: string, rest: RestOfRows): Promise<HandleView | null>;
  /** The handle's rows, for its owner; null when unknown, expired or someone else's. */
  page(owner: string, id: string, range: PageRange): Promise<HandlePage | null>;
  /** Bytes all handles hold now (never above limits.maxBytes). */
  usedBytes(): Promise<number>;
  close(): Promise<void>;
}

/** The rows of a cut answer within one handle's share of the budget, as JSON texts. */
export interface CollectedRows {
  rows: string[];
  bytes: number;
  complete: boolean;
  /** When not complete: the result has more rows than this. */
  moreThan: number;
}

/**
 * Read a cut answer's rows up to `limit` bytes (for a store that writes them elsewhere once
 * read). Null when not even the shown rows fit.
 */
export async function collectRows(rest: RestOfRows, limit: number): Promise<CollectedRows | null> {
  const out: CollectedRows = { rows: [], bytes: 0, complete: false, moreThan: 0 };
  const add = (row: unknown[]): boolean => {
    const text = JSON.stringify(row);
    const b = Buffer.byteLength(text) + ROW_OVERHEAD;
    if (out.bytes + b > limit) return false;
    out.rows.push(text);
    out.bytes += b;
    return true;
  };
  for (const row of rest.shown) if (!add(row)) return null;
  try {
    read: for await (const batch of rest.batches) {
      for (const row of batch) {
        if (!add(row)) {
          out.moreThan = out.rows.length;
          break read;
        }
      }
    }
    if (out.moreThan === 0) out.complete = true;
  } catch {
    // The statement failed or ran out of time while the rest was read: what is held stays.
    out.moreThan = Math.max(0, out.rows.length - 1);
  }
  return out;
}
