/**
 * The HTTP transports as HTTP: status, session lifecycles (DELETE, idle timeout, stream
 * close), the SSE endpoint event and keep-alives, JSON-RPC error answers, and running
 * behind app-wide Fastify hooks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type McpTestApp, startMcpApp } from './helpers/app.js';
import { connect, HTTP_KINDS, resultOf } from './helpers/clients.js';
import { createShopDatabase } from './helpers/fixture.js';
import { MariaEngine } from './helpers/maria-engine.js';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Reads an SSE response until `stop` says enough; returns the text read. */
async function readSse(res: Response, stop: (text: string) => boolean): Promise<string> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = '';
  while (!stop(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += dec.decode(value, { stream: true });
  }
  return text;
}

let db: { database: string; drop: () => Promise<void> };
let app: McpTestApp;

before(async () => {
  db = await createShopDatabase();
  app = await startMcpApp(new MariaEngine([db.database]), {
    http: { sessionIdleMs: 300, sweepIntervalMs: 20, keepAliveMs: 50 },
  });
});

after(async () => {
  await app?.close();
  await db?.drop();
});

describe('GET /mcp/status', () => {
  test('answers 200 with service and version', async () => {
    const res = await fetch(`${app.url}/mcp/status`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.deepEqual(await res.json(), { status: 'ok', service: 'tributary-mcp', version: '0.0.0-test' });
  });
});

describe('legacy SSE', () => {
  test('the endpoint event names /mcp/messages with session_id, and both id spellings are accepted', async () => {
    const ctrl = new AbortController();
    const res = await fetch(`${app.url}/mcp/sse`, {
      signal: ctrl.signal,
      headers: { accept: 'text/event-stream' },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let text = '';
    const readUntil = async (pred: (t: string) => boolean) => {
      while (!pred(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended: ${text}`);
        text += dec.decode(value, { stream: true });
      }
    };
    await readUntil((t) => /event: endpoint\ndata: .*\n\n/.test(t));
    const endpoint = /event: endpoint\ndata: (.*)\n/.exec(text)![1];
    assert.match(endpoint, /^\/mcp\/messages\?session_id=[0-9a-f-]{36}(&|$)/);
    const id = new URL(endpoint, app.url).searchParams.get('session_id')!;
    assert.equal(app.mcp.sessions().sse, 1);

    const post = (param: string, body: unknown) =>
      fetch(`${app.url}/mcp/messages?${param}=${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    assert.equal((await post('sessionId', INIT)).status, 202);
    await readUntil((t) => t.includes('"id":1'));
    assert.match(text, /"serverInfo":\{"name":"tributary"/);
    assert.equal(
      (await post('session_id', { jsonrpc: '2.0', method: 'notifications/initialized' })).status,
      202,
    );
    assert.equal((await post('session_id', { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status, 202);
    await readUntil((t) => t.includes('"id":2'));
    assert.match(text, /"name":"query"/);
    // keep-alive comments flow while the stream is quiet
    await readUntil((t) => t.includes(': keep-alive\n\n'));

    ctrl.abort();
    await until('the SSE session to be removed', () => app.mcp.sessions().sse === 0);
    const gone = await post('session_id', { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    assert.equal(gone.status, 404);
  });

  test('HEAD /mcp/sse does not open a session', async () => {
    const res = await fetch(`${app.url}/mcp/sse`, { method: 'HEAD' });
    assert.notEqual(res.status, 200);
    assert.equal(app.mcp.sessions().sse, 0);
  });

  test('a message without a session id is 400, with an unknown one 404', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const headers = { 'content-type': 'application/json' };
    const none = await fetch(`${app.url}/mcp/messages`, { method: 'POST', headers, body });
    assert.equal(none.status, 400);
    const unknown = await fetch(`${app.url}/mcp/messages?session_id=nope`, { method: 'POST', headers, body });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as any).error.code, -32001);
  });
});

describe('Streamable HTTP sessions (2025 era)', () => {
  test('initialize opens a session named by Mcp-Session-Id; DELETE ends it', async () => {
    const before = app.mcp.sessions().streamable;
    const init = await fetch(`${app.url}/mcp/streamable`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(INIT),
    });
    assert.equal(init.status, 200);
    const id = init.headers.get('mcp-session-id');
    assert.ok(id);
    await init.text();
    assert.equal(app.mcp.sessions().streamable, before + 1);
    const headers = { ...JSON_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
    const del = await fetch(`${app.url}/mcp/streamable`, { method: 'DELETE', headers });
    assert.equal(del.status, 200);
    assert.equal(app.mcp.sessions().streamable, before);
    const after = await fetch(`${app.url}/mcp/streamable`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(after.status, 404);
  });

  test('a session the client abandons is closed after the idle timeout', async () => {
    const c = await connect('streamable', app.url);
    const r = await c.client.callTool({ name: 'query', arguments: { query: 'SELECT 1 AS one' } });
    assert.deepEqual(resultOf(r).data, [[1]]);
    assert.ok(app.mcp.sessions().streamable >= 1);
    await c.client.close(); // no DELETE: the way many clients leave
    await until('the idle session to be swept', () => app.mcp.sessions().streamable === 0);
  });

  test('a session with an open GET stream is not idle', async () => {
    const init = await fetch(`${app.url}/mcp/streamable`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(INIT),
    });
    const id = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = {
      accept: 'text/event-stream',
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-11-25',
    };
    const ctrl = new AbortController();
    const stream = await fetch(`${app.url}/mcp/streamable`, { headers, signal: ctrl.signal });
    assert.equal(stream.status, 200);
    // Several idle periods pass while the stream is open (keep-alives arrive meanwhile).
    await readSse(stream, (t) => (t.match(/\n\n/g) ?? []).length >= 8);
    app.mcp.sweep();
    assert.equal(app.mcp.sessions().streamable, 1);
    ctrl.abort();
    await until('the session to be swept after its stream closed', () => app.mcp.sessions().streamable === 0);
  });

  test('an unknown session id is 404 and a request without one 400', async () => {
    const unknown = await fetch(`${app.url}/mcp/streamable`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'mcp-session-id': 'nope' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(unknown.status, 404);
    const none = await fetch(`${app.url}/mcp/streamable`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(none.status, 400);
    const get = await fetch(`${app.url}/mcp/streamable`, { headers: { accept: 'text/event-stream' } });
    assert.equal(get.status, 400);
  });
});

describe('malformed requests', () => {
  for (const path of ['/mcp/streamable', '/mcp/messages?session_id=x']) {
    test(`${path}: a body that is not JSON gets a JSON-RPC parse error`, async () => {
      const res = await fetch(`${app.url}${path}`, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: '{"jsonrpc":',
      });
      assert.equal(res.status, 400);
      const body = (await res.json()) as any;
      assert.equal(body.jsonrpc, '2.0');
      assert.equal(body.error.code, -32700);
    });
  }

  test('a body over the MCP limit is refused with 413', async () => {
    const huge = JSON.stringify({ ...INIT, params: { ...INIT.params, pad: 'x'.repeat(5 * 1024 * 1024) } });
    const res = await fetch(`${app.url}/mcp/streamable`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: huge,
    });
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as any).jsonrpc, '2.0');
  });

  for (const path of ['/mcp/streamable', '/mcp/messages?session_id=x']) {
    test(`${path}: a body that is not application/json is refused with 415`, async () => {
      const res = await fetch(`${app.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(INIT),
      });
      assert.equal(res.status, 415);
      assert.equal(((await res.json()) as any).error.code, -32000);
    });
  }
});

describe('session cleanup under churn', () => {
  test('many connects and disconnects over every transport leave no sessions or handles behind', async () => {
    const cycle = async () => {
      for (const kind of HTTP_KINDS) {
        const c = await connect(kind, app.url);
        await c.client.listTools();
        await c.terminate();
      }
    };
    await cycle(); // warm up pools and lazy imports
    await until(
      'warm-up sessions to end',
      () => app.mcp.sessions().sse === 0 && app.mcp.sessions().streamable === 0,
    );
    const handles = process.getActiveResourcesInfo().length;
    for (let i = 0; i < 25; i++) await cycle();
    await until(
      'all sessions to end',
      () => app.mcp.sessions().sse === 0 && app.mcp.sessions().streamable === 0,
    );
    await until('sockets to close', () => process.getActiveResourcesInfo().length <= handles + 2);
  });
});

describe('behind app-wide Fastify hooks', () => {
  let hooked: McpTestApp;
  before(async () => {
    hooked = await startMcpApp(new MariaEngine([db.database]), {
      hooks: (a) => {
        a.addHook('onRequest', async (request, reply) => {
          reply.header('x-hooked', 'yes');
          if (request.headers['x-throw']) throw Object.assign(new Error('slow down'), { statusCode: 429 });
          if (request.url.startsWith('/mcp/status')) return;
          if (request.headers.authorization !== 'Bearer good') {
            return reply.code(401).send({ error_code: 'unauthorized', message: 'token required' });
          }
        });
      },
    });
  });
  after(async () => {
    await hooked?.close();
  });

  for (const kind of HTTP_KINDS) {
    test(`${kind}: the hook runs first; allowed requests reach MCP with the hook's headers`, async () => {
      await assert.rejects(connect(kind, hooked.url));
      const c = await connect(kind, hooked.url, { authorization: 'Bearer good' });
      try {
        const r = await c.client.callTool({ name: 'query', arguments: { query: 'SELECT 2 AS two' } });
        assert.deepEqual(resultOf(r).data, [[2]]);
      } finally {
        await c.terminate();
      }
    });
  }

  test("an error a hook throws keeps the app's error shape, not JSON-RPC", async () => {
    const res = await fetch(`${hooked.url}/mcp/streamable`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: 'Bearer good', 'x-throw': '1' },
      body: JSON.stringify(INIT),
    });
    assert.equal(res.status, 429);
    assert.equal('jsonrpc' in ((await res.json()) as object), false);
  });

  test('headers set by hooks reach hijacked responses', async () => {
    const init = await fetch(`${hooked.url}/mcp/streamable`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: 'Bearer good' },
      body: JSON.stringify(INIT),
    });
    assert.equal(init.headers.get('x-hooked'), 'yes');
    await init.text();
    const ctrl = new AbortController();
    const sse = await fetch(`${hooked.url}/mcp/sse`, {
      headers: { authorization: 'Bearer good' },
      signal: ctrl.signal,
    });
    assert.equal(sse.headers.get('x-hooked'), 'yes');
    ctrl.abort();
    const status = await fetch(`${hooked.url}/mcp/status`);
    assert.equal(status.status, 200);
  });
});

describe('Streamable HTTP resumability (2025-11-25)', () => {
  test('a call whose stream breaks is answered on a GET resumed with Last-Event-ID', async () => {
    const init = await fetch(`${app.url}/mcp/streamable`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(INIT),
    });
    const id = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = { ...JSON_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
    await fetch(`${app.url}/mcp/streamable`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const ctrl = new AbortController();
    const call = await fetch(`${app.url}/mcp/streamable`, {
      method: 'POST',
      headers,
      signal: ctrl.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'query', arguments: { query: 'SELECT SLEEP(0.5) AS slept, 42 AS answer' } },
      }),
    });
    assert.match(call.headers.get('content-type') ?? '', /text\/event-stream/);
    // The priming event names where to resume; then the connection drops.
    const primed = await readSse(call, (t) => /id: [^\n]+\n(retry: \d+\n)?data: \n\n/.test(t));
    const lastEventId = /id: ([^\n]+)\n/.exec(primed)![1];
    assert.match(primed, /retry: \d+/);
    ctrl.abort();
    const resumeCtrl = new AbortController();
    const resume = () =>
      fetch(`${app.url}/mcp/streamable`, {
        headers: { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId },
        signal: resumeCtrl.signal,
      });
    // 409 until the server has seen the old stream close; clients retry after `retry` ms.
    let resumed = await resume();
    for (let i = 0; resumed.status === 409 && i < 100; i++) {
      await sleep(20);
      resumed = await resume();
    }
    assert.equal(resumed.status, 200);
    const text = await readSse(resumed, (t) => t.includes('"id":7'));
    resumeCtrl.abort();
    assert.match(text, /\\"answer\\"|"answer"/);
    assert.match(text, /42/);
    await fetch(`${app.url}/mcp/streamable`, { method: 'DELETE', headers });
  });
});
