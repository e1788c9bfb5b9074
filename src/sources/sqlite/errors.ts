import { SqlError } from '../../core/errors.js';
import {
  cannotConnect,
  constraintCode,
  keptSourceError,
  messageOf,
  sourceError,
  syntaxError,
  unknownColumn,
  unknownTable,
} from '../error-util.js';

/** SQLite reports errors as text only (no codes through this driver); map the ones docs/reference/sql.md names. */
export function mapSqliteError(source: string, path: string, e: unknown): SqlError {
  if (e instanceof SqlError) return e;
  const msg = messageOf(e);
  let m = /^no such table: (.+)$/.exec(msg);
  if (m) return unknownTable(source, m[1].replace(/^main\./, ''), e);
  m = /^no such column: "?([^"]+?)"?(?: - .*)?$/.exec(msg);
  if (m) return unknownColumn(source, m[1], e);
  if (/syntax error|incomplete input|unrecognized token/.test(msg)) return syntaxError(source, msg, e);
  if (/readonly database/i.test(msg))
    return new SqlError(1290, `Source '${source}' is in read-only mode: ${msg}`, { cause: e });
  if (/Could not open the database|file is not a database|unable to open/i.test(msg))
    return cannotConnect(source, path, msg, e);
  const constraint = constraintCode(msg);
  if (constraint) return keptSourceError(source, constraint, msg, e);
  return sourceError(source, msg, undefined, e);
}
