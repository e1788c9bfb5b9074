import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Resolver } from '../../../../src/egress/agent.js';
import {
  EgressAbortedError,
  type EgressRequestOptions,
  egressRequest,
} from '../../../../src/egress/client.js';
import { EgressError } from '../../../../src/egress/errors.js';
import { buildUpstreamHeaders } from '../../../../src/egress/headers.js';
import { startUpstream, type Upstream } from './upstream.js';

// egressRequest on its own, against a loopback upstream (private networks allowed).

const TOKEN = 'client-test-token-31337';
let up: Upstream;
let lookups: string[] = [];
const dns: Resolver = async (host) => {
  lookups.push(host);
  if (host === 'pinned.example') return [{ address: '127.0.0.1', family: 4 }];
  throw new Error(`unexpected lookup of ${host}`);
};

function opts(url: string, extra: Partial<EgressRequestOptions> = {}): EgressRequestOptions {
  return {
    url,
    method: 'GET',
    headers: buildUpstreamHeaders({ token: TOKEN }),
    limits: { timeoutMs: 2000, maxRequestBytes: 1024, maxResponseBytes: 1 << 20 },
    secrets: [TOKEN],
    allowPrivate: true,
    resolver: dns,
    ...extra,
  };
}

async function rejectsWith(p: Promise<unknown>, code: string, pattern?: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof EgressError, String(e));
    assert.equal(e.errorCode, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

before(async () => {
  up = await startUpstream('127.0.0.1');
});
after(async () => {
  await up?.close();
});

describe('egressRequest', () => {
  test('one lookup per connection: keep-alive reuses the checked connection', async () => {
    lookups = [];
    up.reset();
    const url = `http://pinned.example:${up.port}/echo`;
    for (let i = 0; i < 5; i++) {
      const r = await egressRequest(opts(url));
      assert.equal(r.status, 200);
      assert.equal(r.host, 'pinned.example');
    }
    // Each connection was preceded by exactly one lookup, and connections were reused.
    assert.equal(lookups.length, up.connections);
    assert.ok(up.connections < 5, `${up.connections} connections for 5 calls`);
    assert.ok(lookups.every((h) => h === 'pinned.example'));
  });

  test('the allowlist is enforced here too; default is the URL host', async () => {
    await rejectsWith(
      egressRequest(opts(`http://pinned.example:${up.port}/`, { allowedHosts: ['other.example'] })),
      'host_not_allowed',
    );
    await rejectsWith(egressRequest(opts('ftp://127.0.0.1/')), 'invalid_request', /ftp/);
    await rejectsWith(egressRequest(opts(`http://u:p@127.0.0.1:${up.port}/`)), 'invalid_request');
  });

  test('request body limit measured on the bytes sent', async () => {
    await rejectsWith(
      egressRequest(opts(`${up.url}/echo`, { method: 'POST', body: 'é'.repeat(513) })),
      'request_too_large',
    );
    const r = await egressRequest(opts(`${up.url}/echo`, { method: 'POST', body: 'é'.repeat(512) }));
    assert.equal(r.status, 200);
  });

  test('the deadline covers every redirect hop together', async () => {
    // Three hops of 250 ms each: every hop alone is inside 600 ms, the whole call is not.
    up.reset();
    await rejectsWith(
      egressRequest(
        opts(`${up.url}/slow-redirect/3/250`, {
          limits: { timeoutMs: 600, maxRequestBytes: 1024, maxResponseBytes: 1024 },
        }),
      ),
      'upstream_timeout',
    );
    const ok = await egressRequest(opts(`${up.url}/slow-redirect/2/50`));
    assert.equal(ok.status, 200);
    assert.equal(ok.redirects, 2);
  });

  test('calls sharing a concurrency key are bounded; other keys are not held back', async () => {
    up.reset();
    const limits = { timeoutMs: 5000, maxRequestBytes: 1024, maxResponseBytes: 1024, maxConcurrent: 2 };
    await Promise.all(
      Array.from({ length: 6 }, () =>
        egressRequest(opts(`${up.url}/slow/80`, { limits, concurrencyKey: 'one-source' })),
      ),
    );
    assert.equal(up.maxInFlight, 2);
    up.reset();
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        egressRequest(opts(`${up.url}/slow/80`, { limits, concurrencyKey: `src-${i}` })),
      ),
    );
    assert.ok(up.maxInFlight > 2);
  });

  test('waiting for a slot counts against the deadline', async () => {
    const limits = { timeoutMs: 300, maxRequestBytes: 1024, maxResponseBytes: 1024, maxConcurrent: 1 };
    const results = await Promise.allSettled([
      egressRequest(opts(`${up.url}/slow/250`, { limits, concurrencyKey: 'queued' })),
      egressRequest(opts(`${up.url}/slow/250`, { limits, concurrencyKey: 'queued' })),
    ]);
    assert.equal(results[0].status, 'fulfilled');
    assert.equal(results[1].status, 'rejected');
    assert.equal(((results[1] as PromiseRejectedResult).reason as EgressError).errorCode, 'upstream_timeout');
  });

  test('a caller abort is a cancellation, not a timeout', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(egressRequest(opts(`${up.url}/hang`, { signal: ac.signal })), EgressAbortedError);
  });

  test('TLS failures (untrusted certificate) are upstream_unreachable', async (t) => {
    let dir: string;
    try {
      dir = mkdtempSync(join(tmpdir(), 'egress-tls-'));
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-subj',
          '/CN=localhost',
          '-days',
          '1',
          '-keyout',
          join(dir, 'k.pem'),
          '-out',
          join(dir, 'c.pem'),
        ],
        { stdio: 'ignore' },
      );
    } catch {
      t.skip('openssl is not available');
      return;
    }
    const server = https.createServer(
      { key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) },
      (_req, res) => res.end('secret page'),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    try {
      await rejectsWith(egressRequest(opts(`https://127.0.0.1:${port}/`)), 'upstream_unreachable', /TLS/);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
