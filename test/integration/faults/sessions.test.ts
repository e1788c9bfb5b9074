/** Abandoned Streamable HTTP sessions expire after api.mcp.session_idle_timeout_ms. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ TRIBUTARY_MCP_SESSION_IDLE_TIMEOUT_MS: '400' });
});
after(async () => {
  await server?.stop();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function openSession(url = server.url): Promise<string> {
  const r = await fetch(`${url}/mcp/streamable`, {
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

function ping(sid: string, url = server.url): Promise<Response> {
  return fetch(`${url}/mcp/streamable`, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
}

test('sessions left without DELETE answer 404 once idle past the timeout; a used one lives on', async () => {
  const abandoned = await Promise.all(Array.from({ length: 50 }, () => openSession()));
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

/** The heap after full collections (the server runs in this process). */
async function settledHeap(): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

test('the memory of 400 abandoned sessions comes back once they expire', { timeout: 90_000 }, async () => {
  // A server of its own with a timeout long enough to open 400 sessions on a loaded machine.
  const own = await startTestServer({ TRIBUTARY_MCP_SESSION_IDLE_TIMEOUT_MS: '3000' });
  try {
    // Round 0 warms what stays anyway (compiled code, this client's connection pool); measured
    // on Node 20: round 0 keeps ~45% of what 400 sessions hold, later rounds 4-8%.
    for (let round = 0; round < 3; round++) {
      const baseline = await settledHeap();
      const opened: string[] = [];
      for (let i = 0; i < 8; i++)
        opened.push(...(await Promise.all(Array.from({ length: 50 }, () => openSession(own.url)))));
      const held = (await settledHeap()) - baseline;
      // Past the idle timeout and the sweep that follows it.
      await new Promise((r) => setTimeout(r, 4_500));
      const left = (await settledHeap()) - baseline;
      for (const sid of [opened[0]!, opened[399]!]) {
        const r = await ping(sid, own.url);
        assert.equal(r.status, 404);
        await r.text();
      }
      if (round === 0) continue;
      assert.ok(held > 400 * 1024, `400 live sessions should hold memory (held ${held} bytes)`);
      assert.ok(left < held * 0.25, `round ${round}: after expiry ${left} bytes remain of ${held}`);
    }
  } finally {
    await own.stop();
  }
});
