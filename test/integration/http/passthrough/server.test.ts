import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { closeDeps, createDeps, startServer } from '../../../../src/cli/start.js';
import { httpHooks, httpRoutes } from '../../../../src/cli/wiring.js';
import { loadConfig } from '../../../../src/config/load.js';
import { createLogger } from '../../../../src/core/logger.js';
import { secretForms } from '../../../../src/egress/redact.js';
import { registerPassthroughRoutes } from '../../../../src/http/routes/passthrough.js';
import { buildHttpServer } from '../../../../src/http/server.js';
import '../../../../src/sources/rest-api/register.js';
import { startUpstream, type Upstream } from './upstream.js';

// Through the real server: CREATE DATABASE ... ENGINE = "rest_api" over POST /api/sql/query,
// the passthrough routes behind the app-wide auth hook, the real catalog on disk. The token
// must never appear in any answer, log line or catalog file.

const TOKEN = 'srv-tok_9f8e7d6c5b4a+/=Q';
const USER = 'admin';
const PASSWORD = 'correct horse battery staple';

interface Server {
  url: string;
  close(): Promise<void>;
}

let up: Upstream;
let storageDir: string;
const logs: string[] = [];
const answers: string[] = [];
let server: Server;
let bearer = '';

/** startServer once the lead has wired the passthrough routes; until then the same parts, assembled here. */
async function start(env: Record<string, string>): Promise<Server> {
  const config = await loadConfig({
    argv: {},
    env: {
      TRIBUTARY_STORAGE_DIR: storageDir,
      TRIBUTARY_HTTP_HOST: '127.0.0.1',
      TRIBUTARY_HTTP_PORT: '0',
      TRIBUTARY_MYSQL_PORT: '0',
      TRIBUTARY_USERNAME: USER,
      TRIBUTARY_PASSWORD: PASSWORD,
      ...env,
    },
  });
  const sink = new Writable({
    write(chunk, _e, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger('debug', sink);
  if (httpRoutes.includes(registerPassthroughRoutes)) {
    const running = await startServer(config, { logger });
    return { url: running.url, close: () => running.close() };
  }
  const deps = await createDeps(config, logger);
  const app = await buildHttpServer(deps, {
    hooks: httpHooks,
    routes: [...httpRoutes, registerPassthroughRoutes],
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      await closeDeps(deps);
    },
  };
}

async function post(
  path: string,
  body: unknown,
  auth = true,
): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(auth && bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  answers.push(text);
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

const sql = (query: string) => post('/api/sql/query', { query }).then((r) => r.json);

async function login(): Promise<void> {
  const r = await post('/api/login', { username: USER, password: PASSWORD }, false);
  assert.equal(r.status, 200, r.text);
  bearer = r.json.token;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

function assertNoTokenOnDisk(): void {
  const forms = secretForms(TOKEN);
  const files = filesUnder(storageDir);
  assert.ok(files.length > 0);
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const f of forms) assert.equal(bytes.indexOf(f), -1, `${file} holds ${f}`);
  }
}

before(async () => {
  up = await startUpstream('127.0.0.1');
  storageDir = mkdtempSync(join(tmpdir(), 'tributary-passthrough-'));
  server = await start({ TRIBUTARY_PASSTHROUGH_ALLOW_PRIVATE_NETWORKS: 'true' });
  await login();
});

after(async () => {
  await server?.close();
  await up?.close();
  if (storageDir) rmSync(storageDir, { recursive: true, force: true });
});

describe('rest_api through the real server', () => {
  test('CREATE DATABASE validates parameters only: the upstream is not called', async () => {
    up.reset();
    const r = await sql(
      `CREATE DATABASE crm WITH ENGINE = "rest_api", PARAMETERS = {"base_url": "${up.url}/", "bearer_token": "${TOKEN}", "default_headers": {"X-Client": "tributary-tests"}}`,
    );
    assert.equal(r.type, 'ok', JSON.stringify(r));
    assert.equal(up.hits, 0);
    assertNoTokenOnDisk();
  });

  test('bad parameters are refused naming the parameter, never echoing the token', async () => {
    for (const [params, name] of [
      [`{"base_url": "ftp://x.example", "bearer_token": "${TOKEN}"}`, 'base_url'],
      [`{"base_url": "https://u:p@x.example", "bearer_token": "${TOKEN}"}`, 'base_url'],
      [`{"base_url": "https://x.example"}`, 'bearer_token'],
      [
        `{"base_url": "https://x.example", "bearer_token": "${TOKEN}", "allowed_hosts": ["a.example:1"]}`,
        'allowed_hosts',
      ],
      [`{"base_url": "https://x.example", "bearer_token": "${TOKEN}", "test_path": "/a/../b"}`, 'test_path'],
    ] as const) {
      const r = await sql(`CREATE DATABASE bad WITH ENGINE = 'rest_api', PARAMETERS = ${params}`);
      assert.equal(r.type, 'error', JSON.stringify(r));
      assert.match(r.error_message, new RegExp(name));
    }
  });

  test('SQL against the source is error 1235 naming the passthrough endpoint; it has no tables', async () => {
    const r = await sql('SELECT * FROM crm.contacts');
    assert.equal(r.type, 'error');
    assert.equal(r.error_code, 1235, JSON.stringify(r));
    assert.match(r.error_message, /POST \/api\/integrations\/crm\/passthrough/);
    const tables = await sql('SHOW TABLES FROM crm');
    assert.equal(tables.type, 'table', JSON.stringify(tables));
    assert.deepEqual(tables.data, []);
    const dbs = await sql('SHOW DATABASES');
    assert.ok(JSON.stringify(dbs.data).includes('crm'));
    const engines = await sql('SHOW ENGINES');
    assert.ok(JSON.stringify(engines).includes('rest_api'));
  });

  test('the passthrough needs the app-wide token like every /api route', async () => {
    const r = await post('/api/integrations/crm/passthrough', { method: 'GET', path: '/echo' }, false);
    assert.equal(r.status, 401);
  });

  test('the built-in files source exists and is not a rest_api source: 400 not_passthrough', async () => {
    for (const name of ['files', 'FILES']) {
      const r = await post(`/api/integrations/${name}/passthrough`, { method: 'GET', path: '/x' });
      assert.equal(r.status, 400, JSON.stringify(r.json));
      assert.equal(r.json.error_code, 'not_passthrough');
      assert.match(r.json.message, /'files' is a files source/);
    }
  });

  test('a call goes upstream with the stored token and comes back redacted', async () => {
    up.reset();
    const r = await post('/api/integrations/crm/passthrough', {
      method: 'POST',
      path: '/echo',
      body: { q: 1 },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status_code, 200);
    assert.equal(up.seen[0]!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(up.seen[0]!.headers['x-client'], 'tributary-tests');
    assert.equal(r.json.body.headers.authorization, 'Bearer [REDACTED_API_KEY]');
    const leak = await post('/api/integrations/crm/passthrough', { method: 'GET', path: '/leak' });
    assert.equal(leak.json.body.raw, 'Bearer [REDACTED_API_KEY]');
    const t = await post('/api/integrations/crm/passthrough/test', {});
    assert.deepEqual([t.status, t.json.ok, t.json.host], [200, true, '127.0.0.1']);
    // POST /api/sources/{name}/test of a rest_api source is the passthrough test (SPEC section 5).
    const s = await post('/api/sources/crm/test', {});
    assert.deepEqual(
      [s.status, s.json.ok, s.json.host, s.json.status_code, s.json.engine],
      [200, true, '127.0.0.1', t.json.status_code, 'rest_api'],
    );
  });

  test('the token survives a restart (decrypted from the catalog); allow_private_networks off refuses loopback', async () => {
    await server.close();
    server = await start({ TRIBUTARY_PASSTHROUGH_ALLOW_PRIVATE_NETWORKS: 'true' });
    await login();
    up.reset();
    let r = await post('/api/integrations/crm/passthrough', { method: 'GET', path: '/echo' });
    assert.equal(r.json.status_code, 200, r.text);
    assert.equal(up.seen[0]!.headers.authorization, `Bearer ${TOKEN}`);
    await server.close();
    server = await start({});
    await login();
    up.reset();
    r = await post('/api/integrations/crm/passthrough', { method: 'GET', path: '/echo' });
    assert.equal(r.status, 403);
    assert.equal(r.json.error_code, 'private_address');
    assert.equal(up.hits, 0);
    // The source test says so too, instead of a connection test's "ok".
    const st = await post('/api/sources/crm/test', {});
    assert.deepEqual([st.status, st.json.ok, st.json.error_code], [200, false, 'private_address']);
  });

  test('DROP DATABASE removes it from the passthrough', async () => {
    assert.equal((await sql('DROP DATABASE crm')).type, 'ok');
    const r = await post('/api/integrations/crm/passthrough', { method: 'GET', path: '/echo' });
    assert.equal(r.status, 404);
    assert.equal(r.json.error_code, 'datasource_not_found');
  });

  test('the token is nowhere: answers, logs, catalog files', async () => {
    const forms = secretForms(TOKEN);
    for (const text of answers)
      for (const f of forms) assert.ok(!text.includes(f), `answer holds ${f}: ${text.slice(0, 200)}`);
    const allLogs = logs.join('');
    assert.ok(allLogs.length > 0);
    for (const f of forms) assert.ok(!allLogs.includes(f), `logs hold ${f}`);
    assertNoTokenOnDisk();
    // default_headers are secret too (sealed like bearer_token).
    for (const file of filesUnder(storageDir))
      assert.equal(readFileSync(file).indexOf('tributary-tests'), -1, `${file} holds a default header value`);
  });
});
