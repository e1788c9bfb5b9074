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
import { connect, resultOf } from '../mcp/helpers/clients.js';
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
  await watcher?.end();
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

/** Statements of the test database still running on PostgreSQL whose text has `marker`. */
let watcher: pg.Client | null = null;
async function pgRunning(marker: string): Promise<number> {
  // One connection for every look: connecting anew each time is slow on a busy machine.
  if (!watcher) {
    watcher = new pg.Client({ ...PG, database: pgDb.database });
    await watcher.connect();
  }
  const a = await watcher.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE $2 AND pid <> pg_backend_pid()",
    [pgDb.database, `%${marker}%`],
  );
  return a.rows[0].n;
}

async function myRunning(marker: string): Promise<number> {
  const c = await mysql.createConnection({ ...MARIADB, database: myDb.database });
  try {
    const [rows] = await c.query(
      "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE ? AND ID <> CONNECTION_ID() AND COMMAND <> 'Sleep'",
      [myDb.database, `%${marker}%`],
    );
    return Number((rows as { n: number }[])[0].n);
  } finally {
    await c.end();
  }
}

test('X-Tributary-Timeout-Ms: a tighter limit for one HTTP call; the statement is gone from pg_stat_activity', {
  timeout: 30_000,
}, async () => {
  const t0 = Date.now();
  const res = await fetch(`${server.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tributary-timeout-ms': '200' },
    body: JSON.stringify({ query: 'SELECT COUNT(*) AS hdr_limit FROM pg.n a CROSS JOIN pg.n b' }),
  });
  assert.deepEqual(await res.json(), TIMEOUT);
  // query.timeout_ms is 1000 here: the call's own 200 ms was the one that counted.
  assert.ok(Date.now() - t0 < 900, `answered after ${Date.now() - t0} ms`);
  assert.ok(await within(2_000, async () => (await pgRunning('hdr_limit')) === 0), 'still running');
  // A larger value does not lift the server's limit.
  const t1 = Date.now();
  const loose = await fetch(`${server.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tributary-timeout-ms': '600000' },
    body: JSON.stringify({ query: 'SELECT COUNT(*) FROM pg.n a CROSS JOIN pg.n b' }),
  });
  assert.deepEqual(await loose.json(), TIMEOUT);
  assert.ok(Date.now() - t1 < 5_000);
  const bad = await fetch(`${server.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tributary-timeout-ms': 'soon' },
    body: JSON.stringify({ query: 'SELECT 1' }),
  });
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { message: string }).message, /X-Tributary-Timeout-Ms/i);
});

test('an HTTP client that goes away: its statement is gone from pg_stat_activity within 2 s', {
  timeout: 30_000,
}, async () => {
  const ctrl = new AbortController();
  const call = fetch(`${server.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tributary-timeout-ms': '20000' },
    body: JSON.stringify({ query: 'SELECT COUNT(*) AS gone_client FROM pg.n a CROSS JOIN pg.n b' }),
    signal: ctrl.signal,
  });
  call.catch(() => {});
  assert.ok(await within(5_000, async () => (await pgRunning('gone_client')) > 0), 'never started');
  ctrl.abort();
  assert.ok(await within(2_000, async () => (await pgRunning('gone_client')) === 0), 'still running');
});

test('MCP _meta["tributary/timeout_ms"]: the call answers 3024 and MariaDB stops the statement', {
  timeout: 30_000,
}, async () => {
  const mcp = await connect('streamable', server.url);
  try {
    const t0 = Date.now();
    const r = await mcp.client.callTool({
      name: 'query',
      arguments: { query: 'SELECT SLEEP(20) AS meta_limit FROM my.n LIMIT 1' },
      _meta: { 'tributary/timeout_ms': 300 },
    });
    assert.deepEqual(resultOf(r), TIMEOUT);
    assert.ok(Date.now() - t0 < 900, `answered after ${Date.now() - t0} ms`);
    assert.ok(await within(2_000, async () => (await myRunning('meta_limit')) === 0), 'still running');
    const bad = resultOf(
      await mcp.client.callTool({
        name: 'query',
        arguments: { query: 'SELECT 1' },
        _meta: { 'tributary/timeout_ms': 'soon' },
      }),
    );
    assert.equal(bad.error_code, 1210);
  } finally {
    await mcp.terminate();
  }
});
