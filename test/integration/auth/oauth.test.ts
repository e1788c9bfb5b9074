import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AGENTS, GROUPS, INTROSPECTION_CLIENT, startIssuer, type TestIssuer } from './helpers/issuer.js';
import { startTestServer, type TestServer } from './helpers/server.js';

function oauthEnv(issuer: TestIssuer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    TRIBUTARY_MCP_OAUTH_ENABLED: 'true',
    TRIBUTARY_MCP_OAUTH_ISSUER_URL: issuer.issuer,
    TRIBUTARY_MCP_OAUTH_CLIENT_ID: INTROSPECTION_CLIENT.id,
    TRIBUTARY_MCP_OAUTH_CLIENT_SECRET: INTROSPECTION_CLIENT.secret,
    ...extra,
  };
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

describe('OAuth 2.0 resource server against a real authorization server', () => {
  let issuer: TestIssuer;
  let other: TestIssuer;
  let server: TestServer;
  let resource: string;
  const seen: string[] = [];

  before(async () => {
    issuer = await startIssuer();
    other = await startIssuer();
    server = await startTestServer(oauthEnv(issuer));
    resource = `${server.url}/mcp/streamable`;
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    await other?.close();
  });

  async function status(headers: Record<string, string> = {}) {
    const res = await fetch(`${server.url}/api/status`, { headers });
    return { res, body: (await res.json()) as Record<string, unknown> };
  }

  test('publishes RFC 9728 metadata at both well-known paths, without a token', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp/streamable',
    ]) {
      const res = await fetch(server.url + path);
      assert.equal(res.status, 200, path);
      const doc = (await res.json()) as Record<string, unknown>;
      assert.equal(doc.resource, resource);
      assert.deepEqual(doc.authorization_servers, [issuer.issuer]);
      assert.deepEqual(doc.scopes_supported, ['mcp:tools']);
      assert.deepEqual(doc.bearer_methods_supported, ['header']);
    }
  });

  test('a request without a token gets 401 pointing at the metadata', async () => {
    for (const path of ['/api/status', '/mcp/streamable', '/mcp/sse', '/mcp/messages?session_id=x']) {
      const res = await fetch(server.url + path);
      assert.equal(res.status, 401, path);
      const challenge = res.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Bearer /);
      assert.ok(
        challenge.includes(
          `resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp/streamable"`,
        ),
        challenge,
      );
      assert.equal(((await res.json()) as { error_code: string }).error_code, 'unauthorized');
    }
  });

  test('/mcp/status stays public', async () => {
    const res = await fetch(`${server.url}/mcp/status`);
    assert.equal(res.status, 200);
  });

  test('a valid JWT access token (checked against the JWKS) is accepted', async () => {
    const token = await issuer.token('jwt', resource, 'mcp:tools');
    seen.push(token);
    assert.equal(token.split('.').length, 3);
    const before = issuer.introspections();
    const { res, body } = await status(bearer(token));
    assert.equal(res.status, 200);
    assert.equal(body.auth_mode, 'oauth');
    assert.equal(issuer.introspections(), before, 'a JWT is verified locally, not introspected');
  });

  test('a valid opaque token is introspected, and the answer cached', async () => {
    const token = await issuer.token('opaque', resource, 'mcp:tools other');
    seen.push(token);
    assert.notEqual(token.split('.').length, 3);
    const before = issuer.introspections();
    assert.equal((await status(bearer(token))).res.status, 200);
    assert.equal((await status(bearer(token))).res.status, 200);
    assert.equal(issuer.introspections(), before + 1);
  });

  test('a token for another audience is refused with 401', async () => {
    for (const kind of ['jwt', 'opaque'] as const) {
      const token = await issuer.token(kind, 'https://other-resource.example/mcp/streamable', 'mcp:tools');
      seen.push(token);
      const { res } = await status(bearer(token));
      assert.equal(res.status, 401, kind);
      assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    }
  });

  test('a token without the configured scope gets 403 insufficient_scope', async () => {
    for (const kind of ['jwt', 'opaque'] as const) {
      const token = await issuer.token(kind, resource, 'other');
      seen.push(token);
      const { res, body } = await status(bearer(token));
      assert.equal(res.status, 403, kind);
      assert.equal(
        res.headers.get('www-authenticate'),
        `Bearer error="insufficient_scope", scope="mcp:tools", resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp/streamable"`,
      );
      assert.equal(body.error, 'insufficient_scope');
      assert.equal(typeof body.error_description, 'string');
    }
  });

  test('an expired token is refused (past the 60 s skew), a barely expired one accepted', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: issuer.issuer,
      aud: resource,
      scope: 'mcp:tools',
      client_id: 'agent-jwt',
      sub: 'agent-jwt',
    };
    const expired = await issuer.mint({ ...claims, iat: now - 3600, exp: now - 120 });
    seen.push(expired);
    assert.equal((await status(bearer(expired))).res.status, 401);
    const withinSkew = await issuer.mint({ ...claims, iat: now - 600, exp: now - 10 });
    assert.equal((await status(bearer(withinSkew))).res.status, 200);
    const noExp = await issuer.mint({ ...claims, iat: now });
    assert.equal((await status(bearer(noExp))).res.status, 401, 'a JWT without exp is refused');
  });

  test('a token from another issuer is refused, JWT or opaque', async () => {
    for (const kind of ['jwt', 'opaque'] as const) {
      const token = await other.token(kind, resource, 'mcp:tools');
      seen.push(token);
      assert.equal((await status(bearer(token))).res.status, 401, kind);
    }
    // Signed by the other issuer's key but claiming to come from ours.
    const now = Math.floor(Date.now() / 1000);
    const forged = await other.mint({
      iss: issuer.issuer,
      aud: resource,
      scope: 'mcp:tools',
      iat: now,
      exp: now + 600,
    });
    assert.equal((await status(bearer(forged))).res.status, 401);
  });

  test('garbage and non-Bearer credentials are refused', async () => {
    for (const h of ['Bearer not-a-token', 'Bearer a.b.c', 'Basic dXNlcjpwYXNz', 'Bearer ']) {
      assert.equal((await status({ authorization: h })).res.status, 401, h);
    }
  });

  test('the official MCP client connects with a token over Streamable HTTP and SSE', async () => {
    const token = await issuer.token('jwt', resource, 'mcp:tools');
    seen.push(token);
    const transports = [
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/streamable`), {
        requestInit: { headers: bearer(token) },
      }),
      new SSEClientTransport(new URL(`${server.url}/mcp/sse`), { requestInit: { headers: bearer(token) } }),
    ];
    for (const transport of transports) {
      const client = new Client({ name: 'auth-test', version: '1.0.0' });
      await client.connect(transport);
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'query'));
      const r = await client.callTool({ name: 'query', arguments: { query: 'SELECT 1' } });
      assert.notEqual(r.isError, true);
      await client.close();
    }
  });

  test('the statement runs as the token sub (else client_id) with the groups claim, over HTTP and MCP', async () => {
    const who = 'SELECT CURRENT_USER() AS u, CURRENT_GROUPS() AS g';
    // A JWT's groups claim is an array; the opaque token's (from introspection) a space-separated string.
    for (const [kind, groups] of [
      ['jwt', GROUPS.jwt.join(',')],
      ['opaque', GROUPS.opaque.replace(' ', ',')],
    ] as const) {
      const token = await issuer.token(kind, resource, 'mcp:tools');
      seen.push(token);
      const res = await fetch(`${server.url}/api/sql/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ query: who }),
      });
      // Client-credentials tokens have no sub: the principal is the client id.
      assert.deepEqual(((await res.json()) as { data: unknown }).data, [[AGENTS[kind].id, groups]], kind);
      const client = new Client({ name: 'auth-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/streamable`), {
          requestInit: { headers: bearer(token) },
        }),
      );
      const r = await client.callTool({ name: 'query', arguments: { query: who } });
      const result = (r.structuredContent as { result: { data: unknown } }).result;
      assert.deepEqual(result.data, [[AGENTS[kind].id, groups]], kind);
      await client.close();
    }
    // A JWT with a sub: the sub is the user; another claim name is read when configured.
    const named = await startTestServer(oauthEnv(issuer, { TRIBUTARY_MCP_OAUTH_GROUPS_CLAIM: 'roles' }));
    try {
      const jwt = await issuer.mint({
        iss: issuer.issuer,
        sub: 'ana@example.com',
        aud: `${named.url}/mcp/streamable`,
        scope: 'mcp:tools',
        roles: ['finance', 'eu', 7],
        groups: ['ignored'],
        exp: Math.floor(Date.now() / 1000) + 300,
      });
      seen.push(jwt);
      const res = await fetch(`${named.url}/api/sql/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(jwt) },
        body: JSON.stringify({ query: who }),
      });
      assert.deepEqual(((await res.json()) as { data: unknown }).data, [['ana@example.com', 'finance,eu']]);
    } finally {
      await named.close();
    }
  });

  test('the MCP client without a token cannot connect', async () => {
    for (const transport of [
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/streamable`)),
      new SSEClientTransport(new URL(`${server.url}/mcp/sse`)),
    ]) {
      const client = new Client({ name: 'auth-test', version: '1.0.0' });
      await assert.rejects(client.connect(transport));
      await client.close().catch(() => {});
    }
  });

  test('no token or client secret appears in the logs', () => {
    const all = server.logs.join('\n');
    assert.ok(all.length > 0);
    assert.ok(seen.length > 5);
    for (const secret of [...seen, INTROSPECTION_CLIENT.secret]) assert.ok(!all.includes(secret));
  });
});

