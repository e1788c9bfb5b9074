import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Resolver } from '../../../../src/egress/agent.js';
import { startApp, type TestApp } from './harness.js';
import { startUpstream, type Upstream } from './upstream.js';

// With allow_private_networks off, every spelling of loopback must be refused before a
// single byte reaches the upstream. Upstreams listen on 127.0.0.1 and ::1 only; the
// injected resolver means no real DNS lookup happens for the public-looking name.

const TOKEN = 'refusal-test-token-7f3a9c';

let v4: Upstream;
let v6: Upstream;
let off: TestApp;
let on: TestApp;
let resolverCalls: string[] = [];

const fakeDns: Resolver = async (host) => {
  resolverCalls.push(host);
  if (host === 'api.example.com') return [{ address: '127.0.0.1', family: 4 }];
  if (host === 'mixed.example.com') {
    // One admissible answer and one that is never admissible: the whole name is refused.
    return [
      { address: '127.0.0.1', family: 4 },
      { address: 'fd00:ec2::254', family: 6 },
    ];
  }
  if (host === 'nxdomain.example.com') throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  if (host === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw new Error(`unexpected lookup of ${host}`);
};

function hits(): number {
  return v4.hits + v6.hits;
}

before(async () => {
  v4 = await startUpstream('127.0.0.1');
  v6 = await startUpstream('::1');
  off = await startApp({ allowPrivate: false, timeoutMs: 2000, resolver: fakeDns });
  on = await startApp({ allowPrivate: true, timeoutMs: 2000, resolver: fakeDns });
});

after(async () => {
  await off?.close();
  await on?.close();
  await v4?.close();
  await v6?.close();
});

describe('private networks off', () => {
  const spellings = (p: number, p6: number) => [
    `http://127.0.0.1:${p}`,
    `http://127.1:${p}`,
    `http://2130706433:${p}`,
    `http://0x7f000001:${p}`,
    `http://0177.0.0.1:${p}`,
    `http://[::1]:${p6}`,
    `http://[::ffff:127.0.0.1]:${p}`,
    `http://0.0.0.0:${p}`,
    `http://localhost:${p}`,
  ];

  test('every loopback spelling is refused with private_address and the upstream sees nothing', async () => {
    let i = 0;
    for (const base of spellings(v4.port, v6.port)) {
      const name = `lo${i++}`;
      off.sources.add(name, 'rest_api', { base_url: base, bearer_token: TOKEN, allowed_hosts: ['*'] });
      const r = await off.call(name, { method: 'GET', path: '/echo' });
      assert.equal(r.status, 403, `${base}: ${r.text}`);
      assert.equal(r.json.error_code, 'private_address', base);
      assert.ok(!r.text.includes(TOKEN));
      const tr = await off.call(name, {}, '/test');
      assert.equal(tr.status, 200);
      assert.equal(tr.json.ok, false);
      assert.equal(tr.json.error_code, 'private_address', base);
    }
    assert.equal(hits(), 0);
  });

  test('the default allowlist follows the canonical host, then the address check refuses', async () => {
    off.sources.add('short', 'rest_api', { base_url: `http://127.1:${v4.port}`, bearer_token: TOKEN });
    const r = await off.call('short', { method: 'GET', path: '/' });
    assert.equal(r.json.error_code, 'private_address');
    assert.match(r.json.message, /'127\.0\.0\.1'.*loopback/);
    assert.equal(hits(), 0);
  });

  test('a public-looking name that resolves to 127.0.0.1 is refused', async () => {
    resolverCalls = [];
    off.sources.add('dns', 'rest_api', {
      base_url: `http://api.example.com:${v4.port}`,
      bearer_token: TOKEN,
    });
    const r = await off.call('dns', { method: 'GET', path: '/echo' });
    assert.equal(r.status, 403);
    assert.equal(r.json.error_code, 'private_address');
    assert.match(
      r.json.message,
      /^host 'api\.example\.com' resolves to a loopback address: set passthrough\.allow_private_networks = true to allow it$/,
    );
    assert.deepEqual(resolverCalls, ['api.example.com']);
    assert.equal(hits(), 0);
  });
});

describe('private networks on', () => {
  test('the resolved address is the one dialled: one lookup, and the request arrives with the name as Host', async () => {
    resolverCalls = [];
    on.sources.add('dns', 'rest_api', { base_url: `http://api.example.com:${v4.port}`, bearer_token: TOKEN });
    const before = v4.hits;
    const r = await on.call('dns', { method: 'GET', path: '/echo' });
    assert.equal(r.json.status_code, 200);
    assert.equal(r.json.body.headers.host, `api.example.com:${v4.port}`);
    assert.equal(v4.hits, before + 1);
    assert.deepEqual(resolverCalls, ['api.example.com']);
    const tr = await on.call('dns', {}, '/test');
    assert.equal(tr.json.ok, true);
    assert.equal(tr.json.host, 'api.example.com');
  });

  test('loopback literals in any spelling reach the upstream', async () => {
    let i = 0;
    for (const base of [
      `http://127.0.0.1:${v4.port}`,
      `http://2130706433:${v4.port}`,
      `http://[::1]:${v6.port}`,
      `http://[::ffff:127.0.0.1]:${v4.port}`,
    ]) {
      const name = `ok${i++}`;
      on.sources.add(name, 'rest_api', { base_url: base, bearer_token: TOKEN });
      const r = await on.call(name, { method: 'GET', path: '/echo' });
      assert.equal(r.json.status_code, 200, `${base}: ${r.text}`);
    }
  });

  test('0.0.0.0 stays refused', async () => {
    const before = hits();
    on.sources.add('zero', 'rest_api', { base_url: `http://0.0.0.0:${v4.port}`, bearer_token: TOKEN });
    const r = await on.call('zero', { method: 'GET', path: '/echo' });
    assert.equal(r.json.error_code, 'private_address');
    assert.match(r.json.message, /unspecified/);
    assert.equal(hits(), before);
  });

  test('a name with any inadmissible answer is refused whole, before any connection', async () => {
    const before = hits();
    on.sources.add('mixed', 'rest_api', {
      base_url: `http://mixed.example.com:${v4.port}`,
      bearer_token: TOKEN,
    });
    const r = await on.call('mixed', { method: 'GET', path: '/echo' });
    assert.equal(r.json.error_code, 'private_address');
    assert.match(r.json.message, /cloud metadata/);
    assert.equal(hits(), before);
  });

  test('a name that does not resolve is unreachable', async () => {
    on.sources.add('nx', 'rest_api', { base_url: 'http://nxdomain.example.com', bearer_token: TOKEN });
    const r = await on.call('nx', { method: 'GET', path: '/' });
    assert.equal(r.status, 502);
    assert.equal(r.json.error_code, 'upstream_unreachable');
    assert.match(r.json.message, /could not resolve host 'nxdomain\.example\.com'/);
  });
});
