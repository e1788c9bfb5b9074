/**
 * The MCP capabilities (SPEC §4) as official SDK clients see them, over each HTTP way in:
 * Streamable HTTP 2025 sessions, legacy SSE and Streamable HTTP 2026-07-28 (stateless).
 * Answers come from a real MariaDB.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type McpTestApp, startMcpApp } from './helpers/app.js';
import { type Connected, connect, HTTP_KINDS, jsonContents, resultOf } from './helpers/clients.js';
import { createShopDatabase } from './helpers/fixture.js';
import { MariaEngine } from './helpers/maria-engine.js';

let db: { database: string; drop: () => Promise<void> };
let app: McpTestApp;

before(async () => {
  db = await createShopDatabase();
  app = await startMcpApp(new MariaEngine([db.database]));
});

after(async () => {
  await app?.close();
  await db?.drop();
});

for (const kind of HTTP_KINDS) {
  describe(`MCP capabilities over ${kind}`, () => {
    let c: Connected;
    before(async () => {
      c = await connect(kind, app.url);
    });
    after(async () => {
      await c?.terminate();
    });

    test('server is named tributary and its instructions give the discovery workflow', () => {
      assert.equal(c.client.getServerVersion()?.name, 'tributary');
      assert.equal(c.client.getServerVersion()?.version, '0.0.0-test');
      const ins = c.client.getInstructions() ?? '';
      const order = ['schema://databases', '/tables', '/columns', '`query`'].map((s) => ins.indexOf(s));
      assert.ok(
        order.every((i) => i >= 0),
        ins,
      );
      assert.deepEqual(
        [...order].sort((a, b) => a - b),
        order,
        'workflow steps in order',
      );
    });

    test('tools/list has the query tool with input and output schemas and write annotations', async () => {
      const { tools } = await c.client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['query'],
      );
      const q = tools[0];
      assert.ok(q.description.length > 50);
      assert.equal(q.inputSchema.type, 'object');
      assert.deepEqual(q.inputSchema.required, ['query']);
      assert.equal(q.inputSchema.properties.query.type, 'string');
      assert.equal(q.inputSchema.properties.context.type, 'object');
      assert.equal(q.inputSchema.properties.context.properties.db.type, 'string');
      assert.equal(q.outputSchema.type, 'object');
      assert.deepEqual(q.outputSchema.required, ['result']);
      assert.equal(q.outputSchema.properties.result.oneOf.length, 3);
      assert.equal(q.annotations.readOnlyHint, false);
      assert.equal(q.annotations.destructiveHint, true);
      assert.equal(q.annotations.openWorldHint, true);
    });

    test('resources and templates are listed with exact URIs, JSON type and a description on each', async () => {
      const { resources } = await c.client.listResources();
      const uris = resources.map((r) => r.uri);
      assert.ok(uris.includes('schema://databases'));
      assert.ok(uris.includes('schema://knowledge_bases'));
      const { resourceTemplates } = await c.client.listResourceTemplates();
      assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), [
        'schema://databases/{database_name}/tables',
        'schema://databases/{database_name}/tables/{table_name}/columns',
      ]);
      for (const item of [...resources, ...resourceTemplates]) {
        assert.equal(item.mimeType, 'application/json', JSON.stringify(item));
        assert.ok(typeof item.description === 'string' && item.description.length > 10, JSON.stringify(item));
      }
    });

    test('schema://databases lists the data sources', async () => {
      assert.deepEqual(jsonContents(await c.client.readResource({ uri: 'schema://databases' })), [
        db.database,
      ]);
    });

    test('the tables template lists tables and views with their type and schema', async () => {
      const tables = jsonContents(
        await c.client.readResource({ uri: `schema://databases/${db.database}/tables` }),
      ) as Record<string, string>[];
      // Tables made by the write tests of other transports are not part of the fixture.
      assert.deepEqual(
        // The original fields, unchanged (TABLE_ROWS and TABLE_COMMENT are checked in schema-resources.test.ts).
        tables
          .filter((t) => !t.TABLE_NAME.startsWith('t_'))
          .map(({ TABLE_NAME, TABLE_TYPE, TABLE_SCHEMA }) => ({ TABLE_NAME, TABLE_TYPE, TABLE_SCHEMA })),
        [
          { TABLE_NAME: 'big_orders', TABLE_TYPE: 'VIEW', TABLE_SCHEMA: db.database },
          { TABLE_NAME: 'customers', TABLE_TYPE: 'BASE TABLE', TABLE_SCHEMA: db.database },
          { TABLE_NAME: 'numbers', TABLE_TYPE: 'BASE TABLE', TABLE_SCHEMA: db.database },
          { TABLE_NAME: 'orders', TABLE_TYPE: 'BASE TABLE', TABLE_SCHEMA: db.database },
        ],
      );
    });

    test('the columns template gives column names and MySQL types', async () => {
      const cols = jsonContents(
        await c.client.readResource({ uri: `schema://databases/${db.database}/tables/orders/columns` }),
      ) as Record<string, string>[];
      assert.deepEqual(
        cols.map(({ COLUMN_NAME, MYSQL_DATA_TYPE }) => ({ COLUMN_NAME, MYSQL_DATA_TYPE })),
        [
          { COLUMN_NAME: 'id', MYSQL_DATA_TYPE: 'BIGINT' },
          { COLUMN_NAME: 'customer_id', MYSQL_DATA_TYPE: 'INT' },
          { COLUMN_NAME: 'amount', MYSQL_DATA_TYPE: 'DECIMAL' },
          { COLUMN_NAME: 'placed', MYSQL_DATA_TYPE: 'DATE' },
          { COLUMN_NAME: 'placed_at', MYSQL_DATA_TYPE: 'DATETIME' },
          { COLUMN_NAME: 'note', MYSQL_DATA_TYPE: 'TEXT' },
        ],
      );
    });

    test('schema://knowledge_bases is an empty list while there are none', async () => {
      assert.deepEqual(jsonContents(await c.client.readResource({ uri: 'schema://knowledge_bases' })), []);
    });

    test('reading tables of an unknown source fails naming it', async () => {
      await assert.rejects(
        c.client.readResource({ uri: 'schema://databases/nosuch_source/tables' }),
        (e: Error) => /nosuch_source/.test(e.message),
      );
      await assert.rejects(
        c.client.readResource({ uri: `schema://databases/${db.database}/tables/nosuch_table/columns` }),
        (e: Error) => /nosuch_table/.test(e.message),
      );
    });

    test('database_name and table_name complete in both templates', async () => {
      const prefix = db.database.slice(0, 6);
      const dbs = await c.client.complete({
        ref: { type: 'ref/resource', uri: 'schema://databases/{database_name}/tables' },
        argument: { name: 'database_name', value: prefix },
      });
      assert.deepEqual(dbs.completion.values, [db.database]);
      const none = await c.client.complete({
        ref: { type: 'ref/resource', uri: 'schema://databases/{database_name}/tables' },
        argument: { name: 'database_name', value: 'zzz' },
      });
      assert.deepEqual(none.completion.values, []);
      const tables = await c.client.complete({
        ref: { type: 'ref/resource', uri: 'schema://databases/{database_name}/tables/{table_name}/columns' },
        argument: { name: 'table_name', value: 'C' },
        context: { arguments: { database_name: db.database } },
      });
      assert.deepEqual(tables.completion.values, ['customers']);
      const noDb = await c.client.complete({
        ref: { type: 'ref/resource', uri: 'schema://databases/{database_name}/tables/{table_name}/columns' },
        argument: { name: 'table_name', value: '' },
      });
      assert.deepEqual(noDb.completion.values, []);
    });

    test('prompt arguments complete too', async () => {
      const tables = await c.client.complete({
        ref: { type: 'ref/prompt', name: 'sample_table' },
        argument: { name: 'table_name', value: 'o' },
        context: { arguments: { database_name: db.database } },
      });
      assert.deepEqual(tables.completion.values, ['orders']);
      const dbs = await c.client.complete({
        ref: { type: 'ref/prompt', name: 'sample_table' },
        argument: { name: 'database_name', value: '' },
      });
      assert.deepEqual(dbs.completion.values, [db.database]);
    });

    test('sample_table takes two required arguments and asks for a 5-row query in plain text', async () => {
      const { prompts } = await c.client.listPrompts();
      assert.deepEqual(
        prompts.map((p) => p.name),
        ['sample_table'],
      );
      assert.deepEqual(
        prompts[0].arguments.map((a: any) => [a.name, a.required]),
        [
          ['database_name', true],
          ['table_name', true],
        ],
      );
      const p = await c.client.getPrompt({
        name: 'sample_table',
        arguments: { database_name: db.database, table_name: 'customers' },
      });
      assert.equal(p.messages.length, 1);
      assert.equal(p.messages[0].role, 'user');
      assert.equal(p.messages[0].content.type, 'text');
      const text: string = p.messages[0].content.text;
      assert.ok(text.includes(`SELECT * FROM \`${db.database}\`.\`customers\` LIMIT 5`), text);
      assert.ok(text.includes('`query`'));
      assert.match(text, /structure/);
      await assert.rejects(
        c.client.getPrompt({ name: 'sample_table', arguments: { database_name: db.database } }),
      );
    });

    test('a SELECT returns a table result in structuredContent and as text, without truncated', async () => {
      const call = await c.client.callTool({
        name: 'query',
        arguments: { query: `SELECT id, name, email, vip FROM ${db.database}.customers ORDER BY id` },
      });
      assert.notEqual(call.isError, true);
      assert.deepEqual(resultOf(call), {
        type: 'table',
        column_names: ['id', 'name', 'email', 'vip'],
        data: [
          [1, 'Ada', 'ada@example.com', 1],
          [2, 'Bob', 'bob@example.com', 0],
          [3, 'Cy', null, 0],
        ],
      });
      assert.equal(call.content.length, 1);
    });

    test('a write returns an ok result with affected rows', async () => {
      const table = `t_${kind}`;
      const created = await c.client.callTool({
        name: 'query',
        arguments: { query: `CREATE TABLE ${db.database}.${table} (id INT)` },
      });
      assert.equal(resultOf(created).type, 'ok');
      const call = await c.client.callTool({
        name: 'query',
        arguments: { query: `INSERT INTO ${db.database}.${table} VALUES (1), (2)` },
      });
      assert.deepEqual(resultOf(call), { type: 'ok', affected_rows: 2 });
      assert.notEqual(call.isError, true);
    });

    test('a failing statement is an error result flagged isError', async () => {
      const call = await c.client.callTool({ name: 'query', arguments: { query: 'SELEC 1' } });
      assert.equal(call.isError, true);
      const r = resultOf(call);
      assert.equal(r.type, 'error');
      assert.equal(r.error_code, 1064);
      assert.match(r.error_message, /syntax/);
    });

    test('a call without the query argument is refused as a tool error', async () => {
      const call = await c.client.callTool({ name: 'query', arguments: {} }).catch((e: Error) => ({
        isError: true,
        content: [{ type: 'text', text: e.message }],
      }));
      assert.equal(call.isError, true);
      assert.match(call.content[0].text, /query/);
    });

    test('context.db is the default database for unqualified tables', async () => {
      const call = await c.client.callTool({
        name: 'query',
        arguments: { query: 'SELECT COUNT(*) AS n FROM customers', context: { db: db.database } },
      });
      assert.deepEqual(resultOf(call).data, [[3]]);
    });

    if (kind !== 'modern') {
      test('USE sets the default database for later calls of the same session', async () => {
        const use = await c.client.callTool({ name: 'query', arguments: { query: `USE ${db.database}` } });
        assert.equal(resultOf(use).type, 'ok');
        const call = await c.client.callTool({
          name: 'query',
          arguments: { query: 'SELECT MAX(id) AS m FROM orders' },
        });
        assert.deepEqual(resultOf(call).data, [[12]]);
      });
    }
  });
}

describe('truncation at api.mcp.max_rows', () => {
  let small: McpTestApp;
  let c: Connected;
  before(async () => {
    small = await startMcpApp(new MariaEngine([db.database]), { mcp: { max_rows: 3 } });
    c = await connect('streamable', small.url);
  });
  after(async () => {
    await c?.terminate();
    await small?.close();
  });

  test('rows beyond max_rows are cut and the result says truncated: true', async () => {
    const r = resultOf(
      await c.client.callTool({
        name: 'query',
        arguments: { query: `SELECT n FROM ${db.database}.numbers ORDER BY n` },
      }),
    );
    // This engine keeps no rest (no keepRest): the answer says so, without a handle.
    assert.deepEqual(r, {
      type: 'table',
      column_names: ['n'],
      truncated: true,
      rows_returned: 3,
      more_than: 3,
      hint: r.hint,
      data: [[1], [2], [3]],
    });
    assert.match(r.hint, /no more can be paged/);
    assert.equal((small.deps.engine as MariaEngine).seen.at(-1)?.opts.maxRows, 3);
  });

  test('a result within max_rows has no truncated key', async () => {
    const r = resultOf(
      await c.client.callTool({
        name: 'query',
        arguments: { query: `SELECT n FROM ${db.database}.numbers ORDER BY n LIMIT 3` },
      }),
    );
    assert.equal(r.data.length, 3);
    assert.equal('truncated' in r, false);
  });
});

describe('read-only mode (api.mcp.read_only)', () => {
  let ro: McpTestApp;
  before(async () => {
    ro = await startMcpApp(new MariaEngine([db.database]), { mcp: { read_only: true } });
  });
  after(async () => {
    await ro?.close();
  });

  for (const kind of HTTP_KINDS) {
    test(`over ${kind}: annotations say read-only and writes are refused with 1290`, async () => {
      const c = await connect(kind, ro.url);
      try {
        const { tools } = await c.client.listTools();
        assert.equal(tools[0].annotations.readOnlyHint, true);
        assert.equal(tools[0].annotations.destructiveHint, false);
        assert.equal(tools[0].annotations.openWorldHint, true);
        assert.match(c.client.getInstructions() ?? '', /read-only/);
        const write = await c.client.callTool({
          name: 'query',
          arguments: { query: `DELETE FROM ${db.database}.customers` },
        });
        assert.equal(write.isError, true);
        assert.equal(resultOf(write).error_code, 1290);
        const read = await c.client.callTool({
          name: 'query',
          arguments: { query: `SELECT COUNT(*) AS n FROM ${db.database}.customers` },
        });
        assert.deepEqual(resultOf(read).data, [[3]]);
        assert.equal((ro.deps.engine as MariaEngine).seen.at(-1)?.opts.readOnly, true);
      } finally {
        await c.terminate();
      }
    });
  }
});

describe('tool call logs', () => {
  test('each call is logged with sources, duration, rows and outcome, never with literals', async () => {
    const c = await connect('streamable', app.url);
    try {
      await c.client.callTool({
        name: 'query',
        arguments: {
          query: `SELECT c.name FROM ${db.database}.customers c WHERE c.email = 'ada@example.com' AND c.id > 0 /* 'x' */`,
        },
      });
      await c.client.callTool({ name: 'query', arguments: { query: "SELECT 'hunter2' FROM nosuch_db.t" } });
    } finally {
      await c.terminate();
    }
    const calls = app.lines.filter((l) => l.msg === 'mcp tool call');
    const ok = calls.find((l) => String(l.statement).includes('c.email'));
    assert.ok(ok, JSON.stringify(calls));
    assert.equal(
      ok.statement,
      `SELECT c.name FROM ${db.database}.customers c WHERE c.email = ? AND c.id > ?`,
    );
    assert.deepEqual(ok.sources, [db.database]);
    assert.equal(ok.rows, 1);
    assert.equal(ok.outcome, 'ok');
    assert.equal(ok.kind, 'SELECT');
    assert.equal(typeof ok.duration_ms, 'number');
    const failed = calls.find((l) => l.outcome === 'error');
    assert.ok(failed);
    assert.equal(typeof failed.error_code, 'number');
    const everything = JSON.stringify(app.lines);
    assert.ok(!everything.includes('ada@example.com'));
    assert.ok(!everything.includes('hunter2'));
  });
});
