/**
 * DROP DATABASE x and CREATE DATABASE x racing statements on x: a statement answers as if it
 * came before or after the change (rows, or 1049 while x is gone), never `1105 Source 'x' is
 * closed` (35 of 269 statements answered that before).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createPgDatabase, PG } from '../../helpers/services.js';

let srv: TestServer;
let db: { database: string; drop: () => Promise<void> };

before(async () => {
  db = await createPgDatabase('race');
  const c = new pg.Client({ ...PG, database: db.database });
  await c.connect();
  await c.query('CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2), (3)');
  await c.end();
  srv = await startTestServer();
});
after(async () => {
  await srv?.stop();
  await db?.drop();
});

test('statements racing DROP and CREATE of their source answer rows or 1049, never "is closed"', async () => {
  const create = `CREATE DATABASE racer WITH ENGINE = "postgres", PARAMETERS = ${pgParams(db.database)}`;
  const r0 = await srv.sql(create);
  assert.equal(r0.type, 'ok', JSON.stringify(r0));
  let stop = false;
  const codes = new Map<string, number>();
  const count = (k: string) => codes.set(k, (codes.get(k) ?? 0) + 1);
  const reader = async () => {
    while (!stop) {
      const r = await srv.sql('SELECT COUNT(*) AS n FROM racer.t');
      if (r.type === 'error') count(`${r.error_code} ${r.error_message}`);
      else count('ok');
    }
  };
  const churn = async () => {
    for (let i = 0; i < 15; i++) {
      await srv.sql('DROP DATABASE racer');
      await srv.sql(create);
    }
    stop = true;
  };
  await Promise.all([reader(), reader(), reader(), reader(), churn()]);
  const bad = [...codes.entries()].filter(([k]) => k !== 'ok' && !k.startsWith('1049 '));
  assert.deepEqual(bad, [], JSON.stringify([...codes.entries()]));
  assert.ok((codes.get('ok') ?? 0) > 0, 'some statements ran');
});
