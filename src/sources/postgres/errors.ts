import { SqlError } from '../../core/errors.js';
import {
  accessDenied,
  cannotConnect,
  interrupted,
  isNetworkError,
  keptSourceError,
  lostConnection,
  messageOf,
  PG_STATE_CODES,
  scrub,
  sourceError,
  syntaxError,
  unknownColumn,
  unknownDatabase,
  unknownTable,
} from '../error-util.js';

export interface PgErrorContext {
  source: string;
  host: string;
  port: number;
  user: string;
  database: string;
  password?: string;
}

/** SQLSTATEs after which the connection is gone (the pool must not reuse the client). */
const FATAL_STATES = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);

/** True when the client that saw this error cannot be used again. */
export function isBrokenConnection(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && FATAL_STATES.has(code)) return true;
  return (
    isNetworkError(e) || /Connection terminated|Client has encountered a connection error/i.test(messageOf(e))
  );
}

/** Maps a pg error to a SqlError naming the source (docs/reference/sql.md codes). `connecting`: before any query ran. */
export function mapPgError(ctx: PgErrorContext, e: unknown, connecting = false): SqlError {
  if (e instanceof SqlError) return e;
  const where = `${ctx.host}:${ctx.port}`;
  const code = (e as { code?: unknown } | null)?.code;
  const msg = scrub(messageOf(e), ctx.password);
  switch (code) {
    case '28P01':
    case '28000':
      return accessDenied(ctx.source, ctx.user, msg, e);
    case '3D000':
      return unknownDatabase(ctx.source, ctx.database, e);
    case '3F000':
      return unknownDatabase(
        ctx.source,
        /schema "(.+)" does not exist/.exec(msg)?.[1] ?? ctx.database,
        e,
        'schema',
      );
    case '42P01':
      return unknownTable(ctx.source, /relation "(.+)" does not exist/.exec(msg)?.[1] ?? '?', e);
    case '42703':
      return unknownColumn(ctx.source, columnName(msg), e);
    case '42601':
      return syntaxError(ctx.source, msg, e);
    case '57014':
      return interrupted(ctx.source);
    case '42501':
      return new SqlError(1044, `Access denied to source '${ctx.source}' for user '${ctx.user}': ${msg}`, {
        cause: e,
      });
    case '57P03':
      return cannotConnect(ctx.source, where, msg, e);
    case '25006':
      // read_only_sql_transaction: the session's own read-only mode held.
      return new SqlError(1290, `Source '${ctx.source}' is in read-only mode: ${msg}`, { cause: e });
  }
  const mysqlCode = typeof code === 'string' ? PG_STATE_CODES[code] : undefined;
  if (mysqlCode) return keptSourceError(ctx.source, mysqlCode, `${msg} (SQLSTATE ${code})`, e);
  if (connecting && (isBrokenConnection(e) || /SSL|certificate|self.signed/i.test(msg)))
    return cannotConnect(ctx.source, where, msg, e);
  if (isBrokenConnection(e)) return lostConnection(ctx.source, where, msg, e);
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))
    return sourceError(ctx.source, msg, `SQLSTATE ${code}`, e);
  return sourceError(ctx.source, msg, undefined, e);
}

function columnName(msg: string): string {
  const m = /column "?([^"]+?)"? does not exist/.exec(msg);
  return m ? m[1] : '?';
}
