/**
 * A streamed result whose source connection dies mid-way ends as valid JSON with an `error`
 * member (docs/reference/http.md). The source's backend is killed from an admin session: the
 * shared servers keep running.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { TestServer } from '../../helpers/server.js';
import { MARIADB, PG } from '../../helpers/services.js';
import { type TwoSources, twoSources } from './two-sources.js';

const ROWS = 400_000;
let fx: TwoSources;
let server: TestServer;
let pgDb: TwoSources['pg'];
let myDb: TwoSources['my'];

before(async () => {
  fx = await twoSources(
    'fault_stream',
    {
      pg: `CREATE TABLE big AS SELECT g AS id, md5(g::text) AS s FROM generate_series(1, ${ROWS}) g`,
      my: `CREATE TABLE big AS SELECT seq AS id, MD5(seq) AS s FROM seq_1_to_${ROWS}`,
    },
    {},
  );
  ({ server, pg: pgDb, my: myDb } = fx);
});

after(async () => {
  await fx?.close();
});

/** Starts the query, reads its first chunk, runs `kill`, then reads the rest of the body. */
async function cutMidStream(
  sql: string,
  kill: () => Promise<void>,
): Promise<{ status: number; body: string }> {
  const res = await fetch(`${server.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: sql }),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let body = '';
  const first = await reader.read();
  body += decoder.decode(first.value, { stream: true });
  await kill();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    body += decoder.decode(value, { stream: true });
  }
  return { status: res.status, body };
}

function assertCutOff(status: number, body: string): void {
  assert.equal(status, 200);
  const parsed = JSON.parse(body); // valid JSON, whatever happened
  assert.equal(parsed.type, 'table');
  assert.ok(parsed.data.length < ROWS, `expected a partial result, got ${parsed.data.length} rows`);
  assert.equal(parsed.error?.type, 'error', body.slice(-300));
  assert.equal(typeof parsed.error.error_code, 'number');
  assert.ok(parsed.error.error_message.length > 0);
}

describe('a streamed result cut mid-way', () => {
  test('PostgreSQL backend terminated: the body ends with the error', { timeout: 60_000 }, async () => {
    const { status, body } = await cutMidStream('SELECT id, s FROM pg.big', async () => {
      const c = new pg.Client({ ...PG, database: pgDb.database });
      await c.connect();
      const r = await c.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query LIKE '%big%' AND pid <> pg_backend_pid()",
        [pgDb.database],
      );
      await c.end();
      assert.ok(r.rowCount! >= 1, 'the streaming backend was found');
    });
    assertCutOff(status, body);
  });

  test('MariaDB connection killed: the body ends with the error', { timeout: 60_000 }, async () => {
    const { status, body } = await cutMidStream('SELECT id, s FROM my.big', async () => {
      const c = await mysql.createConnection({ ...MARIADB, database: myDb.database });
      const [rows] = await c.query(
        "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE '%big%' AND ID <> CONNECTION_ID()",
        [myDb.database],
      );
      for (const r of rows as { ID: number }[]) await c.query(`KILL CONNECTION ${r.ID}`);
      await c.end();
      assert.ok((rows as unknown[]).length >= 1, 'the streaming connection was found');
    });
    assertCutOff(status, body);
  });

  test('a whole result has no error member', async () => {
    const r = await fetch(`${server.url}/api/sql/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'SELECT id FROM pg.big' }),
    });
    const parsed = (await r.json()) as { data: unknown[] };
    assert.equal(parsed.data.length, ROWS);
    assert.equal('error' in parsed, false);
  });
});
