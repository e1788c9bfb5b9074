import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Result } from '../../../src/sql/result.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { RerankServer } from './rerank-server.js';
import { makeRetrievalSet, toCsv } from './retrieval-set.js';

type Figures = { total: number; hits_at_1: number; recall_at_10: number; mrr_at_10: number };

/**
 * EVALUATE on the generated retrieval set (2,000 tickets, 300 questions) for each arm, hybrid,
 * and hybrid reordered by the test's reranking model (term overlap, rerank-server.ts).
 */
describe('knowledge bases: EVALUATE with a reranking model', () => {
  let srv: TestServer;
  const reranker = new RerankServer();
  const set = makeRetrievalSet();

  const evaluate = async (mode: string, reranking: boolean): Promise<Figures> => {
    const r = (await srv.sql(
      `EVALUATE KNOWLEDGE_BASE tickets USING test_table = files.questions, search = '${mode}', reranking = ${reranking}`,
    )) as Result & { column_names: string[]; data: unknown[][] };
    assert.equal(r.type, 'table', JSON.stringify(r));
    return Object.fromEntries(r.column_names.map((c, i) => [c, r.data[0][i]])) as Figures;
  };

  before(async () => {
    await reranker.start();
    // Loopback providers need no setting: KB egress allows loopback by default.
    srv = await startTestServer();
    for (const [name, rows] of [
      ['tickets', set.docs],
      ['questions', set.questions],
    ] as const) {
      const res = await fetch(`${srv.url}/api/files/${name}`, {
        method: 'PUT',
        body: toCsv(rows as unknown as Record<string, string>[]),
        headers: { 'content-type': 'text/csv' },
      });
      assert.equal(res.status, 201, await res.text());
    }
    const created = await srv.sql(
      `CREATE KNOWLEDGE_BASE tickets USING content_columns = ['body'], metadata_columns = ['product'], reranking_model = {"provider": "cohere", "model_name": "overlap-1", "base_url": "${reranker.url}"}`,
    );
    assert.equal(created.type, 'ok', JSON.stringify(created));
    const ins = await srv.sql('INSERT INTO tickets SELECT id, body, product FROM files.tickets');
    assert.equal(ins.type, 'ok', JSON.stringify(ins));
  });
  after(async () => {
    await srv?.stop();
    reranker.close();
  });

  test('recall@10 and MRR@10: vector, BM25, hybrid, hybrid + rerank', async (t) => {
    const vector = await evaluate('vector', false);
    const keyword = await evaluate('keyword', false);
    assert.equal(reranker.calls.length, 0, 'reranking = false sends nothing to the reranking model');
    const hybrid = await evaluate('hybrid', false);
    const reranked = await evaluate('hybrid', true);
    // One request per question: its 50 first-stage candidates (k = 10: 50, or 5x the limit).
    assert.equal(reranker.calls.length, 300);
    assert.ok(reranker.calls.every((c) => c.body.documents?.length === 50 && c.body.top_n === 50));
    const figures = { vector, keyword, hybrid, reranked };
    t.diagnostic(JSON.stringify(figures));
    assert.equal(reranked.total, 300);
    assert.ok(reranked.recall_at_10 >= hybrid.recall_at_10, JSON.stringify(figures));
    assert.ok(reranked.mrr_at_10 >= hybrid.mrr_at_10, JSON.stringify(figures));
  });
});
