/** query.max_fragment_rows: a cross-source statement that would pull too much into the local engine is 1104. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../helpers/services.js';

let server: TestServer;
let pgDb: { database: string; drop: () => Promise<void> };
let myDb: { database: string; drop: () => Promise<void> };

before(async () => {
  pgDb = await createPgDatabase('fault_fragment');
  myDb = await createMariaDatabase('fault_fragment');
  await pgExec(
    pgDb.database,
    'CREATE TABLE events AS SELECT g AS id, g % 100 AS user_id FROM generate_series(1, 5000) g',
  );
  await mariaExec(myDb.database, 'CREATE TABLE users AS SELECT seq AS id FROM seq_1_to_100');
  server = await startTestServer({ TRIBUTARY_QUERY_MAX_FRAGMENT_ROWS: '1000' });
  for (const [name, engine, params] of [
    ['pg', 'postgres', pgParams(pgDb.database)],
    ['my', 'mariadb', mariaParams(myDb.database)],
  ])
    assert.equal(
      (await server.sql(`CREATE DATABASE ${name} WITH ENGINE = '${engine}', PARAMETERS = ${params}`)).type,
      'ok',
    );
});

after(async () => {
  await server?.stop();
  await pgDb?.drop();
  await myDb?.drop();
});

test('a fragment past the limit is 1104 naming the source, the table and the limit', async () => {
  const r = await server.sql('SELECT COUNT(*) FROM pg.events e CROSS JOIN my.users u');
  assert.equal(r.type, 'error');
  if (r.type === 'error') {
    assert.equal(r.error_code, 1104);
    assert.match(r.error_message, /more than 1000 rows of 'pg\.events'.*query\.max_fragment_rows/);
  }
});

test('fragments within the limit are untouched, and statements one source runs whole have no limit', async () => {
  const small = await server.sql(
    'SELECT COUNT(*) FROM pg.events e JOIN my.users u ON u.id = e.user_id WHERE e.id <= 1000',
  );
  assert.deepEqual(small.type === 'table' && small.data, [[990]]);
  const whole = await server.sql('SELECT COUNT(*) FROM pg.events');
  assert.deepEqual(whole.type === 'table' && whole.data, [[5000]]);
});
