import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { authMode, checkAuthConfig, warnIfExposed } from '../../../src/auth/index.js';
import { introspectionAuthMethod } from '../../../src/auth/oauth/introspection.js';
import { discoveryUrls } from '../../../src/auth/oauth/issuer-metadata.js';
import {
  protectedResourceMetadata,
  publicBaseUrl,
  resourceMetadataUrl,
  resourceUrl,
} from '../../../src/auth/oauth/resource.js';
import { isLoopbackHost, issuerUrlProblem } from '../../../src/auth/oauth/url-policy.js';
import { ConfigError } from '../../../src/config/errors.js';
import { loadConfig } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/types.js';
import { createLogger } from '../../../src/core/logger.js';
import { originMatcher } from '../../../src/http/hooks/cors.js';
import { allowedHostPatterns, hostAllowed, parseHost } from '../../../src/http/hooks/host-check.js';
import { isApiOrMcp, needsCredential } from '../../../src/http/hooks/paths.js';

const KEY = Buffer.alloc(32, 7).toString('base64');

async function config(env: Record<string, string> = {}): Promise<Config> {
  return loadConfig({
    env: { TRIBUTARY_STORAGE_DIR: '/tmp/tributary-auth-unit', TRIBUTARY_SECRET_KEY: KEY, ...env },
  });
}

describe('url policy', () => {
  test('loopback names and addresses', () => {
    for (const h of [
      'localhost',
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
      'a.localhost',
    ]) {
      assert.equal(isLoopbackHost(h), true, h);
    }
    for (const h of ['example.com', '10.0.0.1', '0.0.0.0', '::', '192.168.1.1', 'localhost.example.com']) {
      assert.equal(isLoopbackHost(h), false, h);
    }
  });

  test('issuer must be https except on loopback', () => {
    assert.equal(issuerUrlProblem('https://as.example.com'), null);
    assert.equal(issuerUrlProblem('http://127.0.0.1:9000'), null);
    assert.equal(issuerUrlProblem('http://localhost:9000/realms/x'), null);
    assert.match(issuerUrlProblem('http://as.example.com') ?? '', /https/);
    assert.match(issuerUrlProblem('ftp://as.example.com') ?? '', /https/);
    assert.match(issuerUrlProblem('https://u:p@as.example.com') ?? '', /credentials/);
    assert.match(issuerUrlProblem('https://as.example.com/?a=1') ?? '', /query/);
    assert.equal(issuerUrlProblem('https://as.example.com/introspect?a=1', { allowQuery: true }), null);
    assert.match(issuerUrlProblem('not a url') ?? '', /valid URL/);
  });
});

describe('issuer discovery', () => {
  test('RFC 8414 location first, then OpenID Connect', () => {
    assert.deepEqual(discoveryUrls('https://as.example.com'), [
      'https://as.example.com/.well-known/oauth-authorization-server',
      'https://as.example.com/.well-known/openid-configuration',
    ]);
    assert.deepEqual(discoveryUrls('https://as.example.com/realms/r1/'), [
      'https://as.example.com/.well-known/oauth-authorization-server/realms/r1',
      'https://as.example.com/realms/r1/.well-known/openid-configuration',
      'https://as.example.com/.well-known/openid-configuration/realms/r1',
    ]);
  });

  test('introspection uses client_secret_basic unless only client_secret_post is offered', () => {
    const base = { issuer: 'https://as' };
    assert.equal(introspectionAuthMethod(base), 'client_secret_basic');
    assert.equal(
      introspectionAuthMethod({
        ...base,
        introspection_endpoint_auth_methods_supported: ['client_secret_post'],
      }),
      'client_secret_post',
    );
    assert.equal(
      introspectionAuthMethod({
        ...base,
        introspection_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
      }),
      'client_secret_basic',
    );
    assert.equal(
      introspectionAuthMethod({
        ...base,
        introspection_endpoint_auth_methods_supported: ['private_key_jwt'],
      }),
      'client_secret_basic',
    );
  });
});

