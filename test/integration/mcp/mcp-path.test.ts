/** `/mcp` is the Streamable HTTP endpoint too (what clients and the Inspector try first), behind the same auth. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loginToken, startTestServer, type TestServer } from '../auth/helpers/server.js';

let server: TestServer;
let token: string;

before(async () => {
  server = await startTestServer({ TRIBUTARY_USERNAME: 'ann', TRIBUTARY_PASSWORD: 'pw-mcp-path-1' });
  token = await loginToken(server.url, 'ann', 'pw-mcp-path-1');
});
after(() => server?.close());

describe('POST /mcp', () => {
  test('an SDK client with a bearer token runs a query through /mcp', async () => {
    const client = new Client({ name: 'mcp-path-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'query'));
      // Several calls: the session's later POSTs take the early path, on /mcp too.
      for (let i = 0; i < 3; i++) {
        const r = (await client.callTool({ name: 'query', arguments: { query: `SELECT ${i} AS n` } })) as {
          isError?: boolean;
          content: { type: string; text: string }[];
        };
        assert.ok(!r.isError, JSON.stringify(r));
        assert.match(r.content[0].text, new RegExp(`\\b${i}\\b`));
      }
      await transport.terminateSession();
    } finally {
      await client.close();
    }
  });

  test('without a token /mcp is refused like /mcp/streamable', async () => {
    for (const path of ['/mcp', '/mcp/streamable']) {
      const r = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(r.status, 401, path);
    }
  });
});

describe('an MCP session belongs to the token that opened it', () => {
  const rpc = (id: number, method: string, params: unknown = {}) =>
    JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const headers = (tok: string, session?: string) => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${tok}`,
    'mcp-protocol-version': '2025-06-18',
    ...(session ? { 'mcp-session-id': session } : {}),
  });

  test('another valid token cannot use the session id (404), the owner can', async () => {
    const other = await loginToken(server.url, 'ann', 'pw-mcp-path-1');
    assert.notEqual(other, token);
    const init = await fetch(`${server.url}/mcp/streamable`, {
      method: 'POST',
      headers: headers(token),
      body: rpc(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'owner', version: '1' },
      }),
    });
    assert.equal(init.status, 200);
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    for (const path of ['/mcp/streamable', '/mcp']) {
      const stolen = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: headers(other, session),
        body: rpc(2, 'tools/list'),
      });
      assert.equal(stolen.status, 404, path);
      assert.match(await stolen.text(), /Session not found/);
    }
    const own = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: headers(token, session),
      body: rpc(3, 'tools/list'),
    });
    assert.equal(own.status, 200);
    assert.match(await own.text(), /"query"/);
  });
});
