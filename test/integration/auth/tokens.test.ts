import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sha256Hex } from '../../../src/auth/secrets.js';
import { createPgDatabase, ensureService } from '../../helpers/services.js';
import { spawnServer } from './helpers/processes.js';
import { startTestServer, type TestServer, tempStorage } from './helpers/server.js';

const USER = 'admin';
const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;
const CREDS = { TRIBUTARY_USERNAME: USER, TRIBUTARY_PASSWORD: PASSWORD };

/** Every route behind token auth (SPEC §6): the API, the passthrough, and all MCP transports. */
const PROTECTED: [string, string][] = [
  ['GET', '/api/status'],
  ['POST', '/api/sql/query'],
  ['GET', '/api/files'],
  ['PUT', '/api/files/x.csv'],
  ['DELETE', '/api/files/x.csv'],
  ['POST', '/api/integrations/crm/passthrough'],
  ['POST', '/api/integrations/crm/passthrough/test'],
  ['POST', '/api/logout'],
  ['GET', '/mcp/sse'],
  ['POST', '/mcp/messages?session_id=abc'],
  ['POST', '/mcp/streamable'],
  ['GET', '/mcp/streamable'],
  ['DELETE', '/mcp/streamable'],
  ['GET', '/api/no-such-route'],
];

async function call(url: string, method: string, path: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = method === 'GET' && path === '/mcp/sse' && res.status === 200 ? '' : await res.text();
  if (res.status === 200 && path === '/mcp/sse') await res.body?.cancel();
  return { status: res.status, headers: res.headers, text };
}

async function login(url: string, username = USER, password = PASSWORD) {
  return call(url, 'POST', '/api/login', undefined, { username, password });
}

async function tokenFor(url: string): Promise<string> {
  const r = await login(url);
  assert.equal(r.status, 200, r.text);
  return (JSON.parse(r.text) as { token: string }).token;
}