describe('resource URL', () => {
  test('public_url wins, without a trailing slash', async () => {
    const c = await config({
      TRIBUTARY_MCP_OAUTH_PUBLIC_URL: 'https://data.example.com/',
      TRIBUTARY_HTTP_HOST: '0.0.0.0',
    });
    const base = publicBaseUrl(c, 1234);
    assert.equal(base, 'https://data.example.com');
    assert.equal(resourceUrl(base), 'https://data.example.com/mcp/streamable');
    assert.equal(
      resourceMetadataUrl(base),
      'https://data.example.com/.well-known/oauth-protected-resource/mcp/streamable',
    );
  });

  test('derived from the listening address, wildcards read as 127.0.0.1', async () => {
    assert.equal(
      publicBaseUrl(await config({ TRIBUTARY_HTTP_HOST: '0.0.0.0' }), 5000),
      'http://127.0.0.1:5000',
    );
    assert.equal(publicBaseUrl(await config({ TRIBUTARY_HTTP_HOST: '::' }), 5000), 'http://127.0.0.1:5000');
    assert.equal(publicBaseUrl(await config({ TRIBUTARY_HTTP_HOST: '::1' }), 5000), 'http://[::1]:5000');
    assert.equal(publicBaseUrl(await config({ TRIBUTARY_HTTP_PORT: '8123' })), 'http://127.0.0.1:8123');
  });

  test('RFC 9728 metadata names the resource, the issuer and the scope', async () => {
    const c = await config({
      TRIBUTARY_MCP_OAUTH_ENABLED: 'true',
      TRIBUTARY_MCP_OAUTH_ISSUER_URL: 'https://as.example.com',
      TRIBUTARY_MCP_OAUTH_SCOPE: 'data:read',
    });
    assert.deepEqual(protectedResourceMetadata(c, 'https://d.example'), {
      resource: 'https://d.example/mcp/streamable',
      authorization_servers: ['https://as.example.com'],
      scopes_supported: ['data:read'],
      bearer_methods_supported: ['header'],
      resource_name: 'Tributary',
    });
  });
});

describe('auth configuration', () => {
  test('modes', async () => {
    assert.equal(authMode(await config()), 'none');
    assert.equal(authMode(await config({ TRIBUTARY_USERNAME: 'u', TRIBUTARY_PASSWORD: 'p' })), 'token');
    const oauth = {
      TRIBUTARY_MCP_OAUTH_ENABLED: '1',
      TRIBUTARY_MCP_OAUTH_ISSUER_URL: 'https://as.example.com',
    };
    assert.equal(authMode(await config(oauth)), 'oauth');
    assert.equal(
      authMode(await config({ ...oauth, TRIBUTARY_USERNAME: 'u', TRIBUTARY_PASSWORD: 'p' })),
      'token+oauth',
    );
  });

  const bad: [Record<string, string>, RegExp][] = [
    [
      { TRIBUTARY_MCP_OAUTH_ENABLED: 'true', TRIBUTARY_MCP_OAUTH_ISSUER_URL: 'http://as.example.com' },
      /TRIBUTARY_MCP_OAUTH_ISSUER_URL.*https/,
    ],
    [
      {
        TRIBUTARY_MCP_OAUTH_ENABLED: 'true',
        TRIBUTARY_MCP_OAUTH_ISSUER_URL: 'https://as.example.com',
        TRIBUTARY_MCP_OAUTH_CLIENT_ID: 'tributary',
      },
      /TRIBUTARY_MCP_OAUTH_CLIENT_SECRET/,
    ],
    [
      {
        TRIBUTARY_MCP_OAUTH_ENABLED: 'true',
        TRIBUTARY_MCP_OAUTH_ISSUER_URL: 'https://as.example.com',
        TRIBUTARY_MCP_OAUTH_CLIENT_SECRET: 'hunter2-client-secret',
      },
      /TRIBUTARY_MCP_OAUTH_CLIENT_ID/,
    ],
    [
      {
        TRIBUTARY_MCP_OAUTH_ENABLED: 'true',
        TRIBUTARY_MCP_OAUTH_ISSUER_URL: 'https://as.example.com',
        TRIBUTARY_MCP_OAUTH_SCOPE: 'two scopes',
      },
      /TRIBUTARY_MCP_OAUTH_SCOPE/,
    ],
  ];
  for (const [env, re] of bad) {
    test(`refused, naming the variable: ${re.source}`, async () => {
      const c = await config(env);
      assert.throws(
        () => checkAuthConfig(c),
        (e: Error) => e instanceof ConfigError && re.test(e.message) && !e.message.includes('hunter2'),
      );
    });
  }

  test('a username without a password is refused (Config built by hand)', async () => {
    const c = await config();
    c.auth.username = 'admin';
    assert.throws(() => checkAuthConfig(c), /TRIBUTARY_PASSWORD/);
    c.auth = { ...c.auth, username: null, password: 'pw' };
    assert.throws(() => checkAuthConfig(c), /TRIBUTARY_USERNAME/);
  });
});

