/**
 * SPEC §8 "Providers' addresses", end to end with loopback forms only (the decisions for
 * private, link-local and metadata addresses are tested as pure functions in
 * test/unit/kb/provider-egress.test.ts; no traffic goes anywhere but loopback).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Result } from '../../../src/sql/result.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { type FakeProvider, openAiServer } from './fake-providers.js';

const ok = (r: Result) => assert.equal(r.type, 'ok', JSON.stringify(r));

function refused(r: Result, pattern: RegExp): void {
  assert.equal(r.type, 'error', JSON.stringify(r));
  const e = r as { error_code: number; error_message: string };
  assert.equal(e.error_code, 2003, e.error_message);
  assert.match(e.error_message, pattern);
}

const create = (name: string, baseUrl: string) =>
  `CREATE KNOWLEDGE_BASE ${name} USING embedding_model = {"provider": "openai", "model_name": "m", "base_url": "${baseUrl}"}`;

describe('KB providers on loopback under the default settings', () => {
  let srv: TestServer;
  let v4: FakeProvider;
  let other: FakeProvider;
  let v6: FakeProvider;
  before(async () => {
    v4 = await openAiServer();
    // Another loopback address, and so another origin than v4's.
    other = await openAiServer({ host: '127.0.0.2' });
    v6 = await openAiServer({ host: '::1' });
    srv = await startTestServer();
  });
  after(async () => {
    await srv?.stop();
    for (const p of [v4, other, v6]) await p?.close();
  });

  test('every loopback form is reached without a setting', async () => {
    const forms: [string, FakeProvider][] = [
      [`http://127.0.0.1:${v4.port}`, v4],
      [`http://localhost:${v4.port}/v1`, v4],
      [`http://127.0.0.2:${other.port}`, other],
      [`http://[::1]:${v6.port}`, v6],
    ];
    for (const [i, [base, fake]] of forms.entries()) {
      const before = fake.calls.length;
      ok(await srv.sql(create(`lo${i}`, base)));
      assert.equal(fake.calls.length, before + 1, base);
      ok(await srv.sql(`INSERT INTO lo${i} (id, content) VALUES (1, 'local embeddings')`));
    }
  });

  test('0.0.0.0 is refused before any connection, and never allowed', async () => {
    const before = v4.calls.length;
    refused(
      await srv.sql(create('zero', `http://0.0.0.0:${v4.port}`)),
      /^Embedding provider 'openai' at http:\/\/0\.0\.0\.0:\d+\/v1\/embeddings was refused: host '0\.0\.0\.0' is an unspecified \(0\.0\.0\.0 \/ ::\) address, which is never allowed$/,
    );
    assert.equal(v4.calls.length, before);
  });

  test('a redirect to another origin is refused, saying where it went and why', async () => {
    v4.redirects.set('/moved/v1/embeddings', [307, `http://127.0.0.2:${other.port}/v1/embeddings?sig=abc`]);
    const before = other.calls.length;
    refused(
      await srv.sql(create('moved', `http://127.0.0.1:${v4.port}/moved`)),
      new RegExp(
        `^Embedding provider 'openai' at http://127\\.0\\.0\\.1:${v4.port}/moved/v1/embeddings answered HTTP 307, a redirect to http://127\\.0\\.0\\.2:${other.port}/v1/embeddings: redirects to another origin are not followed \\(the key and the texts stay with the configured base_url\\); set base_url to where the provider now answers$`,
      ),
    );
    assert.equal(other.calls.length, before, 'the other origin was never called');
  });

  test('a redirect within the same origin is followed', async () => {
    v4.redirects.set('/old/v1/embeddings', [308, '/v1/embeddings']);
    const before = v4.calls.length;
    ok(await srv.sql(create('same_origin', `http://127.0.0.1:${v4.port}/old`)));
    assert.deepEqual(
      v4.calls.slice(before).map((c) => c.path),
      ['/v1/embeddings'],
    );
  });
});

describe('kb.allowed_hosts', () => {
  let srv: TestServer;
  let v4: FakeProvider;
  let v6: FakeProvider;
  before(async () => {
    v4 = await openAiServer();
    v6 = await openAiServer({ host: '::1' });
    // passthrough's setting is on and governs rest_api sources only: the KB list still decides.
    srv = await startTestServer({
      TRIBUTARY_KB_ALLOWED_HOSTS: 'LOCALHOST.',
      TRIBUTARY_PASSTHROUGH_ALLOW_PRIVATE_NETWORKS: 'true',
    });
  });
  after(async () => {
    await srv?.stop();
    await v4?.close();
    await v6?.close();
  });

  test('only the listed host name is reached: other names of the same loopback are refused, naming the setting', async () => {
    ok(await srv.sql(create('by_name', `http://localhost:${v4.port}`)));
    for (const host of ['127.0.0.1', '127.0.0.2', '[::1]']) {
      const before = v4.calls.length + v6.calls.length;
      const port = host === '[::1]' ? v6.port : v4.port;
      refused(
        await srv.sql(create('by_address', `http://${host}:${port}`)),
        new RegExp(
          `was refused: host '${host.replace(/[.[\]]/g, '\\$&')}' is not in kb\\.allowed_hosts \\(localhost\\): add it to kb\\.allowed_hosts to allow it$`,
        ),
      );
      assert.equal(v4.calls.length + v6.calls.length, before, `${host}: nothing was sent`);
    }
  });

  test('a bad entry fails start-up naming the key', async () => {
    await assert.rejects(
      startTestServer({ TRIBUTARY_KB_ALLOWED_HOSTS: 'localhost,http://x/' }),
      /kb\.allowed_hosts: 'http:\/\/x\/' is not a host name \(TRIBUTARY_KB_ALLOWED_HOSTS\)/,
    );
  });
});
