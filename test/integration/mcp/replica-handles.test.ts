/**
 * Two servers on one catalog, one secret key and one Redis (SPEC §13): a result handle made
 * through replica A pages through replica B for the token that made it, and for another token
 * it does not exist there either; a 2025-era MCP session opened on A is served by B (picked up
 * with its negotiated state), for its owner only, until it is deleted. Real servers, PostgreSQL
 * catalog, loopback Redis.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createPgDatabase, ensureService, pgExec, REDIS } from '../../helpers/services.js';
import { type Connected, connect } from './helpers/clients.js';

const USER = 'replica';
const PASSWORD = 'pw-replicas-0123456789';
let catalog: { database: string; drop: () => Promise<void> };
let data: { database: string; drop: () => Promise<void> };
let a: TestServer;
let b: TestServer;
const clients: Connected[] = [];

async function login(url: string): Promise<string> {
  const res = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: USER, password: PASSWORD }),
  });
  return ((await res.json()) as { token: string }).token;
}

async function as(server: TestServer, token: string): Promise<Connected> {
  const c = await connect('streamable', server.url, { authorization: `Bearer ${token}` });
  clients.push(c);
  return c;
}

async function call(c: Connected, query: string): Promise<Record<string, any>> {
  const r = await c.client.callTool({ name: 'query', arguments: { query } });
  return JSON.parse(r.content[0].text as string);
}

before(async () => {
  await ensureService('redis');
  catalog = await createPgDatabase('i30_drain_catalog');
  data = await createPgDatabase('i30_drain_data');
  await pgExec(data.database, 'CREATE TABLE n AS SELECT g AS id FROM generate_series(1, 200) g');
  const env = {
    TRIBUTARY_CATALOG_URL: `postgres://postgres@127.0.0.1:5432/${catalog.database}`,
    TRIBUTARY_SECRET_KEY: randomBytes(32).toString('base64'),
    TRIBUTARY_REDIS_URL: `redis://${REDIS.host}:${REDIS.port}`,
    TRIBUTARY_USERNAME: USER,
    TRIBUTARY_PASSWORD: PASSWORD,
    TRIBUTARY_MCP_MAX_ROWS: '10',
    TRIBUTARY_MCP_RESULT_HANDLES_TTL_MS: '60000',
  };
  a = await startTestServer(env);
  b = await startTestServer(env);
});

after(async () => {
  for (const c of clients) await c.terminate().catch(() => {});
  await a?.stop();
  await b?.stop();
  // Handles this test made expire within TRIBUTARY_MCP_RESULT_HANDLES_TTL_MS and are swept by the next use.
  await catalog?.drop();
  await data?.drop();
});

test('a handle made on replica A pages on replica B for its owner, and for no one else', async () => {
  const tokenA = await login(a.url);
  const tokenB = await login(b.url);
  const created = await fetch(`${a.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenA}` },
    body: JSON.stringify({
      query: `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(data.database)}`,
    }),
  });
  assert.equal(((await created.json()) as { type: string }).type, 'ok');

  const first = await call(await as(a, tokenA), 'SELECT id FROM pg.n ORDER BY id');
  assert.equal(first.truncated, true);
  assert.equal(first.rows_available, 200);
  assert.match(first.handle, /^r_/);

  const onB = await as(b, tokenA);
  const page = await call(onB, `SELECT * FROM result('${first.handle}') LIMIT 5 OFFSET 150`);
  assert.equal(page.type, 'table', JSON.stringify(page));
  assert.deepEqual(page.data, [[151], [152], [153], [154], [155]]);

  const stranger = await call(await as(b, tokenB), `SELECT * FROM result('${first.handle}') LIMIT 5`);
  assert.equal(stranger.error_code, 1146, JSON.stringify(stranger));
  const strangerOnA = await call(await as(a, tokenB), `SELECT * FROM result('${first.handle}') LIMIT 5`);
  assert.equal(strangerOnA.error_code, 1146);
});

/** One JSON-RPC message over raw HTTP, as a client behind a round-robin proxy would send it. */
async function rpc(
  url: string,
  token: string,
  message: Record<string, unknown>,
  session?: string,
): Promise<{ status: number; session: string | null; body: any }> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  const text = await res.text();
  let body: any = null;
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data: ') && l.length > 6);
    body = data.length ? JSON.parse(data.at(-1)!.slice(6)) : null;
  } else if (text) body = JSON.parse(text);
  return { status: res.status, session: res.headers.get('mcp-session-id'), body };
}

