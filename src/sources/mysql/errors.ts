import { SqlError } from '../../core/errors.js';
import {
  accessDenied,
  cannotConnect,
  interrupted,
  isNetworkError,
  keptSourceError,
  lostConnection,
  messageOf,
  scrub,
  sourceError,
  syntaxError,
  unknownColumn,
  unknownDatabase,
  unknownTable,
} from '../error-util.js';

export interface MysqlErrorContext {
  source: string;
  host: string;
  port: number;
  user: string;
  database: string;
  password?: string;
}

interface DriverError {
  code?: string;
  errno?: number;
  sqlState?: string;
  sqlMessage?: string;
  fatal?: boolean;
}

/** Server errors that end the session rather than the statement. */
const FATAL_ERRNOS = new Set([1927, 2006, 2013, 4031]);

/** True when the connection that saw this error cannot be used again. */
export function isBrokenConnection(e: unknown): boolean {
  const d = e as DriverError | null;
  if (d?.fatal) return true;
  if (typeof d?.errno === 'number' && FATAL_ERRNOS.has(d.errno)) return true;
  return isNetworkError(e);
}

/** Maps a mysql2 error to a SqlError naming the source (docs/reference/sql.md codes). `connecting`: before any query ran. */
export function mapMysqlError(ctx: MysqlErrorContext, e: unknown, connecting = false): SqlError {
  if (e instanceof SqlError) return e;
  const d = (e ?? {}) as DriverError;
  const where = `${ctx.host}:${ctx.port}`;
  const msg = scrub(d.sqlMessage ?? messageOf(e), ctx.password);
  switch (d.errno) {
    case 1045:
      return accessDenied(ctx.source, ctx.user, msg, e);
    case 1044:
      return new SqlError(1044, `Access denied to source '${ctx.source}' for user '${ctx.user}': ${msg}`, {
        cause: e,
      });
    case 1049:
      return unknownDatabase(ctx.source, /Unknown database '(.+)'/.exec(msg)?.[1] ?? ctx.database, e);
    case 1146:
      return unknownTable(ctx.source, tableName(msg, ctx.database), e);
    case 1054:
      return unknownColumn(ctx.source, /Unknown column '(.+?)' in/.exec(msg)?.[1] ?? '?', e);
    case 1064:
      return syntaxError(ctx.source, msg, e);
    case 1317:
    case 3024:
    case 1969:
      return interrupted(ctx.source);
    case 1053:
      // Server shutdown in progress: the statement was cut, as by a lost connection.
      return lostConnection(ctx.source, where, msg, e);
    case 1040:
      // The server's own connection limit: busy, not down.
      return new SqlError(1040, `Too many connections: source '${ctx.source}' is busy (${msg})`, {
        cause: e,
      });
    case 1129:
    case 1130:
      return cannotConnect(ctx.source, where, msg, e);
    case 1792:
    case 1290:
      // A READ ONLY transaction (or a read-only server) refused a write.
      return new SqlError(1290, `Source '${ctx.source}' is in read-only mode: ${msg}`, { cause: e });
  }
  if (isBrokenConnection(e)) {
    return connecting ? cannotConnect(ctx.source, where, msg, e) : lostConnection(ctx.source, where, msg, e);
  }
  if (connecting && /SSL|certificate|self.signed|HANDSHAKE/i.test(`${msg} ${d.code ?? ''}`)) {
    return cannotConnect(ctx.source, where, msg, e);
  }
  // Any other server error keeps its own code (1062, 1452, 1048, ...); the SQLSTATE
  // follows from it on the wire (MySQL's codes map to one state each).
  if (typeof d.errno === 'number' && d.sqlState) return keptSourceError(ctx.source, d.errno, msg, e);
  if (typeof d.errno === 'number') return sourceError(ctx.source, msg, `MySQL error ${d.errno}`, e);
  return sourceError(ctx.source, msg, undefined, e);
}

/** "Table 'db.t' doesn't exist" → 't' (the source's own database name is implied). */
function tableName(msg: string, database: string): string {
  const full = /Table '(.+)' doesn't exist/.exec(msg)?.[1];
  if (!full) return '?';
  return full.startsWith(`${database}.`) ? full.slice(database.length + 1) : full;
}
