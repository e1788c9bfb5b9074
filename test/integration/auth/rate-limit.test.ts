import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { ensureService, REDIS, uniqueName } from '../../helpers/services.js';
import { INTROSPECTION_CLIENT, startIssuer, type TestIssuer } from './helpers/issuer.js';
import { spawnServer } from './helpers/processes.js';
import { loginToken, startTestServer, type TestServer, tempStorage } from './helpers/server.js';

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });

describe('rate limits in memory', () => {
  test('off by default', async () => {
    const server = await startTestServer();
    try {
      for (let i = 0; i < 80; i++) assert.equal((await get(`${server.url}/api/status`)).status, 200);
    } finally {
      await server.close();
    }
  });

  test('per client address without auth: 429 with Retry-After past the limit; /mcp/status exempt', async () => {
    const server = await startTestServer({
      TRIBUTARY_MCP_RATE_LIMIT_ENABLED: 'true',
      TRIBUTARY_MCP_RATE_LIMIT_RPM: '3',
    });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await get(`${server.url}/api/status`)).status, 200);
      const r = await get(`${server.url}/mcp/streamable`, { origin: 'http://localhost:3000' });
      assert.equal(r.status, 429);
      const retry = Number(r.headers.get('retry-after'));
      assert.ok(retry >= 1 && retry <= 60, String(retry));
      assert.equal(((await r.json()) as { error_code: string }).error_code, 'rate_limited');
      assert.equal(
        r.headers.get('access-control-allow-origin'),
        'http://localhost:3000',
        '429s carry CORS too',
      );
      for (let i = 0; i < 5; i++) assert.equal((await get(`${server.url}/mcp/status`)).status, 200);
    } finally {
      await server.close();
    }
  });

  test('with tokens, requests are counted per principal and refused callers do not spend its budget', async () => {
    const server = await startTestServer({
      TRIBUTARY_USERNAME: 'admin',
      TRIBUTARY_PASSWORD: 'rl-pw',
      TRIBUTARY_MCP_RATE_LIMIT_ENABLED: 'true',
      TRIBUTARY_MCP_RATE_LIMIT_RPM: '3',
    });
    try {
      const token = await loginToken(server.url, 'admin', 'rl-pw');
      for (let i = 0; i < 5; i++) assert.equal((await get(`${server.url}/api/status`)).status, 401);
      const auth = { authorization: `Bearer ${token}` };
      for (let i = 0; i < 3; i++) assert.equal((await get(`${server.url}/api/status`, auth)).status, 200);
      assert.equal((await get(`${server.url}/api/status`, auth)).status, 429);
    } finally {
      await server.close();
    }
  });
});

describe('rate limits per OAuth principal', () => {
  let issuer: TestIssuer;
  let server: TestServer;
  before(async () => {
    issuer = await startIssuer();
    server = await startTestServer({
      TRIBUTARY_MCP_OAUTH_ENABLED: 'true',
      TRIBUTARY_MCP_OAUTH_ISSUER_URL: issuer.issuer,
      TRIBUTARY_MCP_OAUTH_CLIENT_ID: INTROSPECTION_CLIENT.id,
      TRIBUTARY_MCP_OAUTH_CLIENT_SECRET: INTROSPECTION_CLIENT.secret,
      TRIBUTARY_MCP_RATE_LIMIT_ENABLED: 'true',
      TRIBUTARY_MCP_RATE_LIMIT_RPM: '2',
    });
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
  });

  test('two clients from one address have separate budgets', async () => {
    const resource = `${server.url}/mcp/streamable`;
    const a = { authorization: `Bearer ${await issuer.token('jwt', resource, 'mcp:tools')}` };
    const b = { authorization: `Bearer ${await issuer.token('opaque', resource, 'mcp:tools')}` };
    for (let i = 0; i < 2; i++) assert.equal((await get(`${server.url}/api/status`, a)).status, 200);
    assert.equal((await get(`${server.url}/api/status`, a)).status, 429);
    for (let i = 0; i < 2; i++) assert.equal((await get(`${server.url}/api/status`, b)).status, 200);
    assert.equal((await get(`${server.url}/api/status`, b)).status, 429);
  });
});

describe('rate limits shared through Redis', () => {
  before(() => ensureService('redis'));

  test('two server processes on one Redis share one limit per principal', async () => {
    const username = uniqueName('rl');
    const password = randomBytes(12).toString('hex');
    const storage = tempStorage();
    const env = {
      TRIBUTARY_STORAGE_DIR: storage.dir,
      TRIBUTARY_SECRET_KEY: randomBytes(32).toString('base64'),
      TRIBUTARY_USERNAME: username,
      TRIBUTARY_PASSWORD: password,
      TRIBUTARY_REDIS_URL: `redis://${REDIS.host}:${REDIS.port}`,
      TRIBUTARY_MCP_RATE_LIMIT_ENABLED: 'true',
      TRIBUTARY_MCP_RATE_LIMIT_RPM: '4',
    };
    const redis = new Redis({ host: REDIS.host, port: REDIS.port });
    const a = await spawnServer(env);
    const b = await spawnServer(env);
    try {
      const auth = { authorization: `Bearer ${await loginToken(a.url, username, password)}` };
      const statuses: number[] = [];
      for (const url of [a.url, b.url, a.url, b.url, a.url, b.url]) {
        statuses.push((await get(`${url}/api/status`, auth)).status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
      const keys = await redis.keys(`tributary:rl:requests:token:${username}`);
      assert.equal(keys.length, 1, 'the count lives in Redis');
    } finally {
      await a.stop();
      await b.stop();
      await redis.del(`tributary:rl:requests:token:${username}`);
      redis.disconnect();
      storage.remove();
    }
  });

  test('with Redis unreachable the server starts, serves and limits per process', async () => {
    // A loopback port nothing listens on: the limiter cannot reach it, and start-up must not wait for it.
    const server = await startTestServer({
      TRIBUTARY_REDIS_URL: 'redis://127.0.0.1:9/0',
      TRIBUTARY_MCP_RATE_LIMIT_ENABLED: 'true',
      TRIBUTARY_MCP_RATE_LIMIT_RPM: '3',
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await get(`${server.url}/api/status`)).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
    } finally {
      await server.close();
    }
  });
});
