import type { DuckDBConnection } from '@duckdb/node-api';
import type { SqlError } from '../../core/errors.js';
import type { QueryStream } from '../types.js';
import { DuckChunkConverter } from './values.js';

export interface DuckStreamOptions {
  signal?: AbortSignal;
  /** DuckDB's error → the caller's SqlError (which source it names, which codes fit). */
  mapError: (e: unknown, signal?: AbortSignal) => SqlError;
  /** Called once when the stream ends, fails or is cancelled; `interrupted` when it was stopped early. */
  onDone: (interrupted: boolean) => void;
}

/**
 * A row-returning statement on `conn` as a stream of canonical batches, read chunk by
 * chunk so rows stay in DuckDB until asked for. Shared by the local engine and the files
 * source; what happens to `conn` afterwards is the caller's (`onDone`).
 */
export async function streamDuckQuery(
  conn: DuckDBConnection,
  sql: string,
  opts: DuckStreamOptions,
): Promise<QueryStream> {
  const { signal, mapError } = opts;
  let done = false;
  let interrupted = false;
  const onAbort = () => {
    interrupted = true;
    conn.interrupt();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const finish = () => {
    if (done) return;
    done = true;
    signal?.removeEventListener('abort', onAbort);
    opts.onDone(interrupted);
  };
  let result: Awaited<ReturnType<DuckDBConnection['stream']>>;
  try {
    result = await conn.stream(sql);
  } catch (e) {
    finish();
    throw mapError(e, signal);
  }
  const reader = new DuckChunkConverter(result.columnNames(), result.columnTypes());
  async function* batches() {
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof result.fetchChunk>>;
        try {
          chunk = await result.fetchChunk();
        } catch (e) {
          throw mapError(e, signal);
        }
        if (!chunk || chunk.rowCount === 0) break;
        yield reader.rows(chunk);
      }
    } finally {
      finish();
    }
  }
  return {
    columns: reader.fields,
    batches: batches(),
    cancel: async () => {
      if (!done) {
        interrupted = true;
        conn.interrupt();
      }
      finish();
    },
  };
}
