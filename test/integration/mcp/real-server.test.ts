/**
 * The real server end to end: config, catalog, PostgreSQL and MariaDB sources, the
 * federated engine and the security hooks, driven by the official SDK clients over
 * Streamable HTTP (2025 and 2026) and legacy SSE.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import mysql from 'mysql2/promise';
import { createMariaDatabase, createPgDatabase, MARIADB, mariaExec, pgExec } from '../../helpers/services.js';
import { connect, HTTP_KINDS, jsonContents, resultOf } from './helpers/clients.js';
import { type RealServer, startRealServer } from './helpers/real-server.js';

let pg: { database: string; drop: () => Promise<void> };
let my: { database: string; drop: () => Promise<void> };

const pgParams = () =>
  JSON.stringify({ host: '127.0.0.1', port: 5432, user: 'postgres', password: '', database: pg.database });
const myParams = () =>
  JSON.stringify({ host: '127.0.0.1', port: 3306, user: 'root', password: '', database: my.database });

async function addSources(s: RealServer, token?: string): Promise<void> {
  const sql = (q: string) =>
    (s.sql as (q: string, c?: unknown, t?: string) => ReturnType<RealServer['sql']>)(q, undefined, token);
  assert.equal(
    (await sql(`CREATE DATABASE shop_pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams()}`)).type,
    'ok',
  );
  assert.equal(
    (await sql(`CREATE DATABASE shop_my WITH ENGINE = 'mariadb', PARAMETERS = ${myParams()}`)).type,
    'ok',
  );
}

before(async () => {
  pg = await createPgDatabase('mcp');
  my = await createMariaDatabase('mcp');
  await pgExec(
    pg.database,
    `CREATE TABLE customers (id int PRIMARY KEY, name varchar(40) NOT NULL, vip boolean, meta jsonb, born date);
     INSERT INTO customers VALUES (1, 'Ada', true, '{"tier": 1}', '1990-01-02'), (2, 'Bob', false, NULL, NULL);
     CREATE VIEW vips AS SELECT * FROM customers WHERE vip;
     CREATE TABLE numbers AS SELECT g AS n FROM generate_series(1, 100000) g;`,
  );
  await mariaExec(
    my.database,
    `CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, total DECIMAL(10,2));
     INSERT INTO orders VALUES (1, 1, 5.50), (2, 1, 6.00), (3, 2, 7.00);
     CREATE TABLE numbers (n INT PRIMARY KEY);
     INSERT INTO numbers SELECT seq FROM seq_1_to_100000;`,
  );
});

after(async () => {
  await pg?.drop();
  await my?.drop();
});

describe('real server', () => {
  let s: RealServer;
  before(async () => {
    s = await startRealServer();
    await addSources(s);
  });
  after(async () => {
    await s?.stop();
  });

  test('GET /mcp/status answers with the server version', async () => {
    const res = await fetch(`${s.url}/mcp/status`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok', service: 'tributary-mcp', version: s.deps.version });
  });

  for (const kind of HTTP_KINDS) {
    describe(`over ${kind}`, () => {
      test('discovery: databases, tables, columns, knowledge bases', async () => {
        const c = await connect(kind, s.url);
        try {
          assert.deepEqual(jsonContents(await c.client.readResource({ uri: 'schema://databases' })), [
            'files',
            'shop_my',
            'shop_pg',
          ]);
          // The original fields, unchanged (the added ones: schema-resources.test.ts).
          const pick = (rows: unknown, keys: string[]) =>
            (rows as Record<string, unknown>[]).map((r) => Object.fromEntries(keys.map((k) => [k, r[k]])));
          const TABLE_KEYS = ['TABLE_NAME', 'TABLE_TYPE', 'TABLE_SCHEMA'];
          const COLUMN_KEYS = ['COLUMN_NAME', 'MYSQL_DATA_TYPE'];
          assert.deepEqual(
            pick(
              jsonContents(await c.client.readResource({ uri: 'schema://databases/shop_pg/tables' })),
              TABLE_KEYS,
            ),
            [
              { TABLE_NAME: 'customers', TABLE_TYPE: 'BASE TABLE', TABLE_SCHEMA: 'public' },
              { TABLE_NAME: 'numbers', TABLE_TYPE: 'BASE TABLE', TABLE_SCHEMA: 'public' },
              { TABLE_NAME: 'vips', TABLE_TYPE: 'VIEW', TABLE_SCHEMA: 'public' },
            ],
          );
          const myTables = jsonContents(
            await c.client.readResource({ uri: 'schema://databases/shop_my/tables' }),
          ) as Record<string, string>[];
          assert.deepEqual(
            myTables.map((t) => [t.TABLE_NAME, t.TABLE_SCHEMA]),
            [
              ['numbers', my.database],
              ['orders', my.database],
            ],
          );
          assert.deepEqual(
            pick(
              jsonContents(
                await c.client.readResource({ uri: 'schema://databases/shop_pg/tables/customers/columns' }),
              ),
              COLUMN_KEYS,
            ),
            [
              { COLUMN_NAME: 'id', MYSQL_DATA_TYPE: 'INT' },
              { COLUMN_NAME: 'name', MYSQL_DATA_TYPE: 'VARCHAR' },
              { COLUMN_NAME: 'vip', MYSQL_DATA_TYPE: 'BOOLEAN' },
              { COLUMN_NAME: 'meta', MYSQL_DATA_TYPE: 'JSON' },
              { COLUMN_NAME: 'born', MYSQL_DATA_TYPE: 'DATE' },
            ],
          );
          assert.deepEqual(
            pick(
              jsonContents(
                await c.client.readResource({ uri: 'schema://databases/shop_my/tables/orders/columns' }),
              ),
              COLUMN_KEYS,
            ),
            [
              { COLUMN_NAME: 'id', MYSQL_DATA_TYPE: 'INT' },
              { COLUMN_NAME: 'customer_id', MYSQL_DATA_TYPE: 'INT' },
              { COLUMN_NAME: 'total', MYSQL_DATA_TYPE: 'DECIMAL' },
            ],
          );
          assert.deepEqual(
            jsonContents(await c.client.readResource({ uri: 'schema://knowledge_bases' })),
            [],
          );
          await assert.rejects(c.client.readResource({ uri: 'schema://databases/nosuch/tables' }), /nosuch/);
        } finally {
          await c.terminate();
        }
      });

      test('completions and the prompt', async () => {
        const c = await connect(kind, s.url);
        try {
          const dbs = await c.client.complete({
            ref: { type: 'ref/resource', uri: 'schema://databases/{database_name}/tables' },
            argument: { name: 'database_name', value: 'shop' },
          });
          assert.deepEqual(dbs.completion.values, ['shop_my', 'shop_pg']);
          const tables = await c.client.complete({
            ref: { type: 'ref/prompt', name: 'sample_table' },
            argument: { name: 'table_name', value: 'cu' },
            context: { arguments: { database_name: 'SHOP_PG' } },
          });
          assert.deepEqual(tables.completion.values, ['customers']);
          const p = await c.client.getPrompt({
            name: 'sample_table',
            arguments: { database_name: 'shop_pg', table_name: 'customers' },
          });
          assert.match(p.messages[0].content.text, /SELECT \* FROM `shop_pg`\.`customers` LIMIT 5/);
          // The query the prompt asks for runs as written.
          const sample = await c.client.callTool({
            name: 'query',
            arguments: { query: 'SELECT * FROM `shop_pg`.`customers` LIMIT 5' },
          });
          assert.equal(resultOf(sample).data.length, 2);
        } finally {
          await c.terminate();
        }
      });

      test('tool calls give table, ok and error results', async () => {
        const c = await connect(kind, s.url);
        try {
          const joined = await c.client.callTool({
            name: 'query',
            arguments: {
              query:
                'SELECT c.name, SUM(o.total) AS spent FROM shop_pg.customers c JOIN shop_my.orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY c.name',
            },
          });
          assert.deepEqual(resultOf(joined), {
            type: 'table',
            column_names: ['name', 'spent'],
            data: [
              ['Ada', '11.50'],
              ['Bob', '7.00'],
            ],
          });
          const values = await c.client.callTool({
            name: 'query',
            arguments: {
              query: 'SELECT id, vip, meta, born FROM customers ORDER BY id',
              context: { db: 'shop_pg' },
            },
          });
          assert.deepEqual(resultOf(values).data, [
            [1, 1, { tier: 1 }, '1990-01-02'],
            [2, 0, null, null],
          ]);
          const id = 100 + HTTP_KINDS.indexOf(kind);
          const insert = await c.client.callTool({
            name: 'query',
            arguments: { query: `INSERT INTO shop_my.orders VALUES (${id}, 99, 1.00)` },
          });
          assert.deepEqual(resultOf(insert), { type: 'ok', affected_rows: 1 });
          const unknown = await c.client.callTool({
            name: 'query',
            arguments: { query: 'SELECT * FROM nosuch.t' },
          });
          assert.equal(unknown.isError, true);
          assert.equal(resultOf(unknown).error_code, 1049);
          const noTable = await c.client.callTool({
            name: 'query',
            arguments: { query: 'SELECT * FROM shop_pg.nosuch' },
          });
          assert.equal(resultOf(noTable).error_code, 1146);
        } finally {
          await c.terminate();
        }
      });

      test('a slow cross-source query reports progress', async () => {
        const c = await connect(kind, s.url);
        try {
          const seen: number[] = [];
          const call = await c.client.callTool(
            {
              name: 'query',
              arguments: {
                query: 'SELECT COUNT(*) AS n FROM shop_pg.numbers p JOIN shop_my.numbers m ON p.n = m.n',
              },
            },
            undefined,
            { onprogress: (p: { progress: number }) => seen.push(p.progress) },
          );
          assert.deepEqual(resultOf(call).data, [[100000]]);
          assert.ok(seen.length >= 1);
          for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1], String(seen));
        } finally {
          await c.terminate();
        }
      });

      test('cancelling a call stops the query on MariaDB', async () => {
        const c = await connect(kind, s.url);
        const admin = await mysql.createConnection({ ...MARIADB, database: undefined });
        const marker = `cancel_${randomBytes(4).toString('hex')}`;
        const running = async () => {
          const [rows] = await admin.query(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND INFO NOT LIKE '%PROCESSLIST%'",
            [`%${marker}%`],
          );
          return (rows as unknown[]).length > 0;
        };
        try {
          const ctrl = new AbortController();
          const call = c.client.callTool(
            {
              name: 'query',
              arguments: { query: `SELECT SLEEP(60) AS ${marker} FROM shop_my.orders LIMIT 1` },
            },
            undefined,
            { signal: ctrl.signal, timeout: 120_000 },
          );
          call.catch(() => {});
          for (let i = 0; !(await running()); i++) {
            assert.ok(i < 500, 'the query reached MariaDB');
            await sleep(20);
          }
          ctrl.abort();
          await assert.rejects(call);
          for (let i = 0; await running(); i++) {
            assert.ok(i < 500, 'the query was stopped on MariaDB');
            await sleep(20);
          }
        } finally {
          await admin.end();
          await c.terminate();
        }
      });
    });
  }
});

describe('real server with api.mcp.max_rows and api.mcp.read_only', () => {
  let s: RealServer;
  before(async () => {
    s = await startRealServer({ TRIBUTARY_MCP_MAX_ROWS: '5', TRIBUTARY_MCP_READ_ONLY: 'true' });
    await addSources(s);
  });
  after(async () => {
    await s?.stop();
  });

  for (const kind of HTTP_KINDS) {
    test(`over ${kind}: results are truncated at max_rows and writes refused with 1290`, async () => {
      const c = await connect(kind, s.url);
      try {
        const tools = (await c.client.listTools()).tools;
        assert.equal(tools[0].annotations.readOnlyHint, true);
        assert.equal(tools[0].annotations.destructiveHint, false);
        const big = resultOf(
          await c.client.callTool({
            name: 'query',
            arguments: { query: 'SELECT n FROM shop_pg.numbers ORDER BY n' },
          }),
        );
        assert.deepEqual(big, {
          type: 'table',
          column_names: ['n'],
          truncated: true,
          rows_returned: 5,
          rows_available: big.rows_available,
          handle: big.handle,
          next: `SELECT * FROM result('${big.handle}') LIMIT 5 OFFSET 5`,
          hint: big.hint,
          data: [[1], [2], [3], [4], [5]],
        });
        assert.ok(big.rows_available > 5);
        const small = resultOf(
          await c.client.callTool({
            name: 'query',
            arguments: { query: 'SELECT n FROM shop_pg.numbers ORDER BY n LIMIT 5' },
          }),
        );
        assert.equal('truncated' in small, false);
        for (const write of [
          'INSERT INTO shop_my.orders VALUES (999, 1, 1.00)',
          'DELETE FROM shop_my.orders',
          'DROP DATABASE shop_pg',
          `CREATE DATABASE x WITH ENGINE = 'postgres', PARAMETERS = ${pgParams()}`,
        ]) {
          const call = await c.client.callTool({ name: 'query', arguments: { query: write } });
          assert.equal(call.isError, true, write);
          assert.equal(resultOf(call).error_code, 1290, write);
        }
        const count = resultOf(
          await c.client.callTool({
            name: 'query',
            arguments: { query: 'SELECT COUNT(*) AS n FROM shop_my.orders' },
          }),
        );
        assert.ok(Number(count.data[0][0]) >= 3);
      } finally {
        await c.terminate();
      }
    });
  }
});

describe('real server with token auth', () => {
  let s: RealServer;
  let token: string;
  before(async () => {
    s = await startRealServer({ TRIBUTARY_USERNAME: 'admin', TRIBUTARY_PASSWORD: 'correct horse battery' });
    const res = await fetch(`${s.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'correct horse battery' }),
    });
    token = ((await res.json()) as { token: string }).token;
    await addSources(s, token);
  });
  after(async () => {
    await s?.stop();
  });

  test('/mcp/status stays public; the MCP endpoints need the token', async () => {
    assert.equal((await fetch(`${s.url}/mcp/status`)).status, 200);
    for (const [method, path] of [
      ['POST', '/mcp/streamable'],
      ['GET', '/mcp/sse'],
      ['POST', '/mcp/messages?session_id=x'],
    ]) {
      const res = await fetch(`${s.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: method === 'POST' ? '{}' : undefined,
      });
      assert.equal(res.status, 401, `${method} ${path}`);
    }
  });

  for (const kind of HTTP_KINDS) {
    test(`over ${kind}: a client with the token queries; without it cannot connect`, async () => {
      await assert.rejects(connect(kind, s.url));
      const c = await connect(kind, s.url, { authorization: `Bearer ${token}` });
      try {
        const r = await c.client.callTool({
          name: 'query',
          arguments: { query: 'SELECT COUNT(*) AS n FROM shop_pg.customers' },
        });
        assert.deepEqual(resultOf(r).data, [[2]]);
      } finally {
        await c.terminate();
      }
    });
  }

  test('a browser Origin that is not allowed gets 403 on MCP endpoints', async () => {
    const res = await fetch(`${s.url}/mcp/streamable`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'http://evil.example.com',
        authorization: `Bearer ${token}`,
      },
      body: '{}',
    });
    assert.equal(res.status, 403);
  });
});
