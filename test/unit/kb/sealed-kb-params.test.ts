import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { openKbParams, sealKbParams, sealParams } from '../../../src/catalog/sealed-params.js';

const key = randomBytes(32);
const kb = { id: 'kb-1', name: 'tickets' };
const params = {
  embedding_model: { provider: 'openai', model_name: 'e', api_key: 'sk-embed' },
  reranking_model: { provider: 'cohere', model_name: 'r', base_url: 'https://x', api_key: 'rk-rerank' },
  content_columns: ['body'],
};

test('both models of a KB have their api_key sealed at rest and opened again', () => {
  const stored = sealKbParams(key, kb.id, structuredClone(params));
  const text = JSON.stringify(stored);
  assert.ok(!text.includes('sk-embed') && !text.includes('rk-rerank'), text);
  assert.deepEqual((stored.reranking_model as Record<string, unknown>).model_name, 'r');
  assert.deepEqual(openKbParams(key, kb, stored), params);
});

test('a key sealed for one model does not open as the other, nor for another KB', () => {
  const stored = sealKbParams(key, kb.id, structuredClone(params)) as Record<string, Record<string, unknown>>;
  const swapped = {
    ...stored,
    reranking_model: { ...stored.reranking_model, api_key: stored.embedding_model.api_key },
  };
  assert.throws(
    () => openKbParams(key, kb, swapped),
    /Cannot decrypt secret parameter 'api_key' of source 'tickets \(reranking_model\)'/,
  );
  assert.throws(() => openKbParams(key, { id: 'kb-2', name: 'other' }, stored), /Cannot decrypt/);
});

test('KBs stored before reranking_model existed open as before; no reranking_model stays absent', () => {
  const old = {
    embedding_model: sealParams(key, kb.id, { provider: 'openai', api_key: 'sk-embed' }, ['api_key']).params,
    content_columns: ['body'],
  };
  assert.deepEqual(openKbParams(key, kb, old), {
    embedding_model: { provider: 'openai', api_key: 'sk-embed' },
    content_columns: ['body'],
  });
  assert.ok(!('reranking_model' in sealKbParams(key, kb.id, { content_columns: [] })));
});
