import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { raw } from './helpers/raw.js';
import { loginToken, startTestServer, type TestServer } from './helpers/server.js';

const CREDS = { TRIBUTARY_USERNAME: 'admin', TRIBUTARY_PASSWORD: 'browser-test-pw' };
const LOCAL = 'http://localhost:3000';
const EVIL = 'https://evil.example';

const login = (server: TestServer) => loginToken(server.url, 'admin', 'browser-test-pw');

describe('CORS and Origin checks (defaults)', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer(CREDS);
    token = await login(server);
  });
  after(() => server?.close());

  test('a preflight from an allowed origin is answered with the CORS grants', async () => {
    const r = await raw(server.port, 'OPTIONS', '/mcp/streamable', {
      origin: LOCAL,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, mcp-session-id',
    });
    assert.equal(r.status, 204);
    assert.equal(r.headers['access-control-allow-origin'], LOCAL);
    assert.match(String(r.headers['access-control-allow-methods']), /POST/);
    const allowed = String(r.headers['access-control-allow-headers']).toLowerCase();
    for (const h of ['authorization', 'content-type', 'mcp-session-id', 'mcp-protocol-version']) {
      assert.ok(allowed.includes(h), h);
    }
    assert.match(String(r.headers.vary), /Origin/);
  });

  test('a preflight from another origin is refused with 403 and no grants', async () => {
    const r = await raw(server.port, 'OPTIONS', '/mcp/streamable', {
      origin: EVIL,
      'access-control-request-method': 'POST',
    });
    assert.equal(r.status, 403);
    assert.equal(r.headers['access-control-allow-origin'], undefined);
  });

  test('a 401 to an allowed origin carries CORS headers, exposing WWW-Authenticate and Mcp-Session-Id', async () => {
    const r = await raw(
      server.port,
      'POST',
      '/mcp/streamable',
      { origin: LOCAL, 'content-type': 'application/json' },
      { body: '{}' },
    );
    assert.equal(r.status, 401);
    assert.equal(r.headers['access-control-allow-origin'], LOCAL);
    const exposed = String(r.headers['access-control-expose-headers']).toLowerCase();
    assert.ok(exposed.includes('www-authenticate') && exposed.includes('mcp-session-id'), exposed);
    assert.ok(r.headers['www-authenticate']);
  });

  test('a disallowed Origin gets 403 on MCP and API endpoints, even with a valid token', async () => {
    for (const [method, path] of [
      ['POST', '/mcp/streamable'],
      ['GET', '/mcp/sse'],
      ['POST', '/mcp/messages?session_id=x'],
      ['GET', '/mcp/status'],
      ['GET', '/api/status'],
      ['POST', '/api/login'],
    ] as const) {
      const r = await raw(server.port, method, path, { origin: EVIL, authorization: `Bearer ${token}` });
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.equal(JSON.parse(r.body).error_code, 'origin_not_allowed');
      assert.equal(r.headers['access-control-allow-origin'], undefined);
    }
    const nullOrigin = await raw(server.port, 'GET', '/mcp/status', { origin: 'null' });
    assert.equal(nullOrigin.status, 403);
  });

  test('requests without Origin (non-browser clients) are unaffected', async () => {
    const r = await raw(server.port, 'GET', '/api/status', { authorization: `Bearer ${token}` });
    assert.equal(r.status, 200);
    assert.equal(r.headers['access-control-allow-origin'], undefined);
  });

  test('/api trusts the server own origin, not other loopback ports (those stay trusted on MCP)', async () => {
    const own = `http://127.0.0.1:${server.port}`;
    const ok = await raw(server.port, 'GET', '/api/status', {
      origin: own,
      authorization: `Bearer ${token}`,
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['access-control-allow-origin'], own);
    for (const origin of [LOCAL, `http://127.0.0.1:${server.port + 1}`, `http://localhost:${server.port}`]) {
      const r = await raw(
        server.port,
        'POST',
        '/api/sql/query',
        {
          origin,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
        },
        { body: '{"query":"SELECT 1"}' },
      );
      assert.equal(r.status, 403, origin);
      const body = JSON.parse(r.body) as { error_code: string; message: string };
      assert.equal(body.error_code, 'origin_not_allowed');
      assert.match(body.message, /api\.mcp\.cors\.allow_origins \(TRIBUTARY_MCP_ALLOW_ORIGINS\)/);
    }
    const preflight = await raw(server.port, 'OPTIONS', '/api/sql/query', {
      origin: LOCAL,
      'access-control-request-method': 'POST',
    });
    assert.equal(preflight.status, 403);
    const mcp = await raw(server.port, 'GET', '/mcp/status', { origin: LOCAL });
    assert.equal(mcp.status, 200);
    assert.equal(mcp.headers['access-control-allow-origin'], LOCAL);
  });

  test('an allowed origin gets CORS headers on a streamed SSE response', async () => {
    const sse = await raw(
      server.port,
      'GET',
      '/mcp/sse',
      { origin: 'http://127.0.0.1:5173', authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      { headersOnly: true },
    );
    assert.equal(sse.status, 200);
    assert.equal(sse.headers['access-control-allow-origin'], 'http://127.0.0.1:5173');
    assert.match(String(sse.headers['content-type']), /text\/event-stream/);
  });
});

