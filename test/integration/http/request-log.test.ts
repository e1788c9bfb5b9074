/** One info line per HTTP request: method, route pattern (never the URL), status, duration. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, type TestServer } from '../auth/helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server?.close());

function requestLines(): Record<string, unknown>[] {
  return server.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
}

async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`no such log line: ${server.logs.join('\n')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a request is one info line with its route pattern, status and duration', async () => {
  const r = await fetch(`${server.url}/api/files/secret_name_123?token=abc`, { method: 'DELETE' });
  assert.equal(r.status, 404);
  await until(() => requestLines().some((l) => l.route === '/api/files/:name'));
  const line = requestLines().find((l) => l.route === '/api/files/:name')!;
  assert.equal(line.level, 30);
  assert.equal(line.method, 'DELETE');
  assert.equal(line.status, 404);
  assert.equal(typeof line.ms, 'number');
  assert.ok(!server.logs.some((l) => l.includes('secret_name_123') || l.includes('token=abc')));
  await fetch(`${server.url}/no/such/path`);
  await until(() => requestLines().some((l) => l.status === 404 && l.route === '(no route)'));
});

test('MCP session POSTs served before the router are logged too', async () => {
  const client = new Client({ name: 'log-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/streamable`)));
  const before = requestLines().filter((l) => l.route === '/mcp/streamable' && l.method === 'POST').length;
  await client.listTools();
  await client.listTools();
  await until(
    () =>
      requestLines().filter((l) => l.route === '/mcp/streamable' && l.method === 'POST').length >= before + 2,
  );
  await client.close();
});
