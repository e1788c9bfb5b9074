import type { DuckDBConnection } from '@duckdb/node-api';
import { ErrorCode, SqlError } from '../../core/errors.js';
import { streamDuckQuery } from '../duckdb/stream.js';
import type { QueryStream } from '../types.js';

/**
 * A row-returning statement on `conn` as a stream of canonical batches; `conn` is
 * closed at the end, on cancel, or on failure. Rows stay in DuckDB until read.
 */
export function streamQuery(
  conn: DuckDBConnection,
  sql: string,
  signal?: AbortSignal,
  onEnd: () => void = () => {},
): Promise<QueryStream> {
  return streamDuckQuery(conn, sql, {
    signal,
    mapError: filesError,
    onDone: () => {
      conn.closeSync();
      onEnd();
    },
  });
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
