/** A test server with one PostgreSQL (`pg`) and one MariaDB (`my`) source on fresh databases. */
import assert from 'node:assert/strict';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../helpers/services.js';

export interface TwoSources {
  server: TestServer;
  pg: { database: string; drop: () => Promise<void> };
  my: { database: string; drop: () => Promise<void> };
  close(): Promise<void>;
}

export async function twoSources(
  prefix: string,
  setup: { pg: string; my: string },
  env: Record<string, string> = {},
): Promise<TwoSources> {
  const pg = await createPgDatabase(prefix);
  const my = await createMariaDatabase(prefix);
  await pgExec(pg.database, setup.pg);
  await mariaExec(my.database, setup.my);
  const server = await startTestServer(env);
  for (const [name, engine, params] of [
    ['pg', 'postgres', pgParams(pg.database)],
    ['my', 'mariadb', mariaParams(my.database)],
  ])
    assert.equal(
      (await server.sql(`CREATE DATABASE ${name} WITH ENGINE = '${engine}', PARAMETERS = ${params}`)).type,
      'ok',
    );
  return {
    server,
    pg,
    my,
    close: async () => {
      await server.stop();
      await pg.drop();
      await my.drop();
    },
  };
}
