/**
 * query.timeout_ms: a statement still running is cancelled at its source (proved by the
 * source's own activity view) and answered 3024.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { TestServer } from '../../helpers/server.js';
import { MARIADB, PG } from '../../helpers/services.js';
import { type TwoSources, twoSources } from './two-sources.js';

let fx: TwoSources;
let server: TestServer;
let pgDb: TwoSources['pg'];
let myDb: TwoSources['my'];

before(async () => {
  fx = await twoSources(
    'fault_timeout',
    {
      pg: 'CREATE TABLE n AS SELECT g AS x FROM generate_series(1, 40000) g',
      my: 'CREATE TABLE n AS SELECT seq AS x FROM seq_1_to_3000',
    },
    { TRIBUTARY_QUERY_TIMEOUT_MS: '1000' },
  );
  ({ server, pg: pgDb, my: myDb } = fx);
});

after(async () => {
  await fx?.close();
});

const TIMEOUT = {
  type: 'error',
  error_code: 3024,
  error_message: 'Query execution was interrupted, maximum statement execution time exceeded',
};

async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

test('PostgreSQL: a long statement is answered 3024 and is gone from pg_stat_activity', {
  timeout: 30_000,
}, async () => {
  const t0 = Date.now();
  const r = await server.sql('SELECT COUNT(*) FROM pg.n a CROSS JOIN pg.n b');
  assert.deepEqual(r, TIMEOUT);
  assert.ok(Date.now() - t0 < 5_000, `answered after ${Date.now() - t0} ms`);
  const c = new pg.Client({ ...PG, database: pgDb.database });
  await c.connect();
  try {
    const gone = await within(2_000, async () => {
      const a = await c.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query ILIKE '%CROSS JOIN%' AND pid <> pg_backend_pid()",
        [pgDb.database],
      );
      return a.rows[0].n === 0;
    });
    assert.ok(gone, 'the statement still runs on PostgreSQL');
  } finally {
    await c.end();
  }
});

test('MariaDB: a long statement is answered 3024 and is gone from the process list', {
  timeout: 30_000,
}, async () => {
  const r = await server.sql('SELECT SLEEP(20) FROM my.n LIMIT 1');
  assert.deepEqual(r, TIMEOUT);
  const c = await mysql.createConnection({ ...MARIADB, database: myDb.database });
  try {
    const gone = await within(2_000, async () => {
      const [rows] = await c.query(
        "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE '%SLEEP(20)%' AND ID <> CONNECTION_ID()",
        [myDb.database],
      );
      return Number((rows as { n: number }[])[0].n) === 0;
    });
    assert.ok(gone, 'the statement still runs on MariaDB');
  } finally {
    await c.end();
  }
});

test('the local engine: a runaway cross-source join is interrupted and answered 3024', {
  timeout: 30_000,
}, async () => {
  const t0 = Date.now();
  const r = await server.sql('SELECT COUNT(*) FROM pg.n a CROSS JOIN my.n b CROSS JOIN my.n c');
  assert.deepEqual(r, TIMEOUT);
  assert.ok(Date.now() - t0 < 8_000, `answered after ${Date.now() - t0} ms`);
  // The engine is free again at once.
  const ok = await server.sql('SELECT COUNT(*) FROM my.n');
  assert.equal(ok.type, 'table');
});
