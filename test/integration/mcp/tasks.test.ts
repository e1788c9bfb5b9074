/**
 * Long statements as MCP tasks (issue 33, item 2; MCP 2025-11-25 tasks utility): a client
 * that uses tasks gets a task at once, polls it, reads the same result a plain call gets
 * (truncation and handles included) or cancels it, which stops the statement on MariaDB.
 * Official v1 SDK client (its experimental task client) over Streamable HTTP and stdio;
 * a 2026-07-28 client sees no task vocabulary; plain calls are unchanged.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import mysql from 'mysql2/promise';
import { createMariaDatabase, MARIADB, mariaExec } from '../../helpers/services.js';
import { type McpTestApp, startMcpApp } from './helpers/app.js';
import { connect, resultOf } from './helpers/clients.js';
import { createShopDatabase } from './helpers/fixture.js';
import { MariaEngine } from './helpers/maria-engine.js';
import { type RealServer, startRealServer } from './helpers/real-server.js';
import { running, until } from './helpers/watch.js';

const SERVER = fileURLToPath(new URL('./helpers/stdio-server.ts', import.meta.url));

let db: { database: string; drop: () => Promise<void> };
let app: McpTestApp;
let admin: mysql.Connection;

before(async () => {
  db = await createShopDatabase();
  app = await startMcpApp(new MariaEngine([db.database]), { mcp: { max_rows: 100 } });
  admin = await mysql.createConnection({ ...MARIADB, database: undefined });
});

after(async () => {
  await admin?.end();
  await app?.close();
  await db?.drop();
});

const TASKS_CAPS = { tasks: { requests: { tools: { call: {} } } } };

async function open(kind: 'streamable' | 'stdio'): Promise<Client> {
  const client = new Client({ name: 'tasks-test', version: '1' }, { capabilities: TASKS_CAPS as never });
  await client.connect(
    kind === 'stdio'
      ? new StdioClientTransport({
          command: process.execPath,
          args: ['--import', 'tsx', SERVER],
          env: { ...(process.env as Record<string, string>), MCP_TEST_DATABASES: db.database },
          stderr: 'ignore',
        })
      : new StreamableHTTPClientTransport(new URL(`${app.url}/mcp/streamable`)),
  );
  return client;
}

async function startTask(client: Client, query: string): Promise<string> {
  const created = await client.request(
    { method: 'tools/call', params: { name: 'query', arguments: { query }, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  assert.equal(created.task.status, 'working');
  assert.ok(created.task.pollInterval! > 0);
  return created.task.taskId;
}

for (const kind of ['streamable', 'stdio'] as const) {
  describe(`query as a task over ${kind} (2025-11-25)`, () => {
    let client: Client;
    before(async () => {
      client = await open(kind);
    });
    after(async () => {
      await client?.close();
    });

    test('the server offers tasks for tools/call and query says taskSupport optional', async () => {
      const caps = client.getServerCapabilities() as Record<string, any>;
      assert.deepEqual(caps.tasks?.requests?.tools?.call, {});
      assert.ok(caps.tasks?.cancel, 'tasks/cancel offered');
      const { tools } = await client.listTools();
      assert.equal(tools.find((t) => t.name === 'query')?.execution?.taskSupport, 'optional');
    });

    test('a slow statement becomes a task: polled to completed, its result read', async () => {
      const marker = `task_${randomBytes(4).toString('hex')}`;
      const messages: string[] = [];
      let result: any;
      for await (const m of client.experimental.tasks.callToolStream(
        { name: 'query', arguments: { query: `SELECT SLEEP(1) AS ${marker}` } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      )) {
        messages.push(m.type === 'taskStatus' ? `status:${m.task.status}` : m.type);
        if (m.type === 'result') result = m.result;
        if (m.type === 'error') assert.fail(String(m.error));
      }
      assert.equal(messages[0], 'taskCreated');
      assert.equal(messages.at(-1), 'result');
      assert.deepEqual(resultOf(result), { type: 'table', column_names: [marker], data: [[0]] });
    });

    test('tasks/get reports working, then completed; tasks/result gives the same answer as a plain call', async () => {
      const query = `SELECT n FROM ${db.database}.numbers ORDER BY n`;
      const id = await startTask(client, query);
      const seen = await client.experimental.tasks.getTask(id);
      assert.ok(['working', 'completed'].includes(seen.status));
      const viaTask = await client.experimental.tasks.getTaskResult(id, CallToolResultSchema);
      assert.equal((await client.experimental.tasks.getTask(id)).status, 'completed');
      const plain = await client.callTool({ name: 'query', arguments: { query } });
      const a = resultOf(viaTask);
      const b = resultOf(plain);
      // The same answer as a plain call: cut the same way (HTTP app: max_rows 100), the same fields.
      assert.deepEqual(Object.keys(a), Object.keys(b));
      assert.equal(a.truncated, b.truncated);
      assert.equal(a.rows_returned, b.rows_returned);
      assert.deepEqual(a.data, b.data);
      if (kind === 'streamable') assert.equal(a.truncated, true);
      const listed = await client.experimental.tasks.listTasks();
      assert.ok(listed.tasks.some((t) => t.taskId === id));
    });

    test('tasks/cancel stops the statement on the database', async () => {
      const marker = `taskcancel_${randomBytes(4).toString('hex')}`;
      const id = await startTask(client, `SELECT SLEEP(60) AS ${marker}`);
      await until('the statement to run on MariaDB', () => running(admin, marker));
      const cancelled = await client.experimental.tasks.cancelTask(id);
      assert.equal(cancelled.status, 'cancelled');
      await until('the statement to be gone from PROCESSLIST', async () => !(await running(admin, marker)));
      assert.equal((await client.experimental.tasks.getTask(id)).status, 'cancelled');
      // A finished task cannot be cancelled again; an unknown one is named.
      await assert.rejects(client.experimental.tasks.cancelTask(id), /already cancelled/);
      await assert.rejects(client.experimental.tasks.getTask('t_nope'), /Task 't_nope' not found/);
    });

    test('a failing statement ends as a failed task whose result carries the error', async () => {
      const id = await startTask(client, 'SELECT * FROM nowhere.nothing');
      const r = await client.experimental.tasks.getTaskResult(id, CallToolResultSchema);
      assert.equal(r.isError, true);
      assert.equal((await client.experimental.tasks.getTask(id)).status, 'failed');
    });
  });
}

test('a 2026-07-28 client sees no task vocabulary; its calls stay plain', async () => {
  const c = await connect('modern', app.url);
  try {
    const { tools } = await c.client.listTools();
    assert.equal(tools.find((t) => t.name === 'query')?.execution, undefined);
    const r = await c.client.callTool({ name: 'query', arguments: { query: 'SELECT 1 AS one' } });
    assert.deepEqual(resultOf(r).data, [[1]]);
  } finally {
    await c.terminate();
  }
});

describe('query as a task on the real server (MariaDB source)', () => {
  let server: RealServer;
  let data: { database: string; drop: () => Promise<void> };
  let client: Client;
  before(async () => {
    data = await createMariaDatabase('i33_mcp_tasks');
    await mariaExec(data.database, 'CREATE TABLE one (id INT); INSERT INTO one VALUES (1)');
    server = await startRealServer();
    const params = JSON.stringify({
      host: '127.0.0.1',
      port: 3306,
      user: 'root',
      password: '',
      database: data.database,
    });
    const r = await server.sql(`CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = ${params}`);
    assert.equal(r.type, 'ok', JSON.stringify(r));
    client = new Client({ name: 'tasks-real', version: '1' }, { capabilities: TASKS_CAPS as never });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/streamable`)));
  });
  after(async () => {
    await client?.close();
    await server?.stop();
    await data?.drop();
  });

  const inProcesslist = async (marker: string): Promise<boolean> => {
    const r = await server.sql('SHOW FULL PROCESSLIST');
    assert.equal(r.type, 'table');
    return JSON.stringify(r.type === 'table' ? r.data : []).includes(marker);
  };

  test('SELECT SLEEP(2) as a task is working, then completed with its rows', async () => {
    const id = await startTask(client, 'SELECT SLEEP(2) AS slept FROM my.one');
    assert.equal((await client.experimental.tasks.getTask(id)).status, 'working');
    const r = await client.experimental.tasks.getTaskResult(id, CallToolResultSchema);
    assert.deepEqual(resultOf(r).data, [[0]], JSON.stringify(resultOf(r)));
    assert.equal((await client.experimental.tasks.getTask(id)).status, 'completed');
  });

  test('tasks/cancel: the statement is gone from SHOW PROCESSLIST and from MariaDB', async () => {
    const marker = `m_${randomBytes(4).toString('hex')}`;
    const id = await startTask(client, `SELECT SLEEP(60) AS ${marker} FROM my.one`);
    await until('the statement in SHOW PROCESSLIST', () => inProcesslist(marker));
    await until('the statement on MariaDB', () => running(admin, marker));
    assert.equal((await client.experimental.tasks.cancelTask(id)).status, 'cancelled');
    await until('the statement to leave SHOW PROCESSLIST', async () => !(await inProcesslist(marker)));
    await until('the statement to stop on MariaDB', async () => !(await running(admin, marker)));
  });
});
