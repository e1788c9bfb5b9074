/** Two real sources (PostgreSQL customers, MariaDB orders) behind a server with the MySQL listener on a free port. */
import assert from 'node:assert/strict';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../helpers/services.js';

export interface WireFixture {
  server: TestServer;
  port: number;
  /** The PostgreSQL database behind source `pgs`. */
  pgDatabase: string;
  /** The MariaDB database behind source `mys`. */
  mariaDatabase: string;
  stop(): Promise<void>;
}

/** The cross-source join every client runs; its rows must equal POST /api/sql/query's. */
export const JOIN = `SELECT c.name, o.id AS order_id, o.amount, o.placed_at, c.joined
  FROM pgs.customers c JOIN mys.orders o ON o.customer_id = c.id
  ORDER BY o.id`;

/**
 * A third table for the reflection tests (DBeaver, SQLAlchemy, JDBC metadata): a foreign key,
 * a secondary index, a default.
 */
export async function addVisits(fx: WireFixture): Promise<void> {
  await pgExec(
    fx.pgDatabase,
    `CREATE TABLE visits (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers(id),
       day date NOT NULL, note varchar(20) DEFAULT 'none');
     CREATE INDEX visits_day ON visits (day);
     INSERT INTO visits VALUES (1, 1, '2024-05-01', 'x'), (2, 2, '2024-05-02', NULL);`,
  );
}

export async function startWireFixture(env: Record<string, string> = {}): Promise<WireFixture> {
  const pgdb = await createPgDatabase('wire');
  const maria = await createMariaDatabase('wire');
  await pgExec(
    pgdb.database,
    `CREATE TABLE customers (id int PRIMARY KEY, name varchar(40) NOT NULL, joined date, balance numeric(10,2));
     INSERT INTO customers VALUES (1, 'Ada', '2024-01-05', 10.50), (2, 'Bo', NULL, -3.25), (3, 'Cé', '2023-12-31', 0);`,
  );
  await mariaExec(
    maria.database,
    `CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, amount decimal(12,2), placed_at datetime, note text);
     INSERT INTO orders VALUES (10, 1, 99.99, '2024-02-01 10:00:00', 'first'), (11, 1, 5.00, '2024-02-02 11:30:15', NULL),
       (12, 2, 1234567.89, '2024-03-03 00:00:00', 'big'), (13, 3, 0.01, NULL, 'tiny');`,
  );
  const server = await startTestServer(env);
  for (const sql of [
    `CREATE DATABASE pgs WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgdb.database)}`,
    `CREATE DATABASE mys WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(maria.database)}`,
  ]) {
    const r = env.TRIBUTARY_USERNAME ? await authedSql(server, sql, env) : await server.sql(sql);
    assert.equal(r.type, 'ok', JSON.stringify(r));
  }
  assert.ok(server.mysql, 'the MySQL listener started');
  return {
    server,
    port: server.mysql.port,
    pgDatabase: pgdb.database,
    mariaDatabase: maria.database,
    stop: async () => {
      await server.stop();
      await pgdb.drop();
      await maria.drop();
    },
  };
}

async function authedSql(server: TestServer, query: string, env: Record<string, string>) {
  const login = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: env.TRIBUTARY_USERNAME, password: env.TRIBUTARY_PASSWORD }),
  });
  const { token } = (await login.json()) as { token: string };
  const res = await fetch(`${server.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as { type: string };
}
