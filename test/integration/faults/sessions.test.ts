/** Abandoned Streamable HTTP sessions expire after api.mcp.session_idle_timeout_ms. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ TRIBUTARY_MCP_SESSION_IDLE_TIMEOUT_MS: '400' });
});
after(async () => {
  await server?.stop();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function openSession(): Promise<string> {
  const r = await fetch(`${server.url}/mcp/streamable`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'gone', version: '1' } },
    }),
  });
  await r.text();
  return r.headers.get('mcp-session-id')!;
}

function ping(sid: string): Promise<Response> {
  return fetch(`${server.url}/mcp/streamable`, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
}

test('sessions left without DELETE answer 404 once idle past the timeout; a used one lives on', async () => {
  const abandoned = await Promise.all(Array.from({ length: 50 }, openSession));
  const kept = await openSession();
  for (let i = 0; i < 6; i++) {
    await new Promise((r) => setTimeout(r, 150));
    assert.equal((await ping(kept)).status, 200);
  }
  for (const sid of abandoned) {
    const r = await ping(sid);
    assert.equal(r.status, 404);
    await r.text();
  }
});