describe('OAuth with a client_secret_post-only issuer', () => {
  test('introspection authenticates with client_secret_post', async () => {
    const issuer = await startIssuer({ postOnly: true });
    const server = await startTestServer(oauthEnv(issuer));
    try {
      const resource = `${server.url}/mcp/streamable`;
      const token = await issuer.token('opaque', resource, 'mcp:tools');
      const res = await fetch(`${server.url}/api/status`, { headers: bearer(token) });
      assert.equal(res.status, 200);
      assert.equal(issuer.introspections(), 1);
    } finally {
      await server.close();
      await issuer.close();
    }
  });
});

describe('OAuth and personal access tokens together', () => {
  test('either kind of token is accepted', async () => {
    const issuer = await startIssuer();
    const server = await startTestServer(
      oauthEnv(issuer, { TRIBUTARY_USERNAME: 'admin', TRIBUTARY_PASSWORD: 'pw-for-both-modes' }),
    );
    try {
      const login = await fetch(`${server.url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'pw-for-both-modes' }),
      });
      assert.equal(login.status, 200);
      const pat = ((await login.json()) as { token: string }).token;
      const introspectionsBefore = issuer.introspections();
      const r1 = await fetch(`${server.url}/api/status`, { headers: bearer(pat) });
      assert.equal(r1.status, 200);
      assert.equal(((await r1.json()) as { auth_mode: string }).auth_mode, 'token+oauth');
      assert.equal(
        issuer.introspections(),
        introspectionsBefore,
        'a personal token is never sent to the issuer',
      );
      const oauthToken = await issuer.token('opaque', `${server.url}/mcp/streamable`, 'mcp:tools');
      assert.equal((await fetch(`${server.url}/api/status`, { headers: bearer(oauthToken) })).status, 200);
      assert.equal((await fetch(`${server.url}/api/status`)).status, 401);
    } finally {
      await server.close();
      await issuer.close();
    }
  });
});

describe('OAuth issuer unreachable', () => {
  test('a token that cannot be checked gets 503, not 200 or a misleading 401', async () => {
    const issuer = await startIssuer();
    const url = issuer.issuer;
    await issuer.close();
    const server = await startTestServer({
      TRIBUTARY_MCP_OAUTH_ENABLED: 'true',
      TRIBUTARY_MCP_OAUTH_ISSUER_URL: url,
      TRIBUTARY_MCP_OAUTH_CLIENT_ID: INTROSPECTION_CLIENT.id,
      TRIBUTARY_MCP_OAUTH_CLIENT_SECRET: INTROSPECTION_CLIENT.secret,
    });
    try {
      const res = await fetch(`${server.url}/api/status`, { headers: bearer('some-opaque-token') });
      assert.equal(res.status, 503);
      assert.equal(((await res.json()) as { error_code: string }).error_code, 'auth_unavailable');
      assert.equal((await fetch(`${server.url}/api/status`)).status, 401);
      assert.ok(!server.logs.join('\n').includes(INTROSPECTION_CLIENT.secret));
    } finally {
      await server.close();
    }
  });
});
