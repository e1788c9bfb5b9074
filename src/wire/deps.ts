import type { SecureContext } from 'node:tls';
import type { Logger } from 'pino';
import type { Limiter } from '../auth/limiters.js';
import type { UserDirectory } from '../auth/users.js';
import type { SqlEngine } from '../sql/engine-types.js';

/** A connection as another one's KILL sees it. */
export interface Killable {
  /** KILL QUERY: stop its running statement. */
  cancel(): void;
  /** KILL [CONNECTION]. */
  close(): void;
  /** Answering a command now. */
  readonly working: boolean;
  /** The server is draining: end now if idle, else once the command is answered. */
  endWhenIdle(): void;
}

/** What every connection of the listener shares. */
export interface WireDeps {
  engine: SqlEngine;
  logger: Logger;
  /** The token-auth users (TRIBUTARY_USERNAME and auth.users_file); null: any user on loopback. */
  auth: UserDirectory | null;
  /** Failed-login limiter shared with /api/login (null when auth is off). */
  loginLimiter: Limiter | null;
  readOnly: boolean;
  tls: SecureContext | null;
  serverVersion: string;
  productVersion: string;
  handshakeTimeoutMs: number;
  port(): number;
  /** Open connections by id (KILL, COM_STATISTICS). */
  sessions: Map<number, Killable>;
}
