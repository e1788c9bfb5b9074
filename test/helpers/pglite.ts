/**
 * PostgreSQL with pgvector for tests: PGlite (PostgreSQL compiled to WebAssembly, in this
 * process) with its pgvector extension, served over the PostgreSQL wire protocol on
 * 127.0.0.1 (a free port) by pglite-socket, so the ordinary `pg` driver and Tributary's
 * postgres engine connect to it as to any server. Debian's PostgreSQL here has no pgvector.
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';

export interface PgliteServer {
  host: string;
  port: number;
  /** `postgres` user and database, no password. */
  params(): string;
  query(sql: string, values?: unknown[]): Promise<pg.QueryResult>;
  stop(): Promise<void>;
}

export async function startPglite(): Promise<PgliteServer> {
  const db = await PGlite.create({ extensions: { vector } });
  // One PGlite session serves every connection; the multiplexer keeps a transaction's
  // statements on their own connection. The source's pool and the test's client fit in 16.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await client.connect();
  return {
    host: '127.0.0.1',
    port,
    params: () =>
      JSON.stringify({ host: '127.0.0.1', port, user: 'postgres', password: '', database: 'postgres' }),
    query: (sql, values) => client.query(sql, values),
    stop: async () => {
      await client.end().catch(() => {});
      await server.stop();
      await db.close();
    },
  };
}
