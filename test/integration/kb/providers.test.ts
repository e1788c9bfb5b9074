import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Result } from '../../../src/sql/result.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const KEY = 'sk-test-very-secret-key-123456';

/** A tiny deterministic "model": 8 dims from letter counts, so similar texts are near. */
function vec(text: string): number[] {
  const v = new Array(8).fill(0);
  for (const ch of text.toLowerCase()) if (ch >= 'a' && ch <= 'z') v[(ch.charCodeAt(0) - 97) % 8] += 1;
  return v;
}

async function body(req: IncomingMessage): Promise<{ model: string; input: string[] }> {
  let s = '';
  for await (const c of req) s += c;
  return JSON.parse(s);
}

interface Upstream {
  server: Server;
  url: string;
  calls: { path: string; inputs: number; auth: string | undefined }[];
  failNext: number;
}

async function upstream(handler: (u: Upstream, req: IncomingMessage, res: ServerResponse) => Promise<void>) {
  const u: Upstream = { server: createServer(), url: '', calls: [], failNext: 0 };
  u.server.on('request', (req, res) => void handler(u, req, res));
  await new Promise<void>((r) => u.server.listen(0, '127.0.0.1', r));
  u.url = `http://127.0.0.1:${(u.server.address() as AddressInfo).port}`;
  return u;
}

const ok = (r: Result) => assert.equal(r.type, 'ok', JSON.stringify(r));

describe('embedding providers over HTTP (servers of our own on 127.0.0.1)', () => {
  let srv: TestServer;
  let openai: Upstream;
  let ollama: Upstream;
  before(async () => {
    openai = await upstream(async (u, req, res) => {
      const b = await body(req);
      u.calls.push({ path: req.url ?? '', inputs: b.input.length, auth: req.headers.authorization });
      if (u.failNext > 0) {
        u.failNext--;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end('{"error":"slow down"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: b.input.map((t, index) => ({ index, embedding: vec(t) })).reverse() }));
    });
    ollama = await upstream(async (u, req, res) => {
      const b = await body(req);
      u.calls.push({ path: req.url ?? '', inputs: b.input.length, auth: undefined });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ model: b.model, embeddings: b.input.map(vec) }));
    });
    srv = await startTestServer({ TRIBUTARY_PASSTHROUGH_ALLOW_PRIVATE_NETWORKS: '1' });
  });
  after(async () => {
    await srv?.stop();
    openai?.server.close();
    ollama?.server.close();
  });

  test('openai: batches, a sealed api_key never shown, retries after 429', async () => {
    ok(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE oa USING embedding_model = {"provider": "openai", "model_name": "m1", "base_url": "${openai.url}/v1", "api_key": "${KEY}", "batch_size": 2}`,
      ),
    );
    assert.equal(openai.calls[0].path, '/v1/embeddings');
    assert.equal(openai.calls[0].auth, `Bearer ${KEY}`);
    openai.calls.length = 0;
    openai.failNext = 1;
    ok(
      await srv.sql(
        `INSERT INTO oa (id, content) VALUES (1, 'apples and pears'), (2, 'zebra quiz jazz'), (3, 'apple pie')`,
      ),
    );
    // 3 texts in batches of 2: one 429 retried, then 2 calls.
    assert.deepEqual(
      openai.calls.map((c) => c.inputs),
      [2, 2, 1],
    );
    const r = await srv.sql(`SELECT id FROM oa WHERE content = 'apples' LIMIT 1`);
    assert.deepEqual((r as { data: unknown[][] }).data, [['1']]);
    for (const q of ['SHOW KNOWLEDGE_BASES', 'DESCRIBE KNOWLEDGE_BASE oa'])
      assert.ok(!JSON.stringify(await srv.sql(q)).includes(KEY));
    assert.ok(!readFileSync(join(srv.storageDir, 'catalog.json'), 'utf8').includes(KEY));
    ok(
      await srv.sql(`ALTER KNOWLEDGE_BASE oa USING embedding_model = {"api_key": "sk-new-key-000000000000"}`),
    );
    openai.calls.length = 0;
    await srv.sql(`SELECT id FROM oa WHERE content = 'pie'`);
    assert.equal(openai.calls[0].auth, 'Bearer sk-new-key-000000000000');
    const bad = await srv.sql(`ALTER KNOWLEDGE_BASE oa USING embedding_model = {"model_name": "other"}`);
    assert.equal(bad.type, 'error');
  });

  test('openai: a failing provider is an error naming it; the insert reports rows stored', async () => {
    openai.failNext = 100;
    const r = await srv.sql(`INSERT INTO oa (id, content) VALUES (9, 'never stored')`);
    openai.failNext = 0;
    assert.equal(r.type, 'error');
    const msg = (r as { error_message: string }).error_message;
    assert.match(msg, /provider 'openai'/);
    assert.match(msg, /after 0 rows were stored/);
    assert.ok(!msg.includes(KEY));
  });

  test('ollama: /api/embed with batches', async () => {
    ok(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE ol USING embedding_model = {"provider": "ollama", "model_name": "nomic", "base_url": "${ollama.url}", "batch_size": 2}`,
      ),
    );
    ok(await srv.sql(`INSERT INTO ol (id, content) VALUES (1, 'abc'), (2, 'xyz'), (3, 'abd')`));
    assert.equal(ollama.calls[0].path, '/api/embed');
    assert.deepEqual(
      ollama.calls.slice(1).map((c) => c.inputs),
      [2, 1],
    );
    const r = await srv.sql(`SELECT id FROM ol WHERE content = 'xyz' LIMIT 1`);
    assert.deepEqual((r as { data: unknown[][] }).data, [['2']]);
  });
});
