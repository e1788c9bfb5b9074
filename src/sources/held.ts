/**
 * What every source's held connection (types.ts HeldConnection) shares: the text of
 * savepoint statements and the errors a transaction's end can give.
 */
import { ErrorCode, SqlError } from '../core/errors.js';
import { quoteIdent } from '../core/sql-text.js';
import type { DialectName } from '../core/types.js';
import type { SavepointOp } from './types.js';

export function savepointSql(dialect: DialectName, op: SavepointOp, name: string): string {
  const n = quoteIdent(dialect, name);
  if (op === 'savepoint') return `SAVEPOINT ${n}`;
  if (op === 'release') return `RELEASE SAVEPOINT ${n}`;
  return `ROLLBACK TO SAVEPOINT ${n}`;
}

/** A statement for a transaction whose connection is gone (the source's server rolled it back). */
export function transactionLost(source: string): SqlError {
  return new SqlError(
    ErrorCode.SOURCE_ERROR,
    `The transaction on source '${source}' was rolled back: its connection was lost (a statement was stopped mid-result, or the connection broke); ROLLBACK and start it again`,
  );
}

/** COMMIT found the transaction already failed: the source rolled it back instead (MySQL's ER_ERROR_DURING_COMMIT). */
export function commitRolledBack(source: string): SqlError {
  return new SqlError(
    1180,
    `COMMIT on source '${source}' rolled the transaction back: a statement in it had failed, and the source aborts such a transaction`,
  );
}
