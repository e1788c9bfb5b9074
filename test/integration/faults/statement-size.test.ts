/**
 * Deep and wide statements get an answer at once, and the server stays responsive while
 * they are handled (issue 27): 5,000 nested parentheses, a 20,000-term expression, 1 MB
 * texts (a list of literals is answered; anything else that long is refused naming the
 * limit), and a statement parsed in the worker is stopped by its deadline. A bystander
 * client's `SELECT 1` runs throughout; its latency is reported by `npm run bench --
 * statement-size`, here it only has to keep being answered.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createPgDatabase, pgExec } from '../../helpers/services.js';

let server: TestServer;
let db: { database: string; drop: () => Promise<void> };

before(async () => {
  db = await createPgDatabase();
  await pgExec(db.database, 'CREATE TABLE t AS SELECT g AS id FROM generate_series(1, 20000) g');
  server = await startTestServer();
  const made = await server.sql(
    `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(db.database)}`,
  );
  assert.equal(made.type, 'ok');
});

after(async () => {
  await server?.stop();
  await db?.drop();
});

/** Runs `fn` while another client sends SELECT 1 every 20 ms; returns fn's answer and how many SELECT 1 were answered. */
async function withBystander<T>(fn: () => Promise<T>): Promise<{ value: T; answered: number }> {
  let stop = false;
  let answered = 0;
  const loop = (async () => {
    while (!stop) {
      const r = await server.sql('SELECT 1');
      assert.equal(r.type, 'table');
      answered++;
      await new Promise((res) => setTimeout(res, 20));
    }
  })();
  try {
    return { value: await fn(), answered };
  } finally {
    stop = true;
    await loop;
  }
}

function expectSyntax(r: Awaited<ReturnType<TestServer['sql']>>, message: RegExp): void {
  assert.equal(r.type, 'error', JSON.stringify(r).slice(0, 200));
  if (r.type === 'error') {
    assert.equal(r.error_code, 1064);
    assert.match(r.error_message, message);
  }
}

test('5,000 nested parentheses: 1064 nested too deeply', async () => {
  const { value } = await withBystander(() => server.sql(`SELECT ${'('.repeat(5000)}1${')'.repeat(5000)}`));
  expectSyntax(value, /nested too deeply/);
});

test('a 20,000-term expression: 1064 nested too deeply, while others are answered', async () => {
  const { value, answered } = await withBystander(() =>
    server.sql(`SELECT ${Array.from({ length: 20_000 }, (_, i) => i).join(' + ')} FROM pg.t`),
  );
  expectSyntax(value, /nested too deeply/);
  assert.ok(answered >= 1);
});

test('a 1 MB IN list (157,000 integers) is answered', async () => {
  const ids = Array.from({ length: 157_000 }, (_, i) => i + 1);
  const text = `SELECT COUNT(*) AS n FROM pg.t WHERE id IN (${ids.join(', ')})`;
  assert.ok(text.length > 1_000_000);
  const { value, answered } = await withBystander(() => server.sql(text));
  assert.deepEqual(value, { type: 'table', column_names: ['n'], data: [[20000]] });
  assert.ok(answered >= 1);
});

test('1 MB of anything but lists of literals is refused at once, naming the limit', async () => {
  const text = `SELECT id FROM pg.t WHERE ${Array.from({ length: 80_000 }, (_, i) => `id = ${i}`).join(' OR ')}`;
  assert.ok(text.length > 1_000_000);
  const { value } = await withBystander(() => server.sql(text));
  expectSyntax(value, /Statement too large: \d+ tokens .*the limit is 60000/);
});

test("a statement parsed in the worker is stopped by the call's deadline (3024)", async () => {
  // About 50,000 tokens: a parse of about half a second in the worker.
  const chain = Array.from({ length: 6000 }, (_, i) => `WHEN id = ${i} THEN 'v${i}'`).join(' ');
  const res = await fetch(`${server.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tributary-timeout-ms': '50' },
    body: JSON.stringify({ query: `SELECT COUNT(*) FROM pg.t WHERE (CASE ${chain} END) = 'v1'` }),
  });
  const r = (await res.json()) as { type: string; error_code?: number };
  assert.equal(r.type, 'error');
  assert.equal(r.error_code, 3024);
  // The worker was ended and replaced: the next big statement still parses.
  const again = await server.sql(
    `SELECT COUNT(*) AS n FROM pg.t WHERE (CASE ${chain.slice(0, 20_000).replace(/ WHEN[^W]*$/, '')} END) = 'v1'`,
  );
  assert.deepEqual(again, { type: 'table', column_names: ['n'], data: [[1]] });
});
