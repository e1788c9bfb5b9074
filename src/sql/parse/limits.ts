import { ErrorCode, SqlError } from '../../core/errors.js';

/**
 * Tokens a statement may have outside its lists of literals: parsing takes about 13 us a
 * token (node-sql-parser, measured on 2,000-branch CASE chains), so this keeps any
 * statement's parse near a second. A list of literals costs no parse however long it is
 * (templates.ts), so it does not count.
 */
export const MAX_STATEMENT_TOKENS = 60_000;

/** 1064 for a statement too big to parse in reasonable time (MAX_STATEMENT_TOKENS). */
export function checkStatementSize(tokens: number): void {
  if (tokens > MAX_STATEMENT_TOKENS)
    throw new SqlError(
      ErrorCode.SYNTAX,
      `Statement too large: ${tokens} tokens outside lists of literals (the limit is ${MAX_STATEMENT_TOKENS}); ` +
        'split it, or pass long lists of values as IN (...) or VALUES lists of literals, which have no such limit',
    );
}
