import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/load.js';
import { clientIpResolver } from '../../../src/http/client-ip.js';

const req = (peer: string, xff?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: xff ? { 'x-forwarded-for': xff } : {},
  }) as unknown as IncomingMessage;

test('without trust_proxy the peer is the client, whatever X-Forwarded-For says', () => {
  assert.equal(clientIpResolver([])(req('127.0.0.1', '203.0.113.7')), '127.0.0.1');
});

test('behind a trusted proxy the forwarded address is the client; an untrusted peer is not believed', () => {
  const ip = clientIpResolver(['loopback', '10.0.0.0/8']);
  assert.equal(ip(req('127.0.0.1', '203.0.113.7')), '203.0.113.7');
  assert.equal(ip(req('127.0.0.1', '198.51.100.1, 10.1.2.3')), '198.51.100.1');
  assert.equal(ip(req('192.0.2.9', '203.0.113.7')), '192.0.2.9');
});

test('trust_proxy entries are checked at start-up, naming the variable', async () => {
  const env = {
    TRIBUTARY_STORAGE_DIR: '/tmp/unused-trust-proxy',
    TRIBUTARY_SECRET_KEY: Buffer.alloc(32).toString('base64'),
  };
  const ok = await loadConfig({
    argv: {},
    env: { ...env, TRIBUTARY_TRUST_PROXY: 'loopback, 10.0.0.0/8, ::1' },
  });
  assert.deepEqual(ok.api.http.trust_proxy, ['loopback', '10.0.0.0/8', '::1']);
  assert.deepEqual((await loadConfig({ argv: {}, env })).api.http.trust_proxy, []);
  await assert.rejects(
    loadConfig({ argv: {}, env: { ...env, TRIBUTARY_TRUST_PROXY: 'my-proxy' } }),
    /'my-proxy'.*TRIBUTARY_TRUST_PROXY/,
  );
});
