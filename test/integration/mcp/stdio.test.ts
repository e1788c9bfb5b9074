/**
 * MCP over stdio: the official clients spawn the server, stdout carries only JSON-RPC,
 * logs go to stderr, and the process exits when the client closes stdin.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { jsonContents, resultOf } from './helpers/clients.js';
import { createShopDatabase } from './helpers/fixture.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));
const SERVER = fileURLToPath(new URL('./helpers/stdio-server.ts', import.meta.url));
const ARGS = ['--import', 'tsx', SERVER];

let db: { database: string; drop: () => Promise<void> };
let env: Record<string, string>;

before(async () => {
  db = await createShopDatabase();
  env = { ...(process.env as Record<string, string>), MCP_TEST_DATABASES: db.database };
});

after(async () => {
  await db?.drop();
});

describe('stdio transport', () => {
  test('the 2025-era client lists and calls everything', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ARGS,
      env,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    try {
      assert.equal(client.getServerVersion()?.name, 'tributary');
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['query'],
      );
      assert.deepEqual(jsonContents(await client.readResource({ uri: 'schema://databases' })), [db.database]);
      const cols = jsonContents(
        await client.readResource({ uri: `schema://databases/${db.database}/tables/customers/columns` }),
      ) as { COLUMN_NAME: string }[];
      assert.deepEqual(
        cols.map((c) => c.COLUMN_NAME),
        ['id', 'name', 'email', 'vip'],
      );
      const done = await client.complete({
        ref: { type: 'ref/prompt', name: 'sample_table' },
        argument: { name: 'table_name', value: 'cu' },
        context: { arguments: { database_name: db.database } },
      });
      assert.deepEqual(done.completion.values, ['customers']);
      const prompt = await client.getPrompt({
        name: 'sample_table',
        arguments: { database_name: db.database, table_name: 'orders' },
      });
      assert.match((prompt.messages[0].content as { text: string }).text, /LIMIT 5/);
      const call = await client.callTool({
        name: 'query',
        arguments: { query: `SELECT name FROM ${db.database}.customers WHERE id = 2` },
      });
      assert.deepEqual(resultOf(call), { type: 'table', column_names: ['name'], data: [['Bob']] });
      const bad = await client.callTool({ name: 'query', arguments: { query: 'SELECT FROM' } });
      assert.equal(bad.isError, true);
    } finally {
      await client.close();
    }
  });

  test('the 2026-era client negotiates 2026-07-28 and queries', async () => {
    const transport = new ModernStdio({ command: process.execPath, args: ARGS, env, stderr: 'pipe' });
    const client = new ModernClient(
      { name: 'stdio-test', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(transport);
    try {
      assert.equal((client as any).getNegotiatedProtocolVersion(), '2026-07-28');
      const call = await client.callTool({
        name: 'query',
        arguments: { query: 'SELECT COUNT(*) AS n FROM orders', context: { db: db.database } },
      });
      assert.deepEqual(resultOf(call).data, [[3]]);
    } finally {
      await client.close();
    }
  });

  test('stdout carries only JSON-RPC, logs go to stderr, and closing stdin ends the process', async () => {
    const child = spawn(process.execPath, ARGS, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'query',
        arguments: { query: `SELECT 'secret-literal' AS s FROM ${db.database}.customers LIMIT 1` },
      },
    });
    // Wait for the answer before closing stdin: requests in flight at EOF are dropped.
    while (!out.includes('"id":2')) await new Promise((r) => setTimeout(r, 20));
    child.stdin.end();
    assert.equal(await exited, 0);
    const lines = out.split('\n').filter((l) => l.length > 0);
    assert.equal(lines.length, 2, out);
    for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, '2.0');
    assert.match(lines[1], /secret-literal/);
    assert.match(err, /mcp tool call/);
    assert.ok(!err.includes('secret-literal'), 'literals are not logged');
  });
});

describe('tributary --mcp-stdio (the real CLI)', () => {
  let storage: string;
  before(() => {
    storage = mkdtempSync(join(tmpdir(), 'tributary-stdio-'));
  });
  after(() => {
    rmSync(storage, { recursive: true, force: true });
  });

  test('serves the capabilities over the real engine, adding a source through the query tool', async (t) => {
    const started = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', MAIN, '--mcp-stdio'],
      env: { ...env, TRIBUTARY_STORAGE_DIR: storage },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => {
      stderr += d;
    });
    const client = new Client({ name: 'stdio-cli-test', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      t.diagnostic(`spawn to first tools/list: ${Math.round(performance.now() - started)} ms (through tsx)`);
      assert.deepEqual(
        tools.map((x) => x.name),
        ['query'],
      );
      const params = JSON.stringify({
        host: '127.0.0.1',
        port: 3306,
        user: 'root',
        password: '',
        database: db.database,
      });
      const created = await client.callTool({
        name: 'query',
        arguments: { query: `CREATE DATABASE shop WITH ENGINE = 'mariadb', PARAMETERS = ${params}` },
      });
      assert.deepEqual(resultOf(created).type, 'ok');
      assert.deepEqual(jsonContents(await client.readResource({ uri: 'schema://databases' })), [
        'files',
        'shop',
      ]);
      const tables = jsonContents(await client.readResource({ uri: 'schema://databases/shop/tables' })) as {
        TABLE_NAME: string;
      }[];
      assert.ok(tables.some((x) => x.TABLE_NAME === 'customers'));
      const call = await client.callTool({
        name: 'query',
        arguments: { query: 'SELECT name FROM shop.customers ORDER BY id LIMIT 1' },
      });
      assert.deepEqual(resultOf(call).data, [['Ada']]);
      // stdio has no auth: its statements run as `local` (SPEC section 12).
      const who = await client.callTool({
        name: 'query',
        arguments: { query: 'SELECT CURRENT_USER() AS u' },
      });
      assert.deepEqual(resultOf(who).data, [['local']]);
    } finally {
      await client.close();
    }
    assert.match(stderr, /mcp stdio ready/);
    assert.ok(!stderr.includes('"password":"'), 'no secrets in logs');
  });
});