test('a 2025-era MCP session opened on replica A is served by replica B, for its owner only', async () => {
  const tokenA = await login(a.url);
  const tokenB = await login(a.url);
  const init = await rpc(a.url, tokenA, {
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'replica-test', version: '1' },
    },
  });
  assert.equal(init.status, 200);
  const sid = init.session;
  assert.ok(sid);
  assert.equal((await rpc(a.url, tokenA, { method: 'notifications/initialized' }, sid)).status, 202);

  const onB = await rpc(
    b.url,
    tokenA,
    { id: 2, method: 'tools/call', params: { name: 'query', arguments: { query: 'SELECT 1 AS one' } } },
    sid,
  );
  assert.equal(onB.status, 200, JSON.stringify(onB.body));
  assert.deepEqual(onB.body.result.structuredContent.result.data, [[1]]);
  const listed = await rpc(b.url, tokenA, { id: 3, method: 'tools/list' }, sid);
  assert.deepEqual(
    listed.body.result.tools.map((t: { name: string }) => t.name),
    ['query'],
  );

  // The session id is not a credential: another token sees no such session, on either replica.
  assert.equal((await rpc(b.url, tokenB, { id: 4, method: 'tools/list' }, sid)).status, 404);
  assert.equal((await rpc(a.url, tokenB, { id: 5, method: 'tools/list' }, sid)).status, 404);

  // Ended through B: gone from the shared store, so a replica that never served it refuses it.
  const del = await fetch(`${b.url}/mcp`, {
    method: 'DELETE',
    headers: {
      authorization: `Bearer ${tokenA}`,
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-06-18',
    },
  });
  assert.equal(del.status, 200);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal((await rpc(b.url, tokenA, { id: 6, method: 'tools/list' }, sid)).status, 404);
});

/** The SSE events of a stream's text: id and parsed message (priming events have no message). */
function sseEvents(text: string): { id: string | null; message: any }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) => {
      const id = /^id: (.*)$/m.exec(block)?.[1] ?? null;
      const data = /^data: (.+)$/m.exec(block)?.[1];
      return { id, message: data ? JSON.parse(data) : null };
    });
}

for (const path of ['direct', 'sdk'] as const) {
  test(`a call's SSE stream broken on replica A resumes on replica B with Last-Event-ID (${path} path)`, async () => {
    const token = await login(a.url);
    await pgExec(
      data.database,
      'CREATE OR REPLACE VIEW slow AS SELECT pg_sleep(0.5)::text AS slept, 7 AS seven',
    );
    const created = await fetch(`${a.url}/api/sql/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        query: `CREATE DATABASE IF NOT EXISTS pgslow WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(data.database)}`,
      }),
    });
    assert.equal(((await created.json()) as { type: string }).type, 'ok');
    const version = '2025-11-25';
    const init = await rpc(a.url, token, {
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name: 'resume-test', version: '1' },
      },
    });
    const sid = init.session!;
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-session-id': sid,
      'mcp-protocol-version': version,
    };
    await fetch(`${a.url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    // A progress token sends the call through the SDK's transport (its own storeEvent calls).
    const meta = path === 'sdk' ? { _meta: { progressToken: 'p1' } } : {};
    const ctrl = new AbortController();
    const res = await fetch(`${a.url}/mcp`, {
      method: 'POST',
      headers,
      signal: ctrl.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'query', arguments: { query: 'SELECT slept, seven FROM pgslow.slow' }, ...meta },
      }),
    });
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const reader = res.body!.getReader();
    let primed = '';
    while (!/^id: /m.test(primed)) primed += new TextDecoder().decode((await reader.read()).value);
    const lastEventId = /^id: (.+)$/m.exec(primed)![1];
    ctrl.abort();
    // The call finishes on A with nobody listening; its result is kept in Redis.
    await new Promise((r) => setTimeout(r, 1200));
    const resumed = await fetch(`${b.url}/mcp`, {
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId },
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(resumed.status, 200, await resumed.clone().text());
    const answer = sseEvents(await resumed.text()).find((e) => e.message?.id === 9);
    assert.ok(answer, 'the missed result is replayed on B');
    assert.deepEqual(answer.message.result.structuredContent.result.data, [['', 7]]);
    // Replayed under the id it was stored with: a later break resumes after it.
    assert.ok(answer.id?.startsWith(lastEventId.slice(0, lastEventId.lastIndexOf('::'))));
    await fetch(`${b.url}/mcp`, { method: 'DELETE', headers });
  });
}
