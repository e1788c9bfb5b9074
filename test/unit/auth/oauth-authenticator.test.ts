/**
 * OAuthAuthenticator edge cases against a small authorization server on loopback whose
 * answers each test chooses (the full flow against oidc-provider is in the integration
 * tests). Time is injected so cache lifetimes are checked without waiting.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, test } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import pino from 'pino';
import { OAuthAuthenticator } from '../../../src/auth/oauth/authenticator.js';
import { IssuerDirectory } from '../../../src/auth/oauth/issuer-metadata.js';

interface Seen {
  path: string;
  authorization?: string;
  form: URLSearchParams;
}

let server: Server;
let issuer: string;
const seen: Seen[] = [];
let metadata: (issuer: string) => Record<string, unknown> | null;
let rfc8414 = true;
let introspection: (token: string) => { status: number; body: unknown };
const keys = await generateKeyPair('ES256', { extractable: true });
const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256' };
const RESOURCE = 'https://data.example.com/mcp/streamable';
const logs: string[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(c, _e, cb) {
      logs.push(String(c));
      cb();
    },
  }),
);

function body(req: IncomingMessage): Promise<string> {
  return new Promise((r) => {
    let b = '';
    req.on('data', (d) => {
      b += String(d);
    });
    req.on('end', () => r(b));
  });
}

before(async () => {
  server = createServer(async (req, res) => {
    const path = req.url ?? '/';
    const form = new URLSearchParams(await body(req));
    seen.push({ path, authorization: req.headers.authorization, form });
    const json = (status: number, b: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(b));
    };
    if (path === '/.well-known/oauth-authorization-server' && rfc8414) {
      const m = metadata(issuer);
      return m ? json(200, m) : json(404, {});
    }
    if (path === '/.well-known/openid-configuration') {
      const m = metadata(issuer);
      return m ? json(200, { ...m, from: 'oidc' }) : json(404, {});
    }
    if (path === '/jwks') return json(200, { keys: [jwk] });
    if (path === '/introspect') {
      const r = introspection(form.get('token') ?? '');
      return json(r.status, r.body);
    }
    json(404, {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(() => {
  seen.length = 0;
  rfc8414 = true;
  metadata = (iss) => ({ issuer: iss, jwks_uri: `${iss}/jwks`, introspection_endpoint: `${iss}/introspect` });
  introspection = () => ({ status: 200, body: { active: false } });
});

function authenticator(
  opts: { now?: () => number; client?: { clientId: string; clientSecret: string } | null } = {},
) {
  return new OAuthAuthenticator(
    {
      issuer,
      client: opts.client === undefined ? { clientId: 'rs', clientSecret: 'rs-secret-value' } : opts.client,
      scope: 'mcp:tools',
      resource: () => RESOURCE,
      now: opts.now,
    },
    logger,
  );
}

const introspections = () => seen.filter((s) => s.path === '/introspect').length;

describe('issuer discovery', () => {
  test('RFC 8414 metadata is preferred, OpenID Connect discovery is the fallback', async () => {
    const d1 = new IssuerDirectory(issuer);
    await d1.metadata();
    assert.deepEqual(
      seen.map((s) => s.path),
      ['/.well-known/oauth-authorization-server'],
    );
    seen.length = 0;
    rfc8414 = false;
    const d2 = new IssuerDirectory(issuer);
    await d2.metadata();
    assert.deepEqual(
      seen.map((s) => s.path),
      ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'],
    );
  });

  test('metadata is cached', async () => {
    const d = new IssuerDirectory(issuer);
    await d.metadata();
    await d.metadata();
    await Promise.all([d.metadata(), d.metadata()]);
    assert.equal(seen.length, 1);
  });

  test('a document naming another issuer is refused', async () => {
    metadata = () => ({ issuer: 'https://impostor.example', jwks_uri: `${issuer}/jwks` });
    await assert.rejects(new IssuerDirectory(issuer).metadata(), /names issuer 'https:\/\/impostor.example'/);
  });

  test('endpoints over plain http off loopback are refused (and never called)', async () => {
    metadata = (iss) => ({ issuer: iss, jwks_uri: 'http://keys.invalid/jwks' });
    await assert.rejects(new IssuerDirectory(issuer).metadata(), /jwks_uri .* must use https/);
    metadata = (iss) => ({ issuer: iss, introspection_endpoint: 'http://as.invalid/introspect' });
    await assert.rejects(new IssuerDirectory(issuer).metadata(), /introspection_endpoint .* must use https/);
    assert.ok(seen.every((s) => s.path.startsWith('/.well-known/')));
  });

  test('an issuer that comes up later is picked up after a short back-off', async () => {
    let now = 0;
    metadata = () => null;
    const d = new IssuerDirectory(issuer, { now: () => now, retryMs: 2_000 });
    await assert.rejects(d.metadata(), /no authorization server metadata/);
    metadata = (iss) => ({ issuer: iss, jwks_uri: `${iss}/jwks` });
    await assert.rejects(d.metadata(), /no authorization server metadata/, 'within the back-off');
    now = 2_000;
    assert.equal((await d.metadata()).jwks_uri, `${issuer}/jwks`);
  });
});

describe('introspection', () => {
  test('authenticates with client_secret_basic, form-encoding id and secret', async () => {
    introspection = () => ({
      status: 200,
      body: { active: true, aud: RESOURCE, scope: 'mcp:tools', iss: issuer },
    });
    const a = authenticator({ client: { clientId: 'rs:1', clientSecret: 'p@ss word' } });
    assert.equal((await a.authenticate('opaque-1')).result, 'ok');
    const req = seen.find((s) => s.path === '/introspect')!;
    assert.equal(req.authorization, `Basic ${Buffer.from('rs%3A1:p%40ss+word').toString('base64')}`);
    assert.equal(req.form.get('token'), 'opaque-1');
    assert.equal(req.form.get('token_type_hint'), 'access_token');
    assert.equal(req.form.get('client_secret'), null);
  });

  test('uses client_secret_post when that is all the issuer offers', async () => {
    metadata = (iss) => ({
      issuer: iss,
      introspection_endpoint: `${iss}/introspect`,
      introspection_endpoint_auth_methods_supported: ['client_secret_post'],
    });
    introspection = () => ({ status: 200, body: { active: true, aud: RESOURCE, scope: 'mcp:tools' } });
    assert.equal((await authenticator().authenticate('opaque-2')).result, 'ok');
    const req = seen.find((s) => s.path === '/introspect')!;
    assert.equal(req.authorization, undefined);
    assert.equal(req.form.get('client_id'), 'rs');
    assert.equal(req.form.get('client_secret'), 'rs-secret-value');
  });

  test('answers are cached at most 60 s', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    introspection = () => ({
      status: 200,
      body: { active: true, aud: RESOURCE, scope: 'mcp:tools', exp: now / 1000 + 3600 },
    });
    const a = authenticator({ now: () => now });
    assert.equal((await a.authenticate('t')).result, 'ok');
    now += 59_000;
    assert.equal((await a.authenticate('t')).result, 'ok');
    assert.equal(introspections(), 1);
    now += 1_000;
    assert.equal((await a.authenticate('t')).result, 'ok');
    assert.equal(introspections(), 2);
  });

  test('and never past the token expiry', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const exp = now / 1000 + 10;
    introspection = () => ({ status: 200, body: { active: true, aud: RESOURCE, scope: 'mcp:tools', exp } });
    const a = authenticator({ now: () => now });
    assert.equal((await a.authenticate('t')).result, 'ok');
    now += 10_000;
    introspection = () => ({ status: 200, body: { active: false } });
    assert.equal((await a.authenticate('t')).result, 'invalid');
    assert.equal(introspections(), 2);
  });

  test('inactive, wrong audience, wrong issuer and missing scope', async () => {
    const a = authenticator();
    assert.equal((await a.authenticate('inactive')).result, 'invalid');
    introspection = () => ({
      status: 200,
      body: { active: true, aud: 'https://other/mcp/streamable', scope: 'mcp:tools' },
    });
    assert.equal((await a.authenticate('aud')).result, 'invalid');
    introspection = () => ({
      status: 200,
      body: { active: true, aud: RESOURCE, scope: 'mcp:tools', iss: 'https://x' },
    });
    assert.equal((await a.authenticate('iss')).result, 'invalid');
    introspection = () => ({ status: 200, body: { active: true, aud: RESOURCE, scope: 'read' } });
    assert.equal((await a.authenticate('scope')).result, 'insufficient_scope');
    introspection = () => ({ status: 200, body: { active: 'true', aud: RESOURCE, scope: 'mcp:tools' } });
    assert.equal((await a.authenticate('not-boolean')).result, 'invalid', 'active must be the boolean true');
  });

  test('refused client credentials make the issuer unavailable, without logging the secret', async () => {
    introspection = () => ({ status: 401, body: { error: 'invalid_client' } });
    const r = await authenticator().authenticate('t');
    assert.equal(r.result, 'unavailable');
    assert.ok(!logs.join('').includes('rs-secret-value'));
  });

  test('without client credentials an opaque token cannot be checked', async () => {
    const r = await authenticator({ client: null }).authenticate('opaque');
    assert.equal(r.result, 'invalid');
    assert.equal(introspections(), 0);
  });
});

describe('JWT access tokens', () => {
  const sign = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1', ...header }).sign(keys.privateKey);
  const now = () => Math.floor(Date.now() / 1000);

  test('verified with the JWKS, never introspected', async () => {
    const t = await sign({ iss: issuer, aud: RESOURCE, scope: 'mcp:tools', sub: 'u1', exp: now() + 60 });
    const r = await authenticator().authenticate(t);
    assert.equal(r.result, 'ok');
    assert.ok(r.result === 'ok' && r.principal.id === 'u1');
    assert.equal(introspections(), 0);
  });

  test('an HMAC token signed with a public value is refused', async () => {
    const { SignJWT: S } = await import('jose');
    const t = await new S({ iss: issuer, aud: RESOURCE, scope: 'mcp:tools', exp: now() + 60 })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .sign(new TextEncoder().encode(JSON.stringify(jwk)));
    assert.equal((await authenticator().authenticate(t)).result, 'invalid');
  });

  test('alg none is not taken for a JWT', async () => {
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const t = `${enc({ alg: 'none' })}.${enc({ iss: issuer, aud: RESOURCE, scope: 'mcp:tools', exp: now() + 60 })}.`;
    assert.equal((await authenticator({ client: null }).authenticate(t)).result, 'invalid');
  });

  test('an unsigned JWT (alg none, any case) is invalid without any request to the issuer', async () => {
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    for (const alg of ['none', 'NONE', 'nOnE']) {
      const t = `${enc({ alg })}.${enc({ iss: issuer, aud: RESOURCE, scope: 'mcp:tools', exp: now() + 60 })}.`;
      introspection = () => ({ status: 400, body: { error: 'invalid_request' } });
      const a = authenticator();
      const before = seen.length;
      const r = await a.authenticate(t);
      assert.equal(r.result, 'invalid', alg);
      assert.equal(seen.length, before, `no request for alg ${alg}`);
    }
  });

  test('introspection refusing the token with a 4xx makes it invalid, not the issuer unavailable', async () => {
    for (const status of [400, 410, 422]) {
      introspection = () => ({ status, body: { error: 'invalid_request' } });
      const r = await authenticator().authenticate(`opaque-${status}`);
      assert.equal(r.result, 'invalid', String(status));
    }
    for (const status of [401, 403, 404, 408, 429, 500, 503]) {
      introspection = () => ({ status, body: { error: 'x' } });
      const r = await authenticator().authenticate(`opaque-${status}`);
      assert.equal(r.result, 'unavailable', String(status));
    }
  });

  test('a jku header does not make us fetch keys from elsewhere', async () => {
    const t = await sign(
      { iss: issuer, aud: RESOURCE, scope: 'mcp:tools', exp: now() + 60 },
      { kid: 'unknown', jku: 'http://127.0.0.1:1/evil-jwks' },
    );
    assert.equal((await authenticator().authenticate(t)).result, 'invalid');
    assert.ok(seen.every((s) => !s.path.includes('evil')));
  });
});