describe('host check', () => {
  test('parses Host values', () => {
    assert.deepEqual(parseHost('Example.COM.:8080'), { name: 'example.com', port: '8080' });
    assert.deepEqual(parseHost('[::1]:47334'), { name: '[::1]', port: '47334' });
    assert.deepEqual(parseHost('[::1]'), { name: '[::1]', port: null });
    assert.equal(parseHost('::1'), null);
    assert.deepEqual(parseHost('::1', true), { name: '[::1]', port: null });
    assert.equal(parseHost('a:b'), null);
    assert.equal(parseHost('[::1]x'), null);
    assert.equal(parseHost(''), null);
  });

  test('defaults allow local names on any port and the configured host', async () => {
    const c = await config({ TRIBUTARY_HTTP_HOST: '10.1.2.3' });
    const p = allowedHostPatterns(c);
    for (const h of ['localhost', 'localhost:1', '127.0.0.1:47334', '[::1]:80', '10.1.2.3:47334']) {
      assert.equal(hostAllowed(h, p), true, h);
    }
    for (const h of ['evil.example', 'evil.example:47334', '127.0.0.2', undefined, 'localhost:x']) {
      assert.equal(hostAllowed(h, p), false, String(h));
    }
  });

  test('an entry with a port allows only that port', async () => {
    const c = await config({ TRIBUTARY_MCP_ALLOWED_HOSTS: 'data.example.com:443,other.example' });
    const p = allowedHostPatterns(c);
    assert.equal(hostAllowed('data.example.com:443', p), true);
    assert.equal(hostAllowed('data.example.com', p), false);
    assert.equal(hostAllowed('other.example:9', p), true);
    assert.equal(hostAllowed('localhost', p), false);
  });
});

describe('origins', () => {
  test('default regex allows local origins only', async () => {
    const ok = originMatcher(await config());
    assert.equal(ok('http://localhost:3000'), true);
    assert.equal(ok('https://127.0.0.1'), true);
    assert.equal(ok('http://[::1]:8080'), true);
    assert.equal(ok('https://evil.example'), false);
    assert.equal(ok('http://localhost.evil.example'), false);
    assert.equal(ok('null'), false);
  });

  test('listed origins are allowed, case-insensitively; an empty regex allows nothing else', async () => {
    const ok = originMatcher(
      await config({
        TRIBUTARY_MCP_ALLOW_ORIGINS: 'https://app.example.com, https://b.example',
        TRIBUTARY_MCP_ALLOW_ORIGIN_REGEXP: '',
      }),
    );
    assert.equal(ok('https://app.example.com'), true);
    assert.equal(ok('https://APP.example.com'), true);
    assert.equal(ok('https://b.example'), true);
    assert.equal(
      ok('http://localhost:3000'),
      true,
      'an empty env value means unset: the default regex stays',
    );
    assert.equal(ok('https://c.example'), false);
  });

  test('the regex must match the whole origin', async () => {
    const ok = originMatcher(
      await config({ TRIBUTARY_MCP_ALLOW_ORIGIN_REGEXP: 'https://app\\.example\\.com' }),
    );
    assert.equal(ok('https://app.example.com'), true);
    assert.equal(ok('https://app.example.com.evil.net'), false);
    assert.equal(ok('http://x/https://app.example.com'), false);
  });
});

describe('paths', () => {
  test('what needs a credential', () => {
    for (const p of [
      '/api/sql/query',
      '/api/status',
      '/api/logout',
      '/api/files/:name',
      '/mcp/sse',
      '/mcp/messages',
      '/mcp/streamable',
      '/api',
      '/mcp',
    ]) {
      assert.equal(needsCredential(p), true, p);
    }
    for (const p of [
      '/api/login',
      '/mcp/status',
      '/.well-known/oauth-protected-resource',
      '/',
      '/apix',
      '/mcpx',
    ]) {
      assert.equal(needsCredential(p), false, p);
    }
    assert.equal(isApiOrMcp('/mcp/status'), true);
  });
});

describe('open-server warning', () => {
  function captured() {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _e, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    return { logger: createLogger('info', sink), lines };
  }

  test('no auth on a non-loopback host logs a clear warning', async () => {
    const { logger, lines } = captured();
    warnIfExposed(await config({ TRIBUTARY_HTTP_HOST: '0.0.0.0' }), logger);
    await new Promise((r) => setImmediate(r));
    assert.equal(lines.length, 1);
    const line = JSON.parse(lines[0]!) as { level: number; msg: string };
    assert.equal(line.level, 40);
    assert.match(line.msg, /authentication is OFF/);
    assert.match(line.msg, /TRIBUTARY_USERNAME/);
  });

  test('silent on loopback, or when auth is on', async () => {
    const { logger, lines } = captured();
    warnIfExposed(await config(), logger);
    warnIfExposed(await config({ TRIBUTARY_HTTP_HOST: '::1' }), logger);
    warnIfExposed(
      await config({ TRIBUTARY_HTTP_HOST: '0.0.0.0', TRIBUTARY_USERNAME: 'u', TRIBUTARY_PASSWORD: 'p' }),
      logger,
    );
    await new Promise((r) => setImmediate(r));
    assert.equal(lines.length, 0);
  });
});
