import type { DuckDBConnection } from '@duckdb/node-api';
import { ErrorCode, SqlError } from '../../sql/errors.js';
import { DuckChunkConverter as ChunkReader } from '../duckdb/values.js';
import type { QueryStream } from '../types.js';

/**
 * A row-returning statement on `conn` as a stream of canonical batches; `conn` is
 * closed at the end, on cancel, or on failure. Rows stay in DuckDB until read.
 */
export async function streamQuery(
  conn: DuckDBConnection,
  sql: string,
  signal?: AbortSignal,
): Promise<QueryStream> {
  const onAbort = () => conn.interrupt();
  signal?.addEventListener('abort', onAbort, { once: true });
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    signal?.removeEventListener('abort', onAbort);
    conn.closeSync();
  };
  let result: Awaited<ReturnType<DuckDBConnection['stream']>>;
  try {
    result = await conn.stream(sql);
  } catch (e) {
    finish();
    throw filesError(e, signal);
  }
  const reader = new ChunkReader(result.columnNames(), result.columnTypes());
  async function* batches() {
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof result.fetchChunk>>;
        try {
          chunk = await result.fetchChunk();
        } catch (e) {
          throw filesError(e, signal);
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
      if (!done) conn.interrupt();
      finish();
    },
  };
}

/** DuckDB errors as SqlErrors naming the files source; DuckDB's own message is kept. */
export function filesError(e: unknown, signal?: AbortSignal): SqlError {
  if (e instanceof SqlError) return e;
  const msg = ((e as Error)?.message ?? String(e)).split(/\nLINE \d+:/)[0].trim();
  if (signal?.aborted || /INTERRUPT/i.test(msg))
    return new SqlError(ErrorCode.QUERY_INTERRUPTED, 'Query execution was interrupted');
  const table = /Table with name "?([^"\s!]+)"? does not exist/i.exec(msg);
  if (table) return new SqlError(ErrorCode.UNKNOWN_TABLE, `Table 'files.${table[1]}' doesn't exist`);
  const col = /Referenced column "?([^"\s]+)"? not found/i.exec(msg);
  if (col)
    return new SqlError(
      ErrorCode.UNKNOWN_COLUMN,
      `Unknown column '${col[1]}' in files source (${msg.split('\n')[0]})`,
    );
  if (/Parser Error/i.test(msg))
    return new SqlError(ErrorCode.SYNTAX, `files source could not parse the query: ${msg.split('\n')[0]}`);
  return new SqlError(ErrorCode.SOURCE_ERROR, `files source: ${msg.split('\n')[0]}`);
}
