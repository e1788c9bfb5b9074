/**
 * Result handles (docs/reference/mcp.md#truncated-results-and-result-handles): a long MCP
 * answer is cut at the byte budget, says so, and its handle paged to the end gives exactly
 * the rows POST /api/sql/query gives; the handle belongs to the token that made it; it
 * expires; the handles' memory stays within its bound. Real server, real PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createPgDatabase, pgExec } from '../../helpers/services.js';
import { type Connected, connect, type HttpKind } from './helpers/clients.js';

const ROWS = 25_000;
const BUDGET = 262_144;
const USER = 'pager';
const PASSWORD = 'pw-handles-0123456789';
const QUERY = 'SELECT id, name, amount, day FROM pg.big ORDER BY id';

let db: { database: string; drop: () => Promise<void> };

before(async () => {
  db = await createPgDatabase('handles');
  await pgExec(
    db.database,
    `CREATE TABLE big AS SELECT g AS id, 'name ' || g || CASE WHEN g % 7 = 0 THEN ' é' ELSE '' END AS name,
       (g * 1.25)::numeric(12,2) AS amount, DATE '2024-01-01' + (g % 365) AS day
     FROM generate_series(1, ${ROWS}) g`,
  );
});

after(async () => {
  await db?.drop();
});

interface Answer {
  result: Record<string, any>;
  bytes: number;
  isError: boolean;
}

async function call(c: Connected, query: string): Promise<Answer> {
  const r = await c.client.callTool({ name: 'query', arguments: { query } });
  const text = r.content[0].text as string;
  assert.deepEqual(r.structuredContent, { result: JSON.parse(text) });
  return { result: JSON.parse(text), bytes: Buffer.byteLength(text), isError: r.isError === true };
}

async function login(url: string): Promise<string> {
  const res = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: USER, password: PASSWORD }),
  });
  return ((await res.json()) as { token: string }).token;
}

describe('with token auth and the default budget', () => {
  let server: TestServer;
  let tokenA = '';
  let tokenB = '';
  const clients: Connected[] = [];
  const as = async (kind: HttpKind, token: string) => {
    const c = await connect(kind, server.url, { authorization: `Bearer ${token}` });
    clients.push(c);
    return c;
  };

  before(async () => {
    server = await startTestServer({ TRIBUTARY_USERNAME: USER, TRIBUTARY_PASSWORD: PASSWORD });
    tokenA = await login(server.url);
    tokenB = await login(server.url);
    const res = await fetch(`${server.url}/api/sql/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenA}` },
      body: JSON.stringify({
        query: `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(db.database)}`,
      }),
    });
    assert.equal(((await res.json()) as { type: string }).type, 'ok');
  });

  after(async () => {
    for (const c of clients) await c.terminate().catch(() => {});
    await server?.stop();
  });

  for (const kind of ['streamable', 'sse'] as const) {
    test(`over ${kind}: cut at the byte budget, and the handle paged to the end gives exactly the HTTP rows`, async () => {
      const res = await fetch(`${server.url}/api/sql/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenA}` },
        body: JSON.stringify({ query: QUERY }),
      });
      const whole = (await res.json()) as { column_names: string[]; data: unknown[][] };
      assert.equal(whole.data.length, ROWS);

      const c = await as(kind, tokenA);
      const first = await call(c, QUERY);
      const r = first.result;
      assert.ok(first.bytes <= BUDGET, `${first.bytes} bytes`);
      assert.ok(first.bytes > BUDGET - 1000, `${first.bytes} bytes: the budget is used, not wasted`);
      assert.deepEqual(Object.keys(r), [
        'type',
        'column_names',
        'truncated',
        'rows_returned',
        'rows_available',
        'handle',
        'next',
        'hint',
        'data',
      ]);
      assert.equal(r.truncated, true);
      assert.equal(r.rows_available, ROWS);
      assert.equal(r.rows_returned, r.data.length);
      assert.ok(r.data.length > 1000 && r.data.length < 10_000, `${r.data.length} rows`);
      assert.match(r.handle, /^r_[\w-]{16}$/);
      assert.equal(r.next, `SELECT * FROM result('${r.handle}') LIMIT 100 OFFSET ${r.data.length}`);
      assert.match(r.hint, /narrow the question/);
      assert.deepEqual(r.column_names, whole.column_names);

      // Page on in big steps: each page is cut at the budget again and says where to go on.
      const rows = [...r.data];
      let pages = 0;
      while (rows.length < ROWS) {
        const p = await call(c, `SELECT * FROM result('${r.handle}') LIMIT 20000 OFFSET ${rows.length}`);
        assert.ok(p.bytes <= BUDGET, `${p.bytes} bytes`);
        assert.equal(p.isError, false);
        assert.ok(p.result.data.length > 0);
        rows.push(...p.result.data);
        if (rows.length < ROWS) {
          assert.equal(p.result.truncated, true);
          assert.match(p.result.next, new RegExp(`OFFSET ${rows.length}$`));
        } else assert.equal('truncated' in p.result, false);
        pages++;
      }
      assert.ok(pages >= 3, `${pages} pages`);
      assert.deepEqual(rows, whole.data);

      // The suggested next page, LIMIT m, n, and a page past the end.
      const next = await call(c, r.next);
      assert.deepEqual(next.result, {
        type: 'table',
        column_names: whole.column_names,
        data: whole.data.slice(r.data.length, r.data.length + 100),
      });
      const mysqlForm = await call(c, `SELECT * FROM result('${r.handle}') LIMIT 24998, 10`);
      assert.deepEqual(mysqlForm.result.data, whole.data.slice(24998));
      const past = await call(c, `SELECT * FROM result('${r.handle}') LIMIT 10 OFFSET 30000`);
      assert.deepEqual(past.result.data, []);
    });
  }

  test('another token of the same user, over any transport, cannot read the handle', async () => {
    const a = await as('streamable', tokenA);
    const { handle } = (await call(a, QUERY)).result;
    const page = `SELECT * FROM result('${handle}') LIMIT 5`;
    assert.equal((await call(a, page)).result.data.length, 5);
    for (const kind of ['streamable', 'sse', 'modern'] as const) {
      const b = await as(kind, tokenB);
      const refused = await call(b, page);
      assert.equal(refused.isError, true);
      assert.equal(refused.result.error_code, 1146);
      assert.equal(
        refused.result.error_message,
        `Unknown or expired result handle '${handle}': run the original query again`,
      );
    }
    // ...while its owner still reads it.
    assert.equal((await call(a, page)).result.data.length, 5);
  });

  test('a handle is read only as SELECT * ... LIMIT ... OFFSET; anything else is 1064', async () => {
    const a = await as('streamable', tokenA);
    const { handle } = (await call(a, QUERY)).result;
    const bad = await call(a, `SELECT id FROM result('${handle}') WHERE id > 3`);
    assert.equal(bad.result.error_code, 1064);
    assert.match(bad.result.error_message, /run the original query again/);
  });
});

describe('without auth, a short time to live and a small memory', () => {
  let server: TestServer;
  let c: Connected;
  const MEMORY = 400_000;

  before(async () => {
    server = await startTestServer({
      TRIBUTARY_MCP_MAX_RESULT_BYTES: '20000',
      TRIBUTARY_MCP_RESULT_HANDLES_MAX_BYTES: String(MEMORY),
      TRIBUTARY_MCP_RESULT_HANDLES_TTL_MS: '1500',
    });
    const ok = await server.sql(
      `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(db.database)}`,
    );
    assert.equal(ok.type, 'ok');
    c = await connect('streamable', server.url);
  });

  after(async () => {
    await c?.terminate().catch(() => {});
    await server?.stop();
  });

  test('a result larger than a handle may hold: its first rows, "more_than", and the end says so', async () => {
    const first = (await call(c, QUERY)).result;
    assert.ok(first.rows_returned > 100);
    assert.equal(first.rows_available, undefined);
    const held = first.more_than as number;
    assert.ok(held > first.rows_returned && held < ROWS, `${held} rows held`);
    const handles = server.deps.resultHandles!;
    const used = await handles.usedBytes();
    assert.ok(used <= MEMORY / 4, `${used} bytes held`);
    const last = (await call(c, `SELECT * FROM result('${first.handle}') LIMIT 100 OFFSET ${held - 10}`))
      .result;
    assert.equal(last.data.length, 10);
    assert.equal(last.data[9][0], held);
    assert.equal(last.truncated, true);
    assert.equal(last.more_than, held);
    assert.equal(last.next, undefined);
    assert.match(last.hint, /no more can be paged/);
    // More handles than fit: the memory bound holds, the oldest go first.
    for (let i = 0; i < 8; i++) {
      await call(c, `${QUERY} LIMIT ${5000 + i}`);
      const now = await handles.usedBytes();
      assert.ok(now <= MEMORY, `${now} bytes held`);
    }
    const evicted = await call(c, `SELECT * FROM result('${first.handle}') LIMIT 1`);
    assert.equal(evicted.result.error_code, 1146);
  });

  test('a handle not used for its time to live is gone', async () => {
    const { handle } = (await call(c, QUERY)).result;
    const page = `SELECT * FROM result('${handle}') LIMIT 1`;
    await sleep(1000);
    assert.equal((await call(c, page)).result.data.length, 1);
    await sleep(1000);
    assert.equal((await call(c, page)).result.data.length, 1, 'each use starts its time again');
    await sleep(1700);
    const gone = await call(c, page);
    assert.equal(gone.result.error_code, 1146);
    assert.match(gone.result.error_message, /Unknown or expired result handle/);
  });
});
