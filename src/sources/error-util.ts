import { ErrorCode, SqlError } from '../core/errors.js';

/*
 * Errors shared by the SQL sources. Every message names the source; none carries a secret
 * (drivers' messages are passed through `scrub` with the source's password first).
 */

/** Socket-level failures: the source cannot be reached at all. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
]);

export function isNetworkError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  const msg = e instanceof Error ? e.message : '';
  return /timeout exceeded when trying to connect|Connection terminated|connect ETIMEDOUT|socket hang up|Connection lost/i.test(
    msg,
  );
}

/** Removes a secret from a driver's message (only when long enough not to garble the text). */
export function scrub(message: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return message;
  return message.split(secret).join('***');
}

export function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  return String(e);
}

export function cannotConnect(source: string, where: string, detail: string, cause?: unknown): SqlError {
  return new SqlError(ErrorCode.CANNOT_CONNECT, `Can't connect to source '${source}' (${where}): ${detail}`, {
    cause,
  });
}

export function lostConnection(source: string, where: string, detail: string, cause?: unknown): SqlError {
  return new SqlError(2013, `Lost connection to source '${source}' (${where}) during query: ${detail}`, {
    cause,
  });
}

export function accessDenied(source: string, user: string, detail: string, cause?: unknown): SqlError {
  return new SqlError(
    ErrorCode.ACCESS_DENIED,
    `Access denied to source '${source}' for user '${user}': ${detail}`,
    {
      cause,
    },
  );
}

export function unknownDatabase(
  source: string,
  database: string,
  cause?: unknown,
  what = 'database',
): SqlError {
  return new SqlError(ErrorCode.UNKNOWN_DATABASE, `Unknown ${what} '${database}' in source '${source}'`, {
    cause,
  });
}

export function unknownTable(source: string, table: string, cause?: unknown): SqlError {
  return new SqlError(ErrorCode.UNKNOWN_TABLE, `Table '${source}.${table}' doesn't exist`, { cause });
}

export function unknownColumn(source: string, column: string, cause?: unknown): SqlError {
  return new SqlError(ErrorCode.UNKNOWN_COLUMN, `Unknown column '${column}' in source '${source}'`, {
    cause,
  });
}

export function syntaxError(source: string, detail: string, cause?: unknown): SqlError {
  return new SqlError(ErrorCode.SYNTAX, `Source '${source}' syntax error: ${detail}`, { cause });
}

export function interrupted(source: string): SqlError {
  return new SqlError(ErrorCode.QUERY_INTERRUPTED, `Query execution was interrupted on source '${source}'`);
}

export function sourceError(source: string, detail: string, nativeCode?: string, cause?: unknown): SqlError {
  return new SqlError(
    ErrorCode.SOURCE_ERROR,
    `Source '${source}' error: ${detail}${nativeCode ? ` (${nativeCode})` : ''}`,
    {
      cause,
    },
  );
}

export function sourceClosed(source: string): SqlError {
  return new SqlError(ErrorCode.SOURCE_ERROR, `Source '${source}' is closed`);
}
