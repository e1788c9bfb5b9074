import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Result } from '../../../src/sql/result.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { makeRetrievalSet, toCsv } from './retrieval-set.js';

function table(r: Result): { column_names: string[]; data: unknown[][] } {
  assert.equal(r.type, 'table', JSON.stringify(r));
  return r as { column_names: string[]; data: unknown[][] };
}
function ok(r: Result): Record<string, unknown> {
  assert.equal(r.type, 'ok', JSON.stringify(r));
  return r as unknown as Record<string, unknown>;
}
function err(r: Result): { error_code: number; error_message: string } {
  assert.equal(r.type, 'error', JSON.stringify(r));
  return r as { error_code: number; error_message: string };
}

describe('knowledge bases: labelled retrieval set, files tables, row counts, vector size', () => {
  let srv: TestServer;
  let upstream: Server;
  let upstreamUrl = '';
  /** Vector size the fake OpenAI-compatible provider answers with (changed mid-test). */
  let dims = 4;
  const set = makeRetrievalSet();

  async function upload(name: string, csv: string) {
    const res = await fetch(`${srv.url}/api/files/${name}`, {
      method: 'PUT',
      body: csv,
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(res.status, 201, await res.text());
  }
  const evaluate = async (test: string, mode: string) => {
    const r = table(
      await srv.sql(`EVALUATE KNOWLEDGE_BASE tickets USING test_table = files.${test}, search = '${mode}'`),
    );
    const row = Object.fromEntries(r.column_names.map((c, i) => [c, r.data[0][i]]));
    return row as { total: number; hits_at_1: number; recall_at_10: number; mrr_at_10: number };
  };

  before(async () => {
    upstream = createServer(async (req, res) => {
      let s = '';
      for await (const c of req) s += c;
      const input = (JSON.parse(s) as { input: string[] }).input;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ data: input.map((_, index) => ({ index, embedding: Array(dims).fill(0.5) })) }),
      );
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    srv = await startTestServer();
    await upload('tickets', toCsv(set.docs));
    await upload('questions', toCsv(set.questions));
    await upload('id_questions', toCsv(set.questions.filter((q) => q.kind === 'identifier')));
    await upload(
      'products',
      toCsv([...new Set(set.docs.map((d) => d.product))].map((p, i) => ({ product: p, owner: `team ${i}` }))),
    );
  });
  after(async () => {
    await srv?.stop();
    upstream?.close();
  });

  test('INSERT from a files table answers with inserted / updated / unchanged / failed counts', async () => {
    ok(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE tickets USING content_columns = ['body'], metadata_columns = ['product']`,
      ),
    );
    const first = ok(await srv.sql('INSERT INTO tickets SELECT id, body, product FROM files.tickets'));
    assert.deepEqual(first, {
      type: 'ok',
      affected_rows: 2000,
      inserted: 2000,
      updated: 0,
      unchanged: 0,
      failed: 0,
    });
    const again = ok(await srv.sql('INSERT INTO tickets SELECT id, body, product FROM files.tickets'));
    assert.equal(again.unchanged, 2000);
    assert.equal(again.inserted, 0);
    const mixed = ok(
      await srv.sql(
        `INSERT INTO tickets (id, body, product) VALUES ('ACME-1000', 'Changed text about refunds.', 'Zephyr'), ('ACME-1001', NULL, 'Quasar'), ('NEW-1', 'A brand new ticket.', 'Nimbus')`,
      ),
    );
    assert.deepEqual(
      [mixed.affected_rows, mixed.inserted, mixed.updated, mixed.unchanged, mixed.failed],
      [2, 1, 1, 0, 1],
    );
    // Put ACME-1000 back as generated, drop the extra row: the labelled set must stay exact.
    const restore = ok(await srv.sql('INSERT INTO tickets SELECT id, body, product FROM files.tickets'));
    assert.equal(restore.updated, 1);
    ok(await srv.sql(`DELETE FROM tickets WHERE id = 'NEW-1'`));
  });

  test('EVALUATE on 2,000 documents and 300 questions: hybrid beats both arms, identifiers rank 1', async () => {
    assert.ok(set.docs.length >= 2000 && set.questions.length >= 300);
    const vector = await evaluate('questions', 'vector');
    const keyword = await evaluate('questions', 'keyword');
    const hybrid = await evaluate('questions', 'hybrid');
    const figures = JSON.stringify({ vector, keyword, hybrid });
    assert.equal(hybrid.total, 300);
    assert.ok(hybrid.recall_at_10 >= Math.max(vector.recall_at_10, keyword.recall_at_10), figures);
    assert.ok(hybrid.mrr_at_10 >= Math.max(vector.mrr_at_10, keyword.mrr_at_10), figures);
    // Each arm finds what the other misses (paraphrases vs rare words), so the test means something.
    assert.ok(
      hybrid.recall_at_10 > vector.recall_at_10 && hybrid.recall_at_10 > keyword.recall_at_10,
      figures,
    );
    for (const mode of ['hybrid', 'keyword']) {
      const ids = await evaluate('id_questions', mode);
      assert.equal(ids.hits_at_1, ids.total, `${mode}: ${JSON.stringify(ids)}`);
    }
  });

  test("relevance is a fixed function of each hit's own score: stopwords find nothing, a threshold means the same for every question", async () => {
    const rows = async (q: string, tail: string) =>
      table(await srv.sql(`SELECT id, relevance FROM tickets WHERE content = '${q}' ${tail}`)).data.map(
        ([id, rel]) => [String(id), Number(rel)] as [string, number],
      );
    const modes = { vector: '', keyword: 'AND hybrid_search_alpha = 0', hybrid: 'AND hybrid_search = true' };
    for (const [mode, tail] of Object.entries(modes)) {
      assert.deepEqual(await rows('the of and', `${tail} AND relevance >= 0.5`), [], mode);
      assert.deepEqual(await rows('What is it? The, of, and', tail), [], mode);
    }
    const q = set.questions.find((x) => x.kind === 'keyword')!.question;
    for (const [mode, tail] of Object.entries(modes)) {
      // The same chunks score the same whether or not the best hit is among the candidates.
      const all = await rows(q, `${tail} LIMIT 6`);
      assert.equal(all.length, 6, mode);
      const rest = new Map(await rows(q, `${tail} AND id <> '${all[0][0]}' LIMIT 5`));
      for (const [id, rel] of all.slice(1)) assert.equal(rest.get(id), rel, `${mode} ${id}`);
      for (const [, rel] of all) assert.ok(rel >= 0 && rel <= 1, `${mode} ${rel}`);
    }
    // Hybrid relevance is alpha x the vector arm's + (1 - alpha) x the keyword arm's.
    const best = (await rows(q, `${modes.hybrid} LIMIT 1`))[0][0];
    const one = async (tail: string) => (await rows(q, `${tail} AND id = '${best}'`))[0][1];
    const v = await one('');
    const k = await one(modes.keyword);
    const h = await one('AND hybrid_search_alpha = 0.3');
    assert.ok(Math.abs(h - (0.3 * v + 0.7 * k)) < 1e-9, JSON.stringify({ v, k, h }));
    // No silent cap at 100 (the planner enforces kb.max_results).
    assert.equal((await rows('refund delayed', 'LIMIT 150')).length, 150);
  });

  test('a knowledge base joins with a files table in one query', async () => {
    const r = table(
      await srv.sql(
        `SELECT k.id, p.owner FROM tickets k JOIN files.products p ON p.product = k.product WHERE k.content = 'ACME-1005' AND k.hybrid_search = true ORDER BY k.relevance DESC LIMIT 1`,
      ),
    );
    const doc = set.docs.find((d) => d.id === 'ACME-1005')!;
    const owners = [...new Set(set.docs.map((d) => d.product))];
    assert.deepEqual(r.data, [['ACME-1005', `team ${owners.indexOf(doc.product)}`]]);
  });

  test('a provider answering with another vector size is an error naming it; nothing is stored', async () => {
    dims = 4;
    ok(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE sized USING embedding_model = {"provider": "openai", "model_name": "m4", "base_url": "${upstreamUrl}/v1", "api_key": "k"}`,
      ),
    );
    ok(await srv.sql(`INSERT INTO sized (id, content) VALUES (1, 'first')`));
    dims = 6;
    const e = err(await srv.sql(`INSERT INTO sized (id, content) VALUES (2, 'second')`));
    assert.match(e.error_message, /provider 'openai' \(model m4\) returned a vector of 6 dimensions/);
    assert.match(e.error_message, /holds 4/);
    const e2 = err(await srv.sql(`SELECT id FROM sized WHERE content = 'first'`));
    assert.match(
      e2.error_message,
      /returned a vector of 6 dimensions; the knowledge base 'sized'|6 dimensions/,
    );
    dims = 4;
    const rows = table(await srv.sql('SELECT id FROM sized'));
    assert.deepEqual(rows.data, [['1']]);
  });
});
