import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BuiltinEmbedder } from '../../../src/kb/embed/builtin.js';
import { KeywordIndex } from '../../../src/kb/keyword.js';
import { parseRerankAnswer } from '../../../src/kb/rerank/client.js';
import { parseRerankSpec } from '../../../src/kb/rerank/spec.js';
import {
  hybridDepth,
  keywordRelevance,
  keywordScale,
  rerankDepth,
  vectorRelevance,
} from '../../../src/kb/search.js';
import { queryTerms } from '../../../src/kb/text.js';

test('keyword relevance: a fixed saturation of BM25 by a corpus-level constant, monotonic, in [0,1)', () => {
  const c = keywordScale(2000);
  // idf of a word held by sqrt(2000) ~ 45 chunks.
  assert.ok(Math.abs(c - Math.log(1 + (2000 - Math.sqrt(2000) + 0.5) / (Math.sqrt(2000) + 0.5))) < 1e-12);
  assert.equal(keywordRelevance(0, c), 0);
  assert.equal(keywordRelevance(c, c), 0.5);
  let prev = 0;
  for (let s = 0.1; s < 100; s *= 1.5) {
    const r = keywordRelevance(s, c);
    assert.ok(r > prev && r < 1, `${s} -> ${r}`);
    prev = r;
  }
  // One word found in a single chunk (idf ~ ln N) is about 0.65; a word in 80% of chunks near 0.
  const rare = Math.log(1 + (2000 - 1 + 0.5) / 1.5);
  const common = Math.log(1 + (2000 - 1600 + 0.5) / 1600.5);
  assert.ok(Math.abs(keywordRelevance(rare, c) - 0.66) < 0.02, String(keywordRelevance(rare, c)));
  assert.ok(keywordRelevance(common, c) < 0.06);
  // The constant grows with the corpus as idf does, and stays positive for tiny corpora.
  assert.ok(keywordScale(100_000) > keywordScale(2000) && keywordScale(0) > 0 && keywordScale(1) > 0);
});

test('vector relevance: the cosine, negatives as 0', () => {
  assert.deepEqual([-0.4, 0, 0.3, 1].map(vectorRelevance), [0, 0, 0.3, 1]);
});

test('candidate depths: 50 or 5x for small k; hybrid arms grow by at most 1,000 past k', () => {
  assert.deepEqual([1, 10, 100, 10_000].map(rerankDepth), [50, 50, 500, 50_000]);
  assert.deepEqual([1, 10, 100, 10_000].map(hybridDepth), [50, 50, 500, 11_000]);
});

test('stopwords never score: queryTerms drops them, the keyword index finds nothing for them', () => {
  assert.deepEqual(queryTerms('What is the refund of ACME-12 and the refund?'), [
    'refund',
    'acme',
    '12',
    'acme-12',
  ]);
  assert.deepEqual(queryTerms('the of and'), []);
  const idx = new KeywordIndex();
  const texts = ['the refund of the order', 'and the invoice', 'refund refund and more'];
  for (const [i, t] of texts.entries()) idx.add(i, t);
  const keep = new Uint8Array([1, 1, 1]);
  const scores = (q: string) => {
    const out: [number, number][] = [];
    idx.score(q, keep, (slot, s) => out.push([slot, s]));
    return out.sort((a, b) => a[0] - b[0]);
  };
  assert.deepEqual(scores('the of and'), []);
  assert.deepEqual(scores('the refund and'), scores('refund'));
  assert.equal(scores('refund').length, 2);
});

test('the builtin embedder drops stopwords: a question of stopwords alone is the zero vector (both versions)', async () => {
  for (const model of ['lexical-hash-v1', 'lexical-hash-v2'] as const) {
    const e = new BuiltinEmbedder(64, model);
    assert.ok(
      e.embedOne('the of and').every((x) => x === 0),
      model,
    );
    assert.deepEqual(e.embedOne('the refund of an'), e.embedOne('refund'), model);
  }
});

test('rerank answers: Cohere {results}, Voyage {data}, TEI bare array; every document once', () => {
  const fail = (why: string) => new Error(why);
  assert.deepEqual(
    parseRerankAnswer(
      {
        results: [
          { index: 1, relevance_score: 0.9 },
          { index: 0, relevance_score: 0.2 },
        ],
      },
      2,
      fail,
    ),
    [0.2, 0.9],
  );
  assert.deepEqual(parseRerankAnswer({ data: [{ index: 0, relevance_score: 0.5 }] }, 1, fail), [0.5]);
  assert.deepEqual(
    parseRerankAnswer(
      [
        { index: 1, score: -2.5 },
        { index: 0, score: 3 },
      ],
      2,
      fail,
    ),
    [3, -2.5],
  );
  assert.throws(
    () => parseRerankAnswer({ results: [{ index: 0, relevance_score: 1 }] }, 2, fail),
    /scored 1 of the 2/,
  );
  assert.throws(
    () =>
      parseRerankAnswer(
        [
          { index: 0, score: 1 },
          { index: 0, score: 1 },
        ],
        2,
        fail,
      ),
    /twice/,
  );
  assert.throws(() => parseRerankAnswer([{ index: 0, score: 'x' }], 1, fail), /numeric relevance_score/);
  assert.throws(() => parseRerankAnswer({ id: 'x' }, 1, fail), /without results/);
});

test('reranking_model: defaults, and each bad parameter named', () => {
  assert.equal(parseRerankSpec('kb', undefined), null);
  assert.deepEqual(parseRerankSpec('kb', { model_name: 'rerank-v3.5', api_key: 'k' }), {
    provider: 'cohere',
    model_name: 'rerank-v3.5',
    base_url: 'https://api.cohere.com/v2',
    api_key: 'k',
    batch_size: null,
  });
  const bad: [unknown, RegExp][] = [
    ['x', /must be a JSON object/],
    [{ model_name: 'm', top_k: 3 }, /unknown reranking_model parameter 'top_k'/],
    [{ provider: 'openai', model_name: 'm' }, /unknown reranking provider 'openai'/],
    [{ provider: 'tei', model_name: 'm' }, /'tei' needs base_url/],
    [{ model_name: 'm', base_url: 'not a url' }, /base_url is not a URL/],
    [{ model_name: 'm', batch_size: 0 }, /batch_size must be an integer/],
  ];
  for (const [raw, re] of bad) assert.throws(() => parseRerankSpec('kb', raw), re);
});