describe('personal access tokens', () => {
  let server: TestServer;
  const issued: string[] = [];

  before(async () => {
    server = await startTestServer(CREDS);
  });
  after(async () => {
    await server?.close();
  });

  test('login returns an opaque token', async () => {
    const r = await login(server.url);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const body = JSON.parse(r.text) as { token: string; expires_at: string };
    issued.push(body.token);
    assert.match(body.token, /^trb_[A-Za-z0-9_-]{43}$/);
    const ttl = Date.parse(body.expires_at) - Date.now();
    assert.ok(ttl > 719 * 3_600_000 && ttl <= 720 * 3_600_000, 'expires after auth.token_ttl_hours (720)');
  });

  test('wrong password and unknown user get the same 401', async () => {
    const a = await login(server.url, USER, 'wrong');
    const b = await login(server.url, 'nobody', PASSWORD);
    assert.equal(a.status, 401);
    assert.equal(b.status, 401);
    assert.equal(a.text, b.text);
    assert.ok(!a.text.includes('wrong') && !b.text.includes(PASSWORD));
  });

  test('a malformed login gets 400 and never echoes the password', async () => {
    for (const body of [{}, { username: USER }, { username: USER, password: 5 }, [USER, PASSWORD], 'x']) {
      const r = await call(server.url, 'POST', '/api/login', undefined, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.ok(!r.text.includes(PASSWORD));
    }
    const raw = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"username":"admin","password":"${PASSWORD}"`,
    });
    assert.equal(raw.status, 400);
    assert.ok(!(await raw.text()).includes(PASSWORD));
  });

  test('every protected route refuses a missing, malformed, wrong, revoked or expired token', async () => {
    const revoked = await tokenFor(server.url);
    issued.push(revoked);
    assert.equal((await call(server.url, 'POST', '/api/logout', revoked)).status, 204);
    const expired = `trb_${randomBytes(32).toString('base64url')}`;
    await server.running.deps.catalog.putToken({
      hash: sha256Hex(expired),
      username: USER,
      createdAt: new Date(Date.now() - 7_200_000).toISOString(),
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    const bad: (string | undefined)[] = [
      undefined,
      '',
      'garbage',
      `trb_${randomBytes(32).toString('base64url')}`,
      revoked,
      expired,
    ];
    for (const [method, path] of PROTECTED) {
      for (const token of bad) {
        const r = await call(server.url, method, path, token);
        assert.equal(
          r.status,
          401,
          `${method} ${path} with ${token === undefined ? 'no token' : token.slice(0, 8)}`,
        );
        assert.equal((JSON.parse(r.text) as { error_code: string }).error_code, 'unauthorized');
        assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer /);
      }
    }
  });

  test('a valid token opens every protected route', async () => {
    const token = await tokenFor(server.url);
    issued.push(token);
    for (const [method, path] of PROTECTED) {
      if (path === '/api/logout') continue;
      const r = await call(server.url, method, path, token);
      assert.notEqual(r.status, 401, `${method} ${path}: ${r.text}`);
      assert.notEqual(r.status, 403, `${method} ${path}: ${r.text}`);
    }
    const status = await call(server.url, 'GET', '/api/status', token);
    assert.equal(status.status, 200);
    assert.equal((JSON.parse(status.text) as { auth_mode: string }).auth_mode, 'token');
  });

  test('/mcp/status and /api/login stay public', async () => {
    assert.equal((await call(server.url, 'GET', '/mcp/status')).status, 200);
    assert.notEqual((await call(server.url, 'POST', '/api/login', undefined, {})).status, 401);
  });

  test('logout revokes the presented token at once and answers 204', async () => {
    const token = await tokenFor(server.url);
    const other = await tokenFor(server.url);
    issued.push(token, other);
    assert.equal((await call(server.url, 'GET', '/api/status', token)).status, 200);
    const out = await call(server.url, 'POST', '/api/logout', token);
    assert.equal(out.status, 204);
    assert.equal(out.text, '');
    assert.equal((await call(server.url, 'GET', '/api/status', token)).status, 401);
    assert.equal((await call(server.url, 'GET', '/api/status', other)).status, 200, 'other tokens live on');
  });

  test('the catalog holds only hashes', async () => {
    const token = await tokenFor(server.url);
    issued.push(token);
    const rec = await server.running.deps.catalog.getToken(sha256Hex(token));
    assert.equal(rec?.username, USER);
  });

  test('no token or password in any log line', () => {
    const all = server.logs.join('\n');
    assert.ok(all.includes('access token issued'));
    assert.ok(!all.includes(PASSWORD));
    for (const t of issued) assert.ok(!all.includes(t));
  });
});

describe('brute force', () => {
  test('failed logins from one address get 429 with Retry-After, even with the right password', async () => {
    const server = await startTestServer(CREDS);
    try {
      for (let i = 0; i < 10; i++) assert.equal((await login(server.url, USER, `guess-${i}`)).status, 401);
      const blocked = await login(server.url, USER, 'guess-x');
      assert.equal(blocked.status, 429);
      const retry = Number(blocked.headers.get('retry-after'));
      assert.ok(retry >= 1 && retry <= 900, String(retry));
      assert.equal((await login(server.url)).status, 429);
    } finally {
      await server.close();
    }
  });

  test('a successful login clears the failures', async () => {
    const server = await startTestServer(CREDS);
    try {
      for (let i = 0; i < 9; i++) assert.equal((await login(server.url, USER, `guess-${i}`)).status, 401);
      assert.equal((await login(server.url)).status, 200);
      for (let i = 0; i < 9; i++) assert.equal((await login(server.url, USER, `guess-${i}`)).status, 401);
      assert.equal((await login(server.url)).status, 200);
    } finally {
      await server.close();
    }
  });
});

describe('token persistence', () => {
  test('a restart on the same storage dir keeps tokens', async () => {
    const storage = tempStorage();
    try {
      const first = await startTestServer(CREDS, { storageDir: storage.dir });
      const token = await tokenFor(first.url);
      await first.close();
      const second = await startTestServer(CREDS, { storageDir: storage.dir });
      try {
        assert.equal((await call(second.url, 'GET', '/api/status', token)).status, 200);
      } finally {
        await second.close();
      }
    } finally {
      storage.remove();
    }
  });

  test('two server processes on one PostgreSQL catalog accept each other’s tokens', async () => {
    await ensureService('postgres');
    const db = await createPgDatabase('trib_auth');
    const storageA = tempStorage();
    const storageB = tempStorage();
    const common = {
      ...CREDS,
      TRIBUTARY_CATALOG_URL: `postgres://postgres@127.0.0.1:5432/${db.database}`,
      TRIBUTARY_SECRET_KEY: randomBytes(32).toString('base64'),
    };
    const a = await spawnServer({ ...common, TRIBUTARY_STORAGE_DIR: storageA.dir });
    const b = await spawnServer({ ...common, TRIBUTARY_STORAGE_DIR: storageB.dir });
    try {
      const fromA = await tokenFor(a.url);
      const fromB = await tokenFor(b.url);
      assert.equal((await call(b.url, 'GET', '/api/status', fromA)).status, 200);
      assert.equal((await call(a.url, 'GET', '/api/status', fromB)).status, 200);
      // Logout on A: A refuses at once; B within its short validation cache (seconds).
      assert.equal((await call(a.url, 'POST', '/api/logout', fromA)).status, 204);
      assert.equal((await call(a.url, 'GET', '/api/status', fromA)).status, 401);
      let bStatus = 200;
      for (let i = 0; i < 60 && bStatus === 200; i++) {
        await new Promise((r) => setTimeout(r, 250));
        bStatus = (await call(b.url, 'GET', '/api/status', fromA)).status;
      }
      assert.equal(bStatus, 401);
      for (const p of [a, b]) {
        assert.ok(!p.stderr().includes(PASSWORD));
        assert.ok(!p.stderr().includes(fromA) && !p.stderr().includes(fromB));
      }
    } finally {
      await a.stop();
      await b.stop();
      storageA.remove();
      storageB.remove();
      await db.drop();
    }
  });
});
