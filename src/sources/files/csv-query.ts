import { ErrorCode, SqlError } from '../../core/errors.js';
import type { Row } from '../../core/types.js';
import type { QueryStream } from '../types.js';
import { isCsvReadFailure } from './storage.js';

/** What a statement over tables still stored as CSV needs of the files source. */
export interface CsvQueryContext {
  /** Whether any table is still stored as CSV. */
  pending(): boolean;
  stream(sql: string, signal?: AbortSignal): Promise<QueryStream>;
  /** Convert every pending table now; returns why tables were removed on the way. */
  convertPending(): Promise<string[]>;
}

/**
 * While tables are still stored as CSV, a row past the sniffer's sample may not fit
 * its column's type (or the file may be bad past it). The first batch is read here so
 * such a failure is seen before any row is sent: the pending conversions then run now
 * (a type that does not fit is widened from every row, as a small upload gets) and the
 * statement runs again, or the error says which bad file was removed.
 */
export async function queryOverCsv(
  ctx: CsvQueryContext,
  sql: string,
  signal?: AbortSignal,
): Promise<QueryStream> {
  if (!ctx.pending()) return ctx.stream(sql, signal);
  let s: QueryStream | null = null;
  let it: AsyncIterator<Row[]>;
  let first: IteratorResult<Row[]>;
  try {
    s = await ctx.stream(sql, signal);
    it = s.batches[Symbol.asyncIterator]();
    first = await it.next();
  } catch (e) {
    await s?.cancel();
    if (!(e instanceof SqlError) || !isCsvReadFailure(e.message)) throw e;
    const removed = await ctx.convertPending();
    if (removed.length) throw new SqlError(ErrorCode.SOURCE_ERROR, `files source: ${removed.join('; ')}`);
    return ctx.stream(sql, signal);
  }
  const stream = s;
  async function* rest() {
    try {
      if (first.done) return;
      yield first.value;
      for (;;) {
        const n = await it.next();
        if (n.done) return;
        yield n.value;
      }
    } catch (e) {
      // Rows were sent already; convert now so the next statement reads the fixed table.
      if (e instanceof SqlError && isCsvReadFailure(e.message)) void ctx.convertPending();
      throw e;
    } finally {
      await it.return?.();
    }
  }
  return { columns: stream.columns, batches: rest(), cancel: stream.cancel };
}
