/** Hostile input gets a specific error, never an internal error or a silently changed statement. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server?.stop();
});

/** A JSON body whose string literal holds bytes that are not UTF-8. */
function badUtf8(prefix: string, suffix: string): Buffer {
  return Buffer.concat([Buffer.from(prefix), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(suffix)]);
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

test('an expression 20,000 terms long is 1064 "nested too deeply", not an internal error', async () => {
  const r = await server.sql(`SELECT ${Array.from({ length: 20_000 }, (_, i) => i).join(' + ')}`);
  assert.equal(r.type, 'error');
  if (r.type === 'error') {
    assert.equal(r.error_code, 1064);
    assert.match(r.error_message, /nested too deeply/);
  }
});

test('a literal beyond double range is 1367, as MySQL answers', async () => {
  for (const lit of ['1e999999', '-1e400']) {
    const r = await server.sql(`SELECT ${lit}`);
    assert.deepEqual(r, {
      type: 'error',
      error_code: 1367,
      error_message: `Illegal double '${lit.replace('-', '')}' value found during parsing`,
    });
  }
});

test('invalid UTF-8 in an API body is refused with 400', async () => {
  const res = await fetch(`${server.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: badUtf8('{"query":"SELECT \'', '\'"}'),
  });
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), {
    error_code: 'invalid_request',
    message: 'Invalid request: the body is not valid UTF-8',
  });
});

test('invalid UTF-8 to MCP is a JSON-RPC parse error (400, -32700), on both paths into a session', async () => {
  const initBody = (id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
  // Fastify's route (no session yet).
  const bad = await fetch(`${server.url}/mcp/streamable`, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: badUtf8('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"', '"}}'),
  });
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { error: { code: number } }).error.code, -32700);
  // A live session's POST, served before the router.
  const init = await fetch(`${server.url}/mcp/streamable`, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: initBody(1),
  });
  const sid = init.headers.get('mcp-session-id')!;
  await init.text();
  const body = badUtf8('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"', '"}}');
  const res = await fetch(`${server.url}/mcp/streamable`, {
    method: 'POST',
    headers: {
      ...MCP_HEADERS,
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
      'content-length': String(body.length),
    },
    body,
  });
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32700);
});
