/** MySQL server error codes used in results (docs/reference/sql.md). */
export const ErrorCode = {
  SYNTAX: 1064,
  UNKNOWN_DATABASE: 1049,
  UNKNOWN_TABLE: 1146,
  UNKNOWN_COLUMN: 1054,
  DATABASE_EXISTS: 1007,
  DATABASE_NOT_EXISTS: 1008,
  ACCESS_DENIED_DB: 1044,
  ACCESS_DENIED: 1045,
  TOO_MANY_CONNECTIONS: 1040,
  CANNOT_CONNECT: 2003,
  SOURCE_ERROR: 1105,
  NOT_SUPPORTED: 1235,
  READ_ONLY: 1290,
  QUERY_INTERRUPTED: 1317,
  PACKET_TOO_LARGE: 1153,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode] | number;

/**
 * The one error type for SQL answers. `code` is a MySQL server code; the message
 * must name the source and object involved and must never contain a secret.
 */
export class SqlError extends Error {
  readonly code: number;
  constructor(code: ErrorCodeValue, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SqlError';
    this.code = code;
  }
}

/** A statement nested deeper than the parser or compiler can follow (JavaScript's stack ran out). */
export function isTooDeep(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

export function tooDeep(): SqlError {
  return new SqlError(
    ErrorCode.SYNTAX,
    'You have an error in your SQL syntax: the statement is nested too deeply (an expression or subqueries thousands of levels deep); split or simplify it',
  );
}
