/**
 * The direct path for `tools/call query` on a 2025-era Streamable HTTP session
 * (src/mcp/transports/direct-call.ts), spoken to as raw HTTP: the answer is the one the
 * SDK path gives, a result finished while the stream was down is replayed on resume, and
 * the session's end stops a running call on the database.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import mysql from 'mysql2/promise';
import { MARIADB } from '../../helpers/services.js';
import { type McpTestApp, startMcpApp } from './helpers/app.js';
import { createShopDatabase } from './helpers/fixture.js';
import { MariaEngine } from './helpers/maria-engine.js';
import { running, until } from './helpers/watch.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let db: { database: string; drop: () => Promise<void> };
let app: McpTestApp;
let admin: mysql.Connection;

before(async () => {
  db = await createShopDatabase();
  app = await startMcpApp(new MariaEngine([db.database]));
  admin = await mysql.createConnection({ ...MARIADB, database: undefined });
});

after(async () => {
  await admin?.end();
  await app?.close();
  await db?.drop();
});

async function session(on: McpTestApp = app): Promise<Record<string, string>> {
  const init = await fetch(`${on.url}/mcp/streamable`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  await init.text();
  const headers = {
    ...JSON_HEADERS,
    'mcp-session-id': init.headers.get('mcp-session-id')!,
    'mcp-protocol-version': '2025-11-25',
  };
  await post(headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return headers;
}

function post(
  headers: Record<string, string>,
  body: unknown,
  signal?: AbortSignal,
  on: McpTestApp = app,
): Promise<Response> {
  return fetch(`${on.url}/mcp/streamable`, { method: 'POST', headers, body: JSON.stringify(body), signal });
}

/** The JSON-RPC messages (not priming events) of an SSE body. */
function messages(sse: string): any[] {
  return sse
    .split('\n\n')
    .map((e) => /^data: (.+)$/m.exec(e)?.[1])
    .filter((d): d is string => !!d && d.trim() !== '')
    .map((d) => JSON.parse(d));
}

function call(id: number, query: string, meta?: object) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'query', arguments: { query }, ...(meta ? { _meta: meta } : {}) },
  };
}

describe('direct tools/call on a Streamable HTTP session', () => {
  test('answers with the same JSON-RPC result as the SDK path', async () => {
    // Its own app, whose switch to SSE waits long enough that a loaded machine still gets the JSON body.
    const patient = await startMcpApp(new MariaEngine([db.database]), { http: { sseAfterMs: 30_000 } });
    after(() => patient.close());
    const headers = await session(patient);
    const sql = `SELECT id, name FROM ${db.database}.customers ORDER BY id LIMIT 3`;
    const direct = await post(headers, call(2, sql), undefined, patient);
    assert.equal(direct.status, 200, await direct.clone().text());
    // A quick call is answered as a JSON body (the transport lets the server choose).
    assert.match(direct.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(direct.headers.get('mcp-session-id'), headers['mcp-session-id']);
    const fast: any = await direct.json();
    // A progress token sends the call through the SDK's own layers.
    const viaSdk = messages(
      await (await post(headers, call(2, sql, { progressToken: 'p' }), undefined, patient)).text(),
    );
    const sdk = viaSdk.find((m) => m.id === 2);
    assert.deepEqual(fast, sdk);
    assert.equal(fast.result.structuredContent.result.type, 'table');
    assert.equal(fast.result.content[0].text, JSON.stringify(fast.result.structuredContent.result));
    await fetch(`${patient.url}/mcp/streamable`, { method: 'DELETE', headers });
  });

  test('an error result carries isError, as from the SDK', async () => {
    const patient = await startMcpApp(new MariaEngine([db.database]), { http: { sseAfterMs: 30_000 } });
    after(() => patient.close());
    const headers = await session(patient);
    const m: any = await (await post(headers, call(3, 'SELECT * FROM nowhere.t'), undefined, patient)).json();
    const [sdk] = messages(
      await (
        await post(headers, call(3, 'SELECT * FROM nowhere.t', { progressToken: 1 }), undefined, patient)
      ).text(),
    ).filter((x) => x.id === 3);
    assert.equal(m.result.isError, true);
    assert.deepEqual(m, sdk);
    await fetch(`${patient.url}/mcp/streamable`, { method: 'DELETE', headers });
  });

  test('a slow call becomes an SSE stream whose result is the same message', async () => {
    const headers = await session();
    const res = await post(headers, call(7, 'SELECT SLEEP(0.1) AS slept, 8 AS eight'));
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const body = await res.text();
    assert.match(body, /^id: [^\n]+\nretry: \d+\ndata: \n\n/, 'a priming event comes first');
    const [m] = messages(body);
    assert.equal(m.id, 7);
    assert.deepEqual(m.result.structuredContent.result.data, [[0, 8]]);
    await fetch(`${app.url}/mcp/streamable`, { method: 'DELETE', headers });
  });

  test('a result that arrives while the stream is down is replayed on resume', async () => {
    const headers = await session();
    const ctrl = new AbortController();
    const res = await post(headers, call(4, 'SELECT SLEEP(0.4) AS slept, 7 AS seven'), ctrl.signal);
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    const primed = new TextDecoder().decode(value);
    const lastEventId = /id: ([^\n]+)\n/.exec(primed)![1];
    ctrl.abort();
    // Long enough for the call to finish with nobody listening.
    await sleep(800);
    const resumed = await fetch(`${app.url}/mcp/streamable`, {
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId },
    });
    assert.equal(resumed.status, 200);
    const [m] = messages(await resumed.text());
    assert.equal(m.id, 4);
    assert.deepEqual(m.result.structuredContent.result.data, [[0, 7]]);
    await fetch(`${app.url}/mcp/streamable`, { method: 'DELETE', headers });
  });

  test('ending the session stops a running call on the database', async () => {
    const headers = await session();
    const marker = `direct_${randomBytes(4).toString('hex')}`;
    const pending = post(headers, call(5, `SELECT SLEEP(60) AS ${marker}`)).then((r) => r.text());
    await until('the query to run on MariaDB', () => running(admin, marker));
    const del = await fetch(`${app.url}/mcp/streamable`, { method: 'DELETE', headers });
    assert.equal(del.status, 200);
    await until('the query to stop on MariaDB', async () => !(await running(admin, marker)));
    await pending.catch(() => {});
  });

  test('notifications/cancelled stops a direct call and is accepted with 202', async () => {
    const headers = await session();
    const marker = `cancel_${randomBytes(4).toString('hex')}`;
    const pending = post(headers, call(6, `SELECT SLEEP(60) AS ${marker}`)).then((r) => r.text());
    await until('the query to run on MariaDB', () => running(admin, marker));
    const cancel = await post(headers, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 6, reason: 'test' },
    });
    assert.equal(cancel.status, 202);
    await until('the query to stop on MariaDB', async () => !(await running(admin, marker)));
    await pending.catch(() => {});
    await fetch(`${app.url}/mcp/streamable`, { method: 'DELETE', headers });
  });
});
