import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError, DEFAULT_ALLOW_ORIGIN_REGEX, loadConfig } from '../../../src/config/load.js';

let dir: string;
const KEY = randomBytes(32).toString('base64');

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-config-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Env with a fixed key so tests do not create key files unless they mean to. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return { TRIBUTARY_STORAGE_DIR: join(dir, 'store'), TRIBUTARY_SECRET_KEY: KEY, ...extra };
}

function configFile(json: unknown): string {
  const p = join(dir, `config-${randomBytes(4).toString('hex')}.json`);
  writeFileSync(p, typeof json === 'string' ? json : JSON.stringify(json));
  return p;
}

async function rejects(p: Promise<unknown>, ...parts: string[]): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected ConfigError, got ${e}`);
    for (const part of parts)
      assert.ok(e.message.includes(part), `message ${JSON.stringify(e.message)} lacks ${part}`);
    return e.message;
  }
  assert.fail('expected loadConfig to fail');
}

describe('loadConfig defaults', () => {
  test('gives the SPEC defaults with no file, env or flags', async () => {
    const c = await loadConfig({ env: env() });
    assert.equal(c.api.http.host, '127.0.0.1');
    assert.equal(c.api.http.port, 47334);
    assert.equal(c.api.mcp.cors.enabled, true);
    assert.deepEqual(c.api.mcp.cors.allow_origins, []);
    assert.equal(c.api.mcp.cors.allow_origin_regex, DEFAULT_ALLOW_ORIGIN_REGEX);
    assert.ok(c.api.mcp.cors.allow_headers.includes('Mcp-Session-Id'));
    assert.equal(c.api.mcp.rate_limit.enabled, false);
    assert.equal(c.api.mcp.rate_limit.requests_per_minute, 60);
    // On by default because the default host is loopback (SPEC section 1).
    assert.equal(c.api.mcp.dns_rebinding_protection, true);
    assert.deepEqual(c.api.mcp.allowed_hosts, ['localhost', '127.0.0.1', '[::1]']);
    assert.deepEqual(c.api.mcp.oauth, {
      enabled: false,
      issuer_url: null,
      client_id: null,
      client_secret: null,
      scope: 'mcp:tools',
      public_url: null,
      groups_claim: 'groups',
    });
    assert.equal(c.api.mcp.max_rows, 10000);
    assert.equal(c.api.mcp.read_only, false);
    assert.deepEqual(c.auth, { username: null, password: null, token_ttl_hours: 720, users_file: null });
    assert.deepEqual(c.passthrough, {
      allow_private_networks: false,
      timeout_ms: 30000,
      max_request_bytes: 1048576,
      max_response_bytes: 10485760,
    });
    // KB providers: loopback always, private ranges not, any host (SPEC §8 "Providers' addresses").
    assert.deepEqual(c.kb, { allow_private_networks: false, allowed_hosts: [], max_results: 10000 });
    assert.equal(c.files.max_upload_bytes, 1073741824);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.catalogUrl, null);
    assert.equal(c.redisUrl, null);
    assert.equal(c.demo, false);
    assert.equal(c.storageDir, join(dir, 'store'));
    assert.deepEqual(c.secretKey, Buffer.from(KEY, 'base64'));
  });

  test('default origin regex admits loopback origins only', async () => {
    const re = new RegExp((await loadConfig({ env: env() })).api.mcp.cors.allow_origin_regex);
    assert.ok(re.test('http://localhost:3000'));
    assert.ok(re.test('https://127.0.0.1'));
    assert.ok(re.test('http://[::1]:8080'));
    assert.ok(!re.test('http://evil.example'));
    assert.ok(!re.test('http://localhost.evil.example'));
  });

  test('DNS-rebinding protection: on for a loopback host, off for others, as set when set', async () => {
    for (const [host, on] of [
      ['127.0.0.1', true],
      ['::1', true],
      ['localhost', true],
      ['0.0.0.0', false],
      ['data.internal', false],
    ] as const) {
      const c = await loadConfig({ env: env({ TRIBUTARY_HTTP_HOST: host }) });
      assert.equal(c.api.mcp.dns_rebinding_protection, on, host);
    }
    const off = await loadConfig({ env: env({ TRIBUTARY_MCP_DNS_REBINDING_PROTECTION: 'false' }) });
    assert.equal(off.api.mcp.dns_rebinding_protection, false);
    const on = await loadConfig({
      env: env({ TRIBUTARY_HTTP_HOST: '0.0.0.0', TRIBUTARY_MCP_DNS_REBINDING_PROTECTION: 'true' }),
    });
    assert.equal(on.api.mcp.dns_rebinding_protection, true);
  });

  test('allowed_hosts default includes the configured host', async () => {
    const c = await loadConfig({ env: env({ TRIBUTARY_HTTP_HOST: 'data.internal' }) });
    assert.deepEqual(c.api.mcp.allowed_hosts, ['localhost', '127.0.0.1', '[::1]', 'data.internal']);
    const v6 = await loadConfig({ env: env(), argv: { host: '::' } });
    assert.ok(v6.api.mcp.allowed_hosts.includes('[::]'));
  });

  test('--demo sets demo', async () => {
    assert.equal((await loadConfig({ env: env(), argv: { demo: true } })).demo, true);
  });
});

describe('loadConfig precedence', () => {
  test('file overrides defaults, env overrides file, flags override env', async () => {
    const file = configFile({
      api: { http: { host: '0.0.0.0', port: 5000 }, mcp: { max_rows: 50, read_only: true } },
      passthrough: { timeout_ms: 1000 },
    });
    const fromFile = await loadConfig({ env: env({ TRIBUTARY_CONFIG_PATH: file }) });
    assert.equal(fromFile.api.http.host, '0.0.0.0');
    assert.equal(fromFile.api.http.port, 5000);
    assert.equal(fromFile.api.mcp.max_rows, 50);
    assert.equal(fromFile.api.mcp.read_only, true);
    assert.equal(fromFile.passthrough.timeout_ms, 1000);
    assert.equal(fromFile.passthrough.max_request_bytes, 1048576, 'keys absent from the file keep defaults');

    const fromEnv = await loadConfig({
      env: env({ TRIBUTARY_CONFIG_PATH: file, TRIBUTARY_HTTP_PORT: '6000', TRIBUTARY_MCP_MAX_ROWS: '70' }),
    });
    assert.equal(fromEnv.api.http.port, 6000);
    assert.equal(fromEnv.api.mcp.max_rows, 70);
    assert.equal(fromEnv.api.http.host, '0.0.0.0');

    const fromFlags = await loadConfig({
      env: env({
        TRIBUTARY_CONFIG_PATH: file,
        TRIBUTARY_HTTP_PORT: '6000',
        TRIBUTARY_HTTP_HOST: '127.0.0.2',
      }),
      argv: { host: '127.0.0.3', port: 7000 },
    });
    assert.equal(fromFlags.api.http.host, '127.0.0.3');
    assert.equal(fromFlags.api.http.port, 7000);
  });

  test('--config wins over TRIBUTARY_CONFIG_PATH', async () => {
    const a = configFile({ api: { mcp: { max_rows: 1 } } });
    const b = configFile({ api: { mcp: { max_rows: 2 } } });
    const c = await loadConfig({ env: env({ TRIBUTARY_CONFIG_PATH: a }), argv: { config: b } });
    assert.equal(c.api.mcp.max_rows, 2);
  });

  test('port 0 (any free port) is accepted', async () => {
    assert.equal((await loadConfig({ env: env({ TRIBUTARY_HTTP_PORT: '0' }) })).api.http.port, 0);
  });

  test('every env key reaches its config key', async () => {
    const c = await loadConfig({
      env: env({
        TRIBUTARY_MCP_CORS_ENABLED: 'false',
        TRIBUTARY_MCP_ALLOW_ORIGINS: 'https://a.example, https://b.example,',
        TRIBUTARY_MCP_ALLOW_ORIGIN_REGEXP: '^https://x$',
        TRIBUTARY_MCP_ALLOW_HEADERS: 'X-One,X-Two',
        TRIBUTARY_MCP_RATE_LIMIT_ENABLED: 'yes',
        TRIBUTARY_MCP_RATE_LIMIT_RPM: '5',
        TRIBUTARY_MCP_DNS_REBINDING_PROTECTION: 'on',
        TRIBUTARY_MCP_ALLOWED_HOSTS: 'a.example,b.example',
        TRIBUTARY_MCP_OAUTH_ENABLED: '1',
        TRIBUTARY_MCP_OAUTH_ISSUER_URL: 'http://127.0.0.1:9000/',
        TRIBUTARY_MCP_OAUTH_CLIENT_ID: 'cid',
        TRIBUTARY_MCP_OAUTH_CLIENT_SECRET: 'csecret',
        TRIBUTARY_MCP_OAUTH_SCOPE: 'data:read',
        TRIBUTARY_MCP_OAUTH_PUBLIC_URL: 'https://data.example.com',
        TRIBUTARY_MCP_OAUTH_GROUPS_CLAIM: 'roles',
        TRIBUTARY_MCP_MAX_ROWS: '3',
        TRIBUTARY_MCP_READ_ONLY: 'TRUE',
        TRIBUTARY_PASSTHROUGH_ALLOW_PRIVATE_NETWORKS: 'y',
        TRIBUTARY_PASSTHROUGH_TIMEOUT_MS: '1500',
        TRIBUTARY_PASSTHROUGH_MAX_REQUEST_BYTES: '100',
        TRIBUTARY_PASSTHROUGH_MAX_RESPONSE_BYTES: '200',
        TRIBUTARY_USERNAME: 'admin',
        TRIBUTARY_PASSWORD: ' pa ss ',
        TRIBUTARY_TOKEN_TTL_HOURS: '0.5',
        TRIBUTARY_USERS_FILE: '/etc/tributary/users.json',
        TRIBUTARY_CATALOG_URL: 'postgres://postgres@127.0.0.1:5432/test',
        TRIBUTARY_REDIS_URL: 'redis://127.0.0.1:6379',
        TRIBUTARY_LOG_LEVEL: 'DEBUG',
        TRIBUTARY_MAX_UPLOAD_BYTES: '1024',
        TRIBUTARY_KB_ALLOW_PRIVATE_NETWORKS: 'on',
        TRIBUTARY_KB_ALLOWED_HOSTS: 'localhost, api.openai.com',
        TRIBUTARY_KB_MAX_RESULTS: '500',
      }),
    });
    assert.deepEqual(c.kb, {
      allow_private_networks: true,
      allowed_hosts: ['localhost', 'api.openai.com'],
      max_results: 500,
    });
    assert.deepEqual(c.api.mcp.cors, {
      enabled: false,
      allow_origins: ['https://a.example', 'https://b.example'],
      allow_origin_regex: '^https://x$',
      allow_headers: ['X-One', 'X-Two'],
    });
    assert.deepEqual(c.api.mcp.rate_limit, { enabled: true, requests_per_minute: 5 });
    assert.equal(c.api.mcp.dns_rebinding_protection, true);
    assert.deepEqual(c.api.mcp.allowed_hosts, ['a.example', 'b.example']);
    assert.deepEqual(c.api.mcp.oauth, {
      enabled: true,
      issuer_url: 'http://127.0.0.1:9000/',
      client_id: 'cid',
      client_secret: 'csecret',
      scope: 'data:read',
      public_url: 'https://data.example.com',
      groups_claim: 'roles',
    });
    assert.equal(c.api.mcp.max_rows, 3);
    assert.equal(c.api.mcp.read_only, true);
    assert.deepEqual(c.passthrough, {
      allow_private_networks: true,
      timeout_ms: 1500,
      max_request_bytes: 100,
      max_response_bytes: 200,
    });
    assert.deepEqual(c.auth, {
      username: 'admin',
      password: ' pa ss ',
      token_ttl_hours: 0.5,
      users_file: '/etc/tributary/users.json',
    });
    assert.equal(c.catalogUrl, 'postgres://postgres@127.0.0.1:5432/test');
    assert.equal(c.redisUrl, 'redis://127.0.0.1:6379');
    assert.equal(c.logLevel, 'debug');
    assert.equal(c.files.max_upload_bytes, 1024);
  });

  test('empty env values count as unset', async () => {
    const c = await loadConfig({ env: env({ TRIBUTARY_MCP_MAX_ROWS: '', TRIBUTARY_MCP_READ_ONLY: ' ' }) });
    assert.equal(c.api.mcp.max_rows, 10000);
    assert.equal(c.api.mcp.read_only, false);
  });

  test('an empty origin regex in the file matches nothing (not everything)', async () => {
    const file = configFile({ api: { mcp: { cors: { allow_origin_regex: '' } } } });
    const re = new RegExp(
      (await loadConfig({ env: env(), argv: { config: file } })).api.mcp.cors.allow_origin_regex,
    );
    assert.ok(!re.test('http://localhost:3000'));
    assert.ok(!re.test(''));
  });

  test('config objects are independent copies', async () => {
    const a = await loadConfig({ env: env() });
    a.api.mcp.cors.allow_headers.push('X-Mutated');
    const b = await loadConfig({ env: env() });
    assert.ok(!b.api.mcp.cors.allow_headers.includes('X-Mutated'));
  });
});

describe('loadConfig env booleans', () => {
  for (const spelling of ['1', 'true', 'TRUE', 'True', 'on', 'ON', 'yes', 'Yes', 'y', 'Y']) {
    test(`'${spelling}' is true`, async () => {
      const c = await loadConfig({ env: env({ TRIBUTARY_MCP_READ_ONLY: spelling }) });
      assert.equal(c.api.mcp.read_only, true);
    });
  }
  for (const spelling of ['0', 'false', 'FALSE', 'off', 'Off', 'no', 'NO', 'n', 'N']) {
    test(`'${spelling}' is false`, async () => {
      const c = await loadConfig({ env: env({ TRIBUTARY_MCP_CORS_ENABLED: spelling }) });
      assert.equal(c.api.mcp.cors.enabled, false);
    });
  }
  for (const bad of ['maybe', '2', 'tru', 'enabled', '-1']) {
    test(`'${bad}' fails naming the variable and key`, async () => {
      await rejects(
        loadConfig({ env: env({ TRIBUTARY_MCP_RATE_LIMIT_ENABLED: bad }) }),
        'api.mcp.rate_limit.enabled',
        'TRIBUTARY_MCP_RATE_LIMIT_ENABLED',
      );
    });
  }
});

describe('loadConfig errors', () => {
  test('a bad env number names the key and the variable', async () => {
    const msg = await rejects(loadConfig({ env: env({ TRIBUTARY_MCP_MAX_ROWS: '0' }) }));
    assert.match(
      msg,
      /^Invalid configuration: api\.mcp\.max_rows: expected a positive integer.*\(from TRIBUTARY_MCP_MAX_ROWS\)$/,
    );
    await rejects(loadConfig({ env: env({ TRIBUTARY_MCP_MAX_ROWS: 'ten' }) }), 'api.mcp.max_rows');
    await rejects(loadConfig({ env: env({ TRIBUTARY_MCP_MAX_ROWS: '1.5' }) }), 'api.mcp.max_rows');
    await rejects(
      loadConfig({ env: env({ TRIBUTARY_HTTP_PORT: '70000' }) }),
      'api.http.port',
      'TRIBUTARY_HTTP_PORT',
    );
    await rejects(
      loadConfig({ env: env({ TRIBUTARY_PASSTHROUGH_TIMEOUT_MS: '-5' }) }),
      'passthrough.timeout_ms',
      'TRIBUTARY_PASSTHROUGH_TIMEOUT_MS',
    );
    await rejects(
      loadConfig({ env: env({ TRIBUTARY_TOKEN_TTL_HOURS: '0' }) }),
      'auth.token_ttl_hours',
      'TRIBUTARY_TOKEN_TTL_HOURS',
    );
    await rejects(
      loadConfig({ env: env({ TRIBUTARY_LOG_LEVEL: 'loud' }) }),
      'log_level',
      'TRIBUTARY_LOG_LEVEL',
    );
  });

  test('every problem is reported at once', async () => {
    const msg = await rejects(
      loadConfig({ env: env({ TRIBUTARY_MCP_MAX_ROWS: 'x', TRIBUTARY_MCP_READ_ONLY: 'x' }) }),
      'TRIBUTARY_MCP_MAX_ROWS',
      'TRIBUTARY_MCP_READ_ONLY',
    );
    assert.equal(msg.split('\n').length, 2);
  });

  test('an origin regex that does not compile fails', async () => {
    await rejects(
      loadConfig({ env: env({ TRIBUTARY_MCP_ALLOW_ORIGIN_REGEXP: '^(unclosed' }) }),
      'api.mcp.cors.allow_origin_regex',
      'TRIBUTARY_MCP_ALLOW_ORIGIN_REGEXP',
    );
  });

  test('unknown keys in the file fail naming the key path and the file', async () => {
    const file = configFile({
      api: { mcp: { max_rowz: 5, cors: { enabled: true, allow_all: true } } },
      extra: 1,
    });
    const msg = await rejects(
      loadConfig({ env: env(), argv: { config: file } }),
      'api.mcp.max_rowz: unknown key',
      'api.mcp.cors.allow_all: unknown key',
      'extra: unknown key',
      file,
    );
    assert.equal(msg.split('\n').length, 3);
  });

  test('bad values in the file fail naming the key path', async () => {
    const file = configFile({ api: { mcp: { max_rows: -1, read_only: 'yes' }, http: 5 } });
    await rejects(
      loadConfig({ env: env(), argv: { config: file } }),
      'api.mcp.max_rows: expected a positive integer',
      'api.mcp.read_only: expected true or false',
      'api.http: expected an object',
    );
  });

  test('a missing or malformed file fails naming it', async () => {
    await rejects(
      loadConfig({ env: env(), argv: { config: join(dir, 'nope.json') } }),
      'nope.json',
      'ENOENT',
    );
    await rejects(loadConfig({ env: env(), argv: { config: configFile('{ not json') } }), 'not valid JSON');
  });

  test('bad --host / --port name the flag', async () => {
    await rejects(loadConfig({ env: env(), argv: { port: 1.5 } }), 'api.http.port', '--port');
    await rejects(loadConfig({ env: env(), argv: { host: 'a b' } }), 'api.http.host', '--host');
  });

  test('credentials: both or neither', async () => {
    await rejects(loadConfig({ env: env({ TRIBUTARY_USERNAME: 'admin' }) }), 'TRIBUTARY_PASSWORD is missing');
    await rejects(loadConfig({ env: env({ TRIBUTARY_PASSWORD: 'pw' }) }), 'TRIBUTARY_USERNAME is missing');
    const none = await loadConfig({ env: env() });
    assert.equal(none.auth.username, null);
    const both = await loadConfig({ env: env({ TRIBUTARY_USERNAME: 'u', TRIBUTARY_PASSWORD: 'p' }) });
    assert.equal(both.auth.username, 'u');
    assert.equal(both.auth.password, 'p');
  });

  test('a bad password never appears in errors; a bad client secret is not echoed', async () => {
    const msg = await rejects(loadConfig({ env: env({ TRIBUTARY_PASSWORD: 'hunter2-secret' }) }));
    assert.ok(!msg.includes('hunter2-secret'));
    const url = await rejects(
      loadConfig({ env: env({ TRIBUTARY_CATALOG_URL: 'mysql://u:topsecretpw@127.0.0.1/x' }) }),
      'TRIBUTARY_CATALOG_URL',
    );
    assert.ok(!url.includes('topsecretpw'));
  });

  test('oauth enabled without an issuer fails', async () => {
    await rejects(
      loadConfig({ env: env({ TRIBUTARY_MCP_OAUTH_ENABLED: 'true' }) }),
      'api.mcp.oauth.issuer_url',
    );
    await rejects(
      loadConfig({ env: env({ TRIBUTARY_MCP_OAUTH_ISSUER_URL: 'ftp://x' }) }),
      'api.mcp.oauth.issuer_url',
      'TRIBUTARY_MCP_OAUTH_ISSUER_URL',
    );
  });

  test('redis URL must be redis:// or rediss://', async () => {
    await rejects(
      loadConfig({ env: env({ TRIBUTARY_REDIS_URL: 'http://127.0.0.1' }) }),
      'TRIBUTARY_REDIS_URL',
    );
  });
});

describe('loadConfig secret key', () => {
  test('TRIBUTARY_SECRET_KEY must be base64 of exactly 32 bytes', async () => {
    await rejects(
      loadConfig({ env: env({ TRIBUTARY_SECRET_KEY: randomBytes(16).toString('base64') }) }),
      'TRIBUTARY_SECRET_KEY',
    );
    await rejects(
      loadConfig({ env: env({ TRIBUTARY_SECRET_KEY: 'not base64 at all!!' }) }),
      'TRIBUTARY_SECRET_KEY',
    );
  });

  test('TRIBUTARY_SECRET_KEY_FILE is read (base64 text or 32 raw bytes)', async () => {
    const key = randomBytes(32);
    const b64 = join(dir, 'k64');
    writeFileSync(b64, `${key.toString('base64')}\n`);
    const raw = join(dir, 'kraw');
    writeFileSync(raw, key);
    const e = { TRIBUTARY_STORAGE_DIR: join(dir, 'kf') };
    assert.deepEqual((await loadConfig({ env: { ...e, TRIBUTARY_SECRET_KEY_FILE: b64 } })).secretKey, key);
    assert.deepEqual((await loadConfig({ env: { ...e, TRIBUTARY_SECRET_KEY_FILE: raw } })).secretKey, key);
    const bad = join(dir, 'kbad');
    writeFileSync(bad, 'short');
    await rejects(
      loadConfig({ env: { ...e, TRIBUTARY_SECRET_KEY_FILE: bad } }),
      'TRIBUTARY_SECRET_KEY_FILE',
      bad,
    );
    await rejects(
      loadConfig({ env: { ...e, TRIBUTARY_SECRET_KEY_FILE: join(dir, 'missing') } }),
      'TRIBUTARY_SECRET_KEY_FILE',
    );
  });

  test('setting both key variables fails', async () => {
    await rejects(loadConfig({ env: env({ TRIBUTARY_SECRET_KEY_FILE: '/x' }) }), 'only one');
  });

  test('without a key, one is created in the storage dir with mode 0600 and reused', async () => {
    const storage = join(dir, 'fresh', 'nested');
    const a = await loadConfig({ env: { TRIBUTARY_STORAGE_DIR: storage } });
    const keyPath = join(storage, 'secret.key');
    assert.equal(statSync(keyPath).mode & 0o777, 0o600);
    assert.equal(statSync(storage).mode & 0o777, 0o700);
    assert.equal(a.secretKey.length, 32);
    assert.deepEqual(Buffer.from(readFileSync(keyPath, 'utf8').trim(), 'base64'), a.secretKey);
    const b = await loadConfig({ env: { TRIBUTARY_STORAGE_DIR: storage } });
    assert.deepEqual(b.secretKey, a.secretKey);
  });

  test('a relative or ~ storage dir is made absolute', async () => {
    const c = await loadConfig({
      env: { TRIBUTARY_STORAGE_DIR: '~/x-tributary-test', TRIBUTARY_SECRET_KEY: KEY },
    });
    assert.ok(c.storageDir.endsWith('/x-tributary-test'));
    assert.ok(!c.storageDir.includes('~'));
  });
});
