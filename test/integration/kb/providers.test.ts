import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Result } from '../../../src/sql/result.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { type FakeProvider, OLLAMA_PORT, ollamaServer, openAiServer } from './fake-providers.js';

const KEY = 'sk-test-very-secret-key-123456';

const ok = (r: Result) => assert.equal(r.type, 'ok', JSON.stringify(r));

describe('embedding providers over HTTP (servers of our own on 127.0.0.1), default configuration', () => {
  let srv: TestServer;
  let openai: FakeProvider;
  let ollama: FakeProvider;
  before(async () => {
    openai = await openAiServer();
    // Ollama where `{"provider": "ollama"}` looks for it; a busy port fails the test, naming it.
    ollama = await ollamaServer({ models: ['nomic-embed-text', 'mxbai-embed-large'] });
    // The default configuration: loopback providers need no setting (passthrough's are off).
    srv = await startTestServer();
  });
  after(async () => {
    await srv?.stop();
    await openai?.close();
    await ollama?.close();
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

  test('ollama with no base_url and no model_name: 127.0.0.1:11434, /api/embed, nomic-embed-text', async () => {
    ok(await srv.sql(`CREATE KNOWLEDGE_BASE ol USING embedding_model = {"provider": "ollama"}`));
    assert.deepEqual(ollama.calls[0], {
      method: 'POST',
      path: '/api/embed',
      model: 'nomic-embed-text',
      inputs: 1,
      auth: undefined,
    });
    const shown = (await srv.sql(`SHOW KNOWLEDGE_BASES LIKE 'ol'`)) as { data: unknown[][] };
    assert.deepEqual(shown.data[0][1], {
      provider: 'ollama',
      model_name: 'nomic-embed-text',
      base_url: `http://127.0.0.1:${OLLAMA_PORT}`,
      dimension: 8,
    });
    ok(await srv.sql(`INSERT INTO ol (id, content) VALUES (1, 'abc'), (2, 'xyz'), (3, 'abd')`));
    const r = await srv.sql(`SELECT id FROM ol WHERE content = 'xyz' LIMIT 1`);
    assert.deepEqual((r as { data: unknown[][] }).data, [['2']]);
  });

  test('ollama: batches of batch_size texts per /api/embed call', async () => {
    ollama.calls.length = 0;
    ok(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE ol2 USING embedding_model = {"provider": "ollama", "model_name": "mxbai-embed-large", "base_url": "${ollama.url}", "batch_size": 2}`,
      ),
    );
    ok(await srv.sql(`INSERT INTO ol2 (id, content) VALUES (1, 'abc'), (2, 'xyz'), (3, 'abd')`));
    assert.deepEqual(
      ollama.calls.map((c) => [c.path, c.model, c.inputs]),
      [
        ['/api/embed', 'mxbai-embed-large', 1],
        ['/api/embed', 'mxbai-embed-large', 2],
        ['/api/embed', 'mxbai-embed-large', 1],
      ],
    );
  });

  test("ollama: a model not pulled is an error naming the provider with Ollama's own words", async () => {
    const r = await srv.sql(
      `CREATE KNOWLEDGE_BASE ol3 USING embedding_model = {"provider": "ollama", "model_name": "all-minilm"}`,
    );
    assert.equal(r.type, 'error');
    assert.match(
      (r as { error_message: string }).error_message,
      /Embedding provider 'ollama' answered HTTP 404: \{"error":"model \\"all-minilm\\" not found, try pulling it first"\}/,
    );
    assert.equal((await srv.sql('DESCRIBE KNOWLEDGE_BASE ol3')).type, 'error');
  });
});
