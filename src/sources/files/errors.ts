import { ErrorCode, SqlError } from '../../core/errors.js';

/**
 * Errors of the files source outside SQL: each carries the HTTP status and the
 * snake_case code the HTTP route answers with (docs/reference/http.md), so the route maps them 1:1
 * and the CLI can print the message alone.
 */
export class FileError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
    this.name = 'FileError';
  }
}

export const invalidRequest = (msg: string) => new FileError(400, 'invalid_request', msg);
export const invalidFile = (msg: string) => new FileError(400, 'invalid_file', msg);

export function tableExists(name: string): SqlError {
  return new SqlError(1050, `Table 'files.${name}' already exists`);
}

export function unknownTable(name: string, code: number = ErrorCode.UNKNOWN_TABLE): SqlError {
  return new SqlError(
    code,
    code === 1051 ? `Unknown table 'files.${name}'` : `Table 'files.${name}' doesn't exist`,
  );
}
