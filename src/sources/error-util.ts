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

/**
 * A source's own error under its MySQL code (SPEC §2): clients tell error classes apart by
 * the code and SQLSTATE (PyMySQL's IntegrityError, JDBC's SQLIntegrityConstraintViolation),
 * so a constraint violation must not become 1105.
 */
export function keptSourceError(source: string, code: number, detail: string, cause?: unknown): SqlError {
  return new SqlError(code, `Source '${source}' error: ${detail}`, { cause });
}

/** PostgreSQL SQLSTATEs that have a MySQL counterpart (SPEC §2, docs/reference/sql.md). */
export const PG_STATE_CODES: Readonly<Record<string, number>> = {
  '23505': 1062, // unique_violation: Duplicate entry
  '23503': 1452, // foreign_key_violation: Cannot add or update a child row
  '23502': 1048, // not_null_violation: Column cannot be null
  '23514': 3819, // check_violation: Check constraint is violated
  '22001': 1406, // string_data_right_truncation: Data too long
  '22P02': 1366, // invalid_text_representation: Incorrect value
  '22003': 1264, // numeric_value_out_of_range: Out of range value
  '22012': 1365, // division_by_zero
  '40001': 1213, // serialization_failure: Deadlock found
  '40P01': 1213, // deadlock_detected
};

/** The MySQL code of a constraint violation told only by its text (SQLite, DuckDB), or null. */
export function constraintCode(message: string): number | null {
  if (
    /UNIQUE constraint failed|PRIMARY KEY constraint failed|Duplicate key|violates (primary key|unique) constraint/i.test(
      message,
    )
  )
    return 1062;
  if (/NOT NULL constraint failed/i.test(message)) return 1048;
  if (/FOREIGN KEY constraint failed|violates foreign key/i.test(message)) return 1452;
  if (/CHECK constraint failed/i.test(message)) return 3819;
  return null;
}

/** A statement reached a source that DROP DATABASE (or a replacing CREATE) closed meanwhile. */
export class SourceClosedError extends SqlError {
  constructor(readonly source: string) {
    super(ErrorCode.SOURCE_ERROR, `Source '${source}' is closed`);
  }
}

export function sourceClosed(source: string): SqlError {
  return new SourceClosedError(source);
}