describe('CORS configuration', () => {
  test('allow_origins adds exact origins; others are refused', async () => {
    const server = await startTestServer({ TRIBUTARY_MCP_ALLOW_ORIGINS: 'https://app.example.com' });
    try {
      const ok = await raw(server.port, 'GET', '/mcp/status', { origin: 'https://app.example.com' });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['access-control-allow-origin'], 'https://app.example.com');
      assert.equal(
        (await raw(server.port, 'GET', '/mcp/status', { origin: 'https://app.example.com.evil.example' }))
          .status,
        403,
      );
    } finally {
      await server.close();
    }
  });

  test('a custom regex replaces the local default', async () => {
    const server = await startTestServer({
      TRIBUTARY_MCP_ALLOW_ORIGIN_REGEXP: '^https://[a-z]+\\.corp\\.example$',
    });
    try {
      assert.equal(
        (await raw(server.port, 'GET', '/mcp/status', { origin: 'https://tools.corp.example' })).status,
        200,
      );
      assert.equal((await raw(server.port, 'GET', '/mcp/status', { origin: LOCAL })).status, 403);
    } finally {
      await server.close();
    }
  });

  test('with CORS disabled no grants are sent, and a foreign Origin is still refused', async () => {
    const server = await startTestServer({ TRIBUTARY_MCP_CORS_ENABLED: 'false' });
    try {
      const local = await raw(server.port, 'GET', '/mcp/status', { origin: LOCAL });
      assert.equal(local.status, 200);
      assert.equal(local.headers['access-control-allow-origin'], undefined);
      assert.equal((await raw(server.port, 'GET', '/mcp/status', { origin: EVIL })).status, 403);
    } finally {
      await server.close();
    }
  });
});

describe('DNS-rebinding protection', () => {
  test('on by default when bound to loopback: a foreign Host is 421 naming the setting', async () => {
    const server = await startTestServer();
    try {
      for (const path of ['/mcp/status', '/api/status', '/']) {
        const r = await raw(server.port, 'GET', path, { host: `rebound.evil.example:${server.port}` });
        assert.equal(r.status, 421, path);
        assert.match(JSON.parse(r.body).message, /api\.mcp\.allowed_hosts \(TRIBUTARY_MCP_ALLOWED_HOSTS\)/);
      }
      assert.equal(
        (await raw(server.port, 'GET', '/mcp/status', { host: `127.0.0.1:${server.port}` })).status,
        200,
      );
    } finally {
      await server.close();
    }
  });

  test('off when turned off: any Host is served', async () => {
    const server = await startTestServer({ TRIBUTARY_MCP_DNS_REBINDING_PROTECTION: 'false' });
    try {
      assert.equal(
        (await raw(server.port, 'GET', '/mcp/status', { host: 'rebound.evil.example' })).status,
        200,
      );
    } finally {
      await server.close();
    }
  });

  test('on: local names work on any port, other hosts get 421', async () => {
    const server = await startTestServer({ TRIBUTARY_MCP_DNS_REBINDING_PROTECTION: 'true' });
    try {
      for (const host of [
        `localhost:${server.port}`,
        `127.0.0.1:${server.port}`,
        `[::1]:${server.port}`,
        'localhost',
      ]) {
        assert.equal((await raw(server.port, 'GET', '/mcp/status', { host })).status, 200, host);
      }
      for (const host of ['rebound.evil.example', `rebound.evil.example:${server.port}`, '127.0.0.2']) {
        const r = await raw(server.port, 'GET', '/mcp/status', { host });
        assert.equal(r.status, 421, host);
        assert.equal(JSON.parse(r.body).error_code, 'invalid_host');
      }
      const api = await raw(server.port, 'POST', '/api/sql/query', { host: 'rebound.evil.example' });
      assert.equal(api.status, 421);
    } finally {
      await server.close();
    }
  });

  test('allowed_hosts replaces the defaults', async () => {
    const server = await startTestServer({
      TRIBUTARY_MCP_DNS_REBINDING_PROTECTION: 'true',
      TRIBUTARY_MCP_ALLOWED_HOSTS: 'data.example.com',
    });
    try {
      assert.equal((await raw(server.port, 'GET', '/mcp/status', { host: 'data.example.com' })).status, 200);
      assert.equal((await raw(server.port, 'GET', '/mcp/status', { host: 'localhost' })).status, 421);
    } finally {
      await server.close();
    }
  });
});
