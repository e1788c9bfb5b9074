/**
 * The MySQL wire protocol face (docs/reference/wire.md): a TCP listener whose connections
 * each get a Session. Built by cli/ with what it needs, like MCP's deps.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { createSecureContext } from 'node:tls';
import type { Logger } from 'pino';
import type { Limiter } from '../auth/limiters.js';
import type { UserDirectory } from '../auth/users.js';
import type { SqlEngine } from '../sql/engine-types.js';
import { ProcessList } from '../sql/execute/processlist.js';
import type { WireDeps } from './deps.js';
import { HANDSHAKE_TIMEOUT_MS } from './preauth-limits.js';
import { Session } from './session.js';

export interface WireOptions {
  host: string;
  port: number;
  engine: SqlEngine;
  logger: Logger;
  /** The token-auth users; null: auth is off (any user on loopback). */
  auth: UserDirectory | null;
  loginLimiter: Limiter | null;
  readOnly: boolean;
  tlsCert: string | null;
  tlsKey: string | null;
  version: string;
  handshakeTimeoutMs?: number;
}

export interface WireServer {
  port: number;
  /** Connections open now. */
  connections(): number;
  /** Connections answering a command now. */
  working(): number;
  /**
   * Take no new connections (refused: a TCP load balancer tries another replica); idle
   * connections end now, busy ones once their statement is answered.
   */
  drain(): void;
  close(): Promise<void>;
}

export async function startWireServer(o: WireOptions): Promise<WireServer> {
  const tls =
    o.tlsCert && o.tlsKey
      ? createSecureContext({ cert: readFileSync(o.tlsCert), key: readFileSync(o.tlsKey) })
      : null;
  const sockets = new Set<Socket>();
  // Connection ids (MySQL's are 32-bit; clients echo them in KILL): the engine's process list's.
  const ids = o.engine.processes ?? new ProcessList();
  let server: Server | null = null;
  // Read once listening: server.address() per statement was 1.5% of a point lookup's CPU.
  let boundPort = 0;
  const deps: WireDeps = {
    engine: o.engine,
    logger: o.logger,
    auth: o.auth,
    loginLimiter: o.loginLimiter,
    readOnly: o.readOnly,
    tls,
    // Clients read the major version for features; the suffix says who answers.
    serverVersion: `8.0.40-tributary-${o.version}`,
    productVersion: o.version,
    handshakeTimeoutMs: o.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS,
    port: () => boundPort || o.port,
    sessions: new Map(),
  };
  server = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // One id space with the engine's HTTP and MCP statements (SHOW PROCESSLIST, KILL).
    const id = ids.nextId();
    try {
      deps.sessions.set(id, new Session(socket, id, deps));
    } catch (e) {
      o.logger.error({ err: (e as Error)?.message }, 'mysql connection failed to start');
      socket.destroy();
    }
  });
  const srv = server;
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen({ host: o.host, port: o.port }, () => {
      srv.off('error', reject);
      resolve();
    });
  });
  const a = srv.address();
  boundPort = typeof a === 'object' && a ? a.port : o.port;
  srv.on('error', (e) => o.logger.error({ err: e.message }, 'mysql listener error'));
  return {
    port: deps.port(),
    connections: () => sockets.size,
    working: () => {
      let n = 0;
      for (const s of deps.sessions.values()) if (s.working) n++;
      return n;
    },
    drain: () => {
      // After this turn's poll accepted the connections already waiting (http/drain.ts).
      setImmediate(() => {
        if (srv.listening) srv.close();
      });
      for (const s of [...deps.sessions.values()]) s.endWhenIdle();
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => (srv.listening ? srv.close(() => resolve()) : resolve()));
      for (const s of deps.sessions.values()) s.close();
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
