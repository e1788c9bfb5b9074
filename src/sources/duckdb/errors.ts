import { SqlError } from '../../core/errors.js';
import {
  cannotConnect,
  constraintCode,
  interrupted,
  keptSourceError,
  messageOf,
  sourceError,
  syntaxError,
  unknownColumn,
  unknownTable,
} from '../error-util.js';

/** DuckDB's message without the "LINE 1: ..." pointer, on one line. */
export function duckMessage(e: unknown): string {
  return messageOf(e)
    .split(/\n\s*\nLINE \d+:/)[0]
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** DuckDB reports errors as "<Kind> Error: text"; map the kinds docs/reference/sql.md names. */
export function mapDuckError(source: string, path: string, e: unknown, opening = false): SqlError {
  if (e instanceof SqlError) return e;
  const msg = duckMessage(e);
  let m = /^Catalog Error: (?:Table|View) with name (.+?) does not exist/.exec(msg);
  if (m) return unknownTable(source, m[1], e);
  m = /^Binder Error: Referenced column "?(.+?)"? not found/.exec(msg);
  if (m) return unknownColumn(source, m[1], e);
  if (/^Parser Error:/.test(msg)) return syntaxError(source, msg.replace(/^Parser Error: /, ''), e);
  if (/^INTERRUPT Error:/.test(msg)) return interrupted(source);
  if (/read-only mode|read only mode/i.test(msg))
    return new SqlError(1290, `Source '${source}' is in read-only mode: ${msg}`, { cause: e });
  if (opening || /^IO Error: (Cannot open|Could not set lock)/.test(msg))
    return cannotConnect(source, path, msg, e);
  const constraint = constraintCode(msg);
  if (constraint) return keptSourceError(source, constraint, msg, e);
  return sourceError(source, msg, undefined, e);
}
