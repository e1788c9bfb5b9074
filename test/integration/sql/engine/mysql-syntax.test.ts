/**
 * MySQL syntax the parser reads through its pre-passes (parse/clause-gaps.ts), through the real
 * server on real sources, where the differential corpus cannot see the difference: value
 * types (JSON values, integers) and NATURAL JOIN across two sources.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../../helpers/services.js';

let server: TestServer;
let pgdb: { database: string; drop: () => Promise<void> };
let maria: { database: string; drop: () => Promise<void> };

before(async () => {
  [pgdb, maria] = await Promise.all([createPgDatabase('msyn'), createMariaDatabase('msyn')]);
  await pgExec(
    pgdb.database,
    "CREATE TABLE a (id int, x text); INSERT INTO a VALUES (1, 'a'), (2, 'b'), (3, 'c');" +
      "CREATE TABLE b (ID int, y text); INSERT INTO b VALUES (1, 'p'), (3, 'q');",
  );
  await mariaExec(
    maria.database,
    "CREATE TABLE nt_a (id INT, x VARCHAR(10)); INSERT INTO nt_a VALUES (1, 'a'), (2, 'b');",
  );
  server = await startTestServer();
  for (const sql of [
    `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgdb.database)}`,
    `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(maria.database)}`,
  ]) {
    const r = await server.sql(sql);
    assert.equal(r.type, 'ok', JSON.stringify(r));
  }
});

after(async () => {
  await server?.stop();
  await Promise.all([pgdb?.drop(), maria?.drop()]);
});

test('JSON functions on a MariaDB source answer JSON values, as a JSON column does', async () => {
  const r = await server.sql(
    "SELECT JSON_OBJECT('id', id, 'x', x) j, JSON_ARRAY(id) a, id FROM my.nt_a ORDER BY id",
  );
  assert.deepEqual(r, {
    type: 'table',
    column_names: ['j', 'a', 'id'],
    data: [
      [{ id: 1, x: 'a' }, [1], 1],
      [{ id: 2, x: 'b' }, [2], 2],
    ],
  });
  // After a `*`, counted from the end.
  const star = await server.sql("SELECT *, JSON_OBJECT('x', x) j FROM my.nt_a WHERE id = 1");
  assert.deepEqual(star, { type: 'table', column_names: ['id', 'x', 'j'], data: [[1, 'a', { x: 'a' }]] });
});

test('MOD of integers is an integer on PostgreSQL', async () => {
  const r = await server.sql('SELECT id MOD 2, id % 2, MOD(id, 0) FROM pg.a ORDER BY id');
  assert.equal(r.type, 'table');
  assert.deepEqual(r.type === 'table' ? r.data : null, [
    [1, 1, null],
    [0, 0, null],
    [1, 1, null],
  ]);
});

test('NATURAL JOIN on one source and across two: each shared column once, first', async () => {
  const one = await server.sql('SELECT * FROM pg.a NATURAL JOIN pg.b ORDER BY id');
  assert.deepEqual(one, {
    type: 'table',
    column_names: ['id', 'x', 'y'],
    data: [
      [1, 'a', 'p'],
      [3, 'c', 'q'],
    ],
  });
  const cross = await server.sql('SELECT * FROM my.nt_a NATURAL LEFT JOIN pg.b ORDER BY id');
  assert.equal(cross.type, 'table', JSON.stringify(cross));
  assert.deepEqual(cross.type === 'table' ? cross.data : null, [
    [1, 'a', 'p'],
    [2, 'b', null],
  ]);
});

test('RANGE frames and select modifiers run; a construct without an equivalent answers 1235 by name', async () => {
  const r = await server.sql(
    'SELECT HIGH_PRIORITY SQL_NO_CACHE id, SUM(id) OVER (ORDER BY id RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) s FROM pg.a ORDER BY id',
  );
  assert.deepEqual(r.type === 'table' ? r.data : r, [
    [1, 1],
    [2, 3],
    [3, 5],
  ]);
  const member = await server.sql("SELECT 1 MEMBER OF ('[1]') FROM pg.a");
  assert.equal(member.type, 'error');
  assert.equal(member.type === 'error' ? member.error_code : 0, 1235);
  assert.match(member.type === 'error' ? member.error_message : '', /MEMBER OF/);
});
