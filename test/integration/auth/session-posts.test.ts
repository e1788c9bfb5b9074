/**
 * POSTs to a live MCP session are served before Fastify's router (mcp/transports/
 * session-posts.ts). They must meet the very same security gate: each refusal here is
 * asked twice, once as the plain request that path takes and once with a query string,
 * which sends it through Fastify's route instead, and both answers must be the same.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RawResponse, raw } from './helpers/raw.js';
import { loginToken, startTestServer, type TestServer } from './helpers/server.js';

const CREDS = { TRIBUTARY_USERNAME: 'admin', TRIBUTARY_PASSWORD: 'session-posts-pw' };
const ALLOWED = 'https://app.example.com';
const EARLY = '/mcp/streamable';
const VIA_FASTIFY = '/mcp/streamable?door=fastify';

const login = (server: TestServer) => loginToken(server.url, 'admin', 'session-posts-pw');

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** An initialize request (through Fastify: no session yet); the new session's id. */
async function initialize(server: TestServer, headers: Record<string, string>): Promise<string> {
  const init = await raw(server.port, 'POST', EARLY, headers, {
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  assert.equal(init.status, 200, init.body);
  return String(init.headers['mcp-session-id']);
}

/** initialize + notifications/initialized; the session's id. */
async function openSession(server: TestServer, token: string): Promise<string> {
  const headers = { ...JSON_HEADERS, authorization: `Bearer ${token}` };
  const sid = await initialize(server, headers);
  const done = await raw(
    server.port,
    'POST',
    EARLY,
    { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    { body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) },
  );
  assert.equal(done.status, 202);
  return sid;
}

const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'query', arguments: { query: 'SELECT 1 AS one' } },
});

function sessionHeaders(sid: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...JSON_HEADERS,
    'mcp-session-id': sid,
    'mcp-protocol-version': '2025-11-25',
    ...extra,
  };
}

const SECURITY_HEADERS = [
  'www-authenticate',
  'retry-after',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'vary',
  'content-type',
];

/** The same request through both doors; their answers must not differ. */
async function bothDoors(
  server: TestServer,
  headers: Record<string, string>,
  body = CALL,
): Promise<RawResponse> {
  const early = await raw(server.port, 'POST', EARLY, headers, { body });
  const fastify = await raw(server.port, 'POST', VIA_FASTIFY, headers, { body });
  assert.equal(early.status, fastify.status, `${early.body} / ${fastify.body}`);
  assert.equal(early.body, fastify.body);
  for (const h of SECURITY_HEADERS) assert.equal(early.headers[h], fastify.headers[h], h);
  return early;
}

describe('MCP session POSTs served before the router pass the same security gate', () => {
  let server: TestServer;
  let token: string;
  let sid: string;
  before(async () => {
    server = await startTestServer({
      ...CREDS,
      TRIBUTARY_MCP_ALLOW_ORIGINS: ALLOWED,
      TRIBUTARY_MCP_DNS_REBINDING_PROTECTION: 'true',
    });
    token = await login(server);
    sid = await openSession(server, token);
  });
  after(() => server.close());

  test('with a valid token the call is answered, with CORS headers for an allowed origin', async () => {
    const r = await raw(
      server.port,
      'POST',
      EARLY,
      sessionHeaders(sid, { authorization: `Bearer ${token}`, origin: ALLOWED }),
      { body: CALL },
    );
    assert.equal(r.status, 200, r.body);
    assert.equal(r.headers['mcp-session-id'], sid);
    assert.equal(r.headers['access-control-allow-origin'], ALLOWED);
    // A quick call is one JSON body; on a loaded machine it may have turned into an SSE stream
    // (after 20 ms), which carries the same message as a data line.
    const text = r.body.startsWith('{') ? r.body : (/^data: (\{.*)$/m.exec(r.body)?.[1] ?? r.body);
    const msg = JSON.parse(text) as { id: number; result: { structuredContent: { result: unknown } } };
    assert.equal(msg.id, 7);
    assert.deepEqual(msg.result.structuredContent.result, {
      type: 'table',
      column_names: ['one'],
      data: [[1]],
    });
  });

  test('no credential: 401 with the challenge, the session id does not stand in for one', async () => {
    const r = await bothDoors(server, sessionHeaders(sid));
    assert.equal(r.status, 401);
    assert.match(String(r.headers['www-authenticate']), /^Bearer /);
    assert.equal((JSON.parse(r.body) as { error_code: string }).error_code, 'unauthorized');
  });

  test('a bad or revoked-looking token: 401 invalid_token', async () => {
    const r = await bothDoors(server, sessionHeaders(sid, { authorization: 'Bearer tb_not-a-real-token' }));
    assert.equal(r.status, 401);
    assert.match(String(r.headers['www-authenticate']), /invalid_token/);
  });

  test('a disallowed Origin: 403 even with a valid token', async () => {
    const r = await bothDoors(
      server,
      sessionHeaders(sid, { authorization: `Bearer ${token}`, origin: 'https://evil.example' }),
    );
    assert.equal(r.status, 403);
    assert.equal((JSON.parse(r.body) as { error_code: string }).error_code, 'origin_not_allowed');
  });

  test('a foreign Host (DNS rebinding): 421 even with a valid token', async () => {
    const r = await bothDoors(
      server,
      sessionHeaders(sid, { authorization: `Bearer ${token}`, host: `attacker.example:${server.port}` }),
    );
    assert.equal(r.status, 421);
    assert.equal((JSON.parse(r.body) as { error_code: string }).error_code, 'invalid_host');
  });

  test('a body that is not JSON: the same JSON-RPC parse error', async () => {
    const r = await bothDoors(
      server,
      sessionHeaders(sid, { authorization: `Bearer ${token}` }),
      '{"jsonrpc":',
    );
    assert.equal(r.status, 400);
    assert.equal((JSON.parse(r.body) as { error: { code: number } }).error.code, -32700);
  });

  test('the token is never written to the logs on this path', async () => {
    const r = await raw(
      server.port,
      'POST',
      EARLY,
      sessionHeaders(sid, { authorization: `Bearer ${token}` }),
      {
        body: CALL,
      },
    );
    assert.equal(r.status, 200);
    assert.ok(!server.logs.some((l) => l.includes(token)));
  });
});

describe('MCP session POSTs served before the router count against the rate limit', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      TRIBUTARY_MCP_RATE_LIMIT_ENABLED: 'true',
      TRIBUTARY_MCP_RATE_LIMIT_RPM: '6',
    });
  });
  after(() => server.close());

  test('one budget for both doors; over it, 429 with Retry-After', async () => {
    // initialize spends one of the six.
    const sid = await initialize(server, JSON_HEADERS);
    const statuses: number[] = [];
    for (const path of [EARLY, VIA_FASTIFY, EARLY, VIA_FASTIFY, EARLY, VIA_FASTIFY]) {
      const r = await raw(server.port, 'POST', path, sessionHeaders(sid), { body: CALL });
      statuses.push(r.status);
      if (r.status === 429) {
        assert.ok(Number(r.headers['retry-after']) > 0);
        assert.equal((JSON.parse(r.body) as { error_code: string }).error_code, 'rate_limited');
      }
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
  });
});
