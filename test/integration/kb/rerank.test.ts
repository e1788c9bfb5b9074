import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Result } from '../../../src/sql/result.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { overlap, RerankServer } from './rerank-server.js';

const KEY = 'rk-secret-0123456789abcdef';

function table(r: Result): { column_names: string[]; data: unknown[][] } {
  assert.equal(r.type, 'table', JSON.stringify(r));
  return r as { column_names: string[]; data: unknown[][] };
}
function ok(r: Result): void {
  assert.equal(r.type, 'ok', JSON.stringify(r));
}
function err(r: Result): { error_code: number; error_message: string } {
  assert.equal(r.type, 'error', JSON.stringify(r));
  return r as { error_code: number; error_message: string };
}

const DOCS = [
  ['1', 'refund delayed after the return was received'],
  ['2', 'the refund was approved and paid'],
  ['3', 'password reset link expired'],
  ['4', 'refund delayed because the bank rejected the transfer'],
  ['5', 'shipment lost in transfer between warehouses'],
  ['6', 'invoice total wrong on renewal'],
];

describe('knowledge bases: reranking_model (a Cohere-compatible /rerank on 127.0.0.1)', () => {
  let srv: TestServer;
  const rr = new RerankServer();
  const dir = mkdtempSync(join(tmpdir(), 'tributary-i29-rerank-'));

  const search = async (q: string, tail = '') =>
    table(await srv.sql(`SELECT id, relevance FROM kb WHERE content = '${q}' ${tail}`)).data.map(
      ([id, rel]) => [String(id), Number(rel)] as [string, number],
    );

  before(async () => {
    await rr.start();
    // Loopback providers need no setting: KB egress allows loopback by default.
    srv = await startTestServer({}, { storageDir: dir });
    ok(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE kb USING reranking_model = {"provider": "cohere", "model_name": "rerank-test", "base_url": "${rr.url}/v2", "api_key": "${KEY}"}`,
      ),
    );
    ok(
      await srv.sql(
        `INSERT INTO kb (id, content) VALUES ${DOCS.map(([id, c]) => `('${id}', '${c}')`).join(', ')}`,
      ),
    );
  });
  after(async () => {
    await srv?.stop();
    rr.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the top candidates go to POST {base_url}/rerank; rows come in its order with its score as relevance', async () => {
    rr.calls.length = 0;
    const rows = await search('refund delayed bank', 'LIMIT 2');
    assert.equal(rr.calls.length, 1);
    const call = rr.calls[0];
    assert.equal(call.path, '/v2/rerank');
    assert.equal(call.auth, `Bearer ${KEY}`);
    assert.equal(call.body.model, 'rerank-test');
    assert.equal(call.body.query, 'refund delayed bank');
    // All 6 chunks are candidates (fewer than 50), each sent once; top_n asks for every score.
    assert.equal(call.body.documents!.length, 6);
    assert.equal(call.body.top_n, 6);
    const byContent = new Map(DOCS.map(([id, c]) => [c, id]));
    const expected = call.body
      .documents!.map((d) => [byContent.get(d)!, overlap('refund delayed bank', d)] as [string, number])
      .sort((a, b) => b[1] - a[1])
      .slice(0, 2);
    assert.deepEqual(rows, expected);
    assert.deepEqual(rows[0], ['4', 1]);
    // The threshold applies to the reranker's score.
    assert.deepEqual(
      (await search('refund delayed bank', 'AND relevance >= 0.5')).map((r) => r[0]),
      ['4', '1'],
    );
  });

  test('EVALUATE reranks unless reranking = false, which sends nothing to the reranking model', async () => {
    const res = await fetch(`${srv.url}/api/files/q`, {
      method: 'PUT',
      body: 'question,doc_id\nrefund delayed bank,4\nexpired password link,3\n',
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(res.status, 201, await res.text());
    const run = async (tail: string) => {
      const r = table(await srv.sql(`EVALUATE KNOWLEDGE_BASE kb USING test_table = files.q${tail}`));
      return Object.fromEntries(r.column_names.map((c, i) => [c, r.data[0][i]]));
    };
    rr.calls.length = 0;
    const off = await run(', reranking = false');
    assert.equal(rr.calls.length, 0);
    assert.equal(off.total, 2);
    const on = await run('');
    assert.equal(rr.calls.length, 2);
    assert.deepEqual([on.hits_at_1, on.recall_at_10], [2, 1]);
    const bad = err(await srv.sql(`EVALUATE KNOWLEDGE_BASE kb USING test_table = files.q, reranking = 'no'`));
    assert.match(bad.error_message, /reranking must be true or false/);
  });

  test('both answer shapes: {results|data: [{index, relevance_score}]} and TEI [{index, score}]; logits through the logistic', async () => {
    const base = await search('refund delayed bank', 'LIMIT 3');
    for (const shape of ['data', 'bare'] as const) {
      rr.shape = shape;
      assert.deepEqual(await search('refund delayed bank', 'LIMIT 3'), base, shape);
    }
    rr.shape = 'results';
    rr.logits = true;
    const logit = await search('refund delayed bank', 'LIMIT 3');
    rr.logits = false;
    assert.deepEqual(
      logit.map((r) => r[0]),
      base.map((r) => r[0]),
    );
    for (const [, rel] of logit) assert.ok(rel > 0 && rel < 1, String(rel));
    ok(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE tei_kb USING reranking_model = {"provider": "tei", "model_name": "bge-reranker", "base_url": "${rr.url}/tei", "batch_size": 4}`,
      ),
    );
    ok(
      await srv.sql(
        `INSERT INTO tei_kb (id, content) VALUES ${DOCS.map(([id, c]) => `('${id}', '${c}')`).join(', ')}`,
      ),
    );
    rr.calls.length = 0;
    const tei = table(
      await srv.sql(`SELECT id, relevance FROM tei_kb WHERE content = 'refund delayed bank' LIMIT 3`),
    );
    assert.deepEqual(
      tei.data.map(([id, rel]) => [String(id), Number(rel)]),
      base,
    );
    // TEI's body: query and texts, in batches of batch_size.
    assert.deepEqual(
      rr.calls.map((c) => [c.path, c.body.texts?.length, c.body.documents]),
      [
        ['/tei/rerank', 4, undefined],
        ['/tei/rerank', 2, undefined],
      ],
    );
  });

  test('the api_key is sealed at rest and never shown; ALTER changes the key or the model', async () => {
    for (const q of ['SHOW KNOWLEDGE_BASES', 'DESCRIBE KNOWLEDGE_BASE kb'])
      assert.ok(!JSON.stringify(await srv.sql(q)).includes(KEY), q);
    const d = table(await srv.sql('DESCRIBE KNOWLEDGE_BASE kb'));
    assert.deepEqual(d.data[0][d.column_names.indexOf('RERANKING_MODEL')], {
      provider: 'cohere',
      model_name: 'rerank-test',
      base_url: `${rr.url}/v2`,
    });
    assert.ok(!readFileSync(join(srv.storageDir, 'catalog.json'), 'utf8').includes(KEY));
    ok(await srv.sql(`ALTER KNOWLEDGE_BASE kb USING reranking_model = {"api_key": "rk-new-key-000"}`));
    rr.calls.length = 0;
    await search('refund');
    assert.equal(rr.calls[0].auth, 'Bearer rk-new-key-000');
    assert.equal(rr.calls[0].body.model, 'rerank-test');
    const bad = err(
      await srv.sql(
        `ALTER KNOWLEDGE_BASE kb USING reranking_model = {"provider": "nope", "model_name": "x"}`,
      ),
    );
    assert.equal(bad.error_code, 1210);
    assert.match(bad.error_message, /unknown reranking provider 'nope'/);
    const unknown = err(await srv.sql(`ALTER KNOWLEDGE_BASE kb USING reranking_model = {"model": "x"}`));
    assert.match(unknown.error_message, /unknown reranking_model parameter 'model'/);
    ok(
      await srv.sql(
        `ALTER KNOWLEDGE_BASE kb USING reranking_model = {"model_name": "rerank-2", "base_url": "${rr.url}/v2", "api_key": "${KEY}"}`,
      ),
    );
    rr.calls.length = 0;
    await search('refund');
    assert.deepEqual([rr.calls[0].auth, rr.calls[0].body.model], [`Bearer ${KEY}`, 'rerank-2']);
    assert.ok(!readFileSync(join(srv.storageDir, 'catalog.json'), 'utf8').includes(KEY));
  });

  test('a KB without a reranking model cannot have its reranker key altered; CREATE refuses a bad model', async () => {
    ok(await srv.sql(`CREATE KNOWLEDGE_BASE plain`));
    const e = err(await srv.sql(`ALTER KNOWLEDGE_BASE plain USING reranking_model = {"api_key": "x"}`));
    assert.match(e.error_message, /plain.*no reranking_model/);
    const e2 = err(await srv.sql(`CREATE KNOWLEDGE_BASE bad USING reranking_model = {"provider": "cohere"}`));
    assert.deepEqual(
      [e2.error_code, /reranking_model needs model_name/.test(e2.error_message)],
      [1210, true],
    );
    const e3 = err(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE bad USING reranking_model = {"model_name": "m", "base_url": "ftp://x"}`,
      ),
    );
    assert.match(e3.error_message, /base_url must be http or https/);
  });

  test('provider errors name the KB, the provider, the model and the status, with a bounded excerpt and no key', async () => {
    rr.fail = {
      status: 401,
      body: JSON.stringify({ message: `invalid api token ${KEY} ${'x'.repeat(5000)}` }),
      times: 1,
    };
    const e = err(await srv.sql(`SELECT id FROM kb WHERE content = 'refund'`));
    assert.match(
      e.error_message,
      /^Knowledge base 'kb': reranking provider 'cohere' \(model rerank-2\) answered HTTP 401: /,
    );
    assert.match(e.error_message, /invalid api token/);
    assert.ok(!e.error_message.includes(KEY), e.error_message);
    assert.ok(e.error_message.length < 400, String(e.error_message.length));
    // 5xx are retried; a shape the client cannot read is a clear error.
    rr.fail = { status: 503, body: 'busy', times: 1 };
    assert.equal((await search('refund', 'LIMIT 1')).length, 1);
    rr.fail = {
      status: 200,
      body: JSON.stringify({ results: [{ index: 99, relevance_score: 0.5 }] }),
      times: 1,
    };
    const e2 = err(await srv.sql(`SELECT id FROM kb WHERE content = 'refund'`));
    assert.match(
      e2.error_message,
      /reranking provider 'cohere' \(model rerank-2\) answered with an index outside the 6 documents sent: 99/,
    );
    rr.fail = { status: 200, body: JSON.stringify({ ok: true }), times: 1 };
    const e3 = err(await srv.sql(`SELECT id FROM kb WHERE content = 'refund'`));
    assert.match(e3.error_message, /answered without results/);
    rr.fail = null;
    // Nothing listening: the address is named, the code is 2003 (as for embedding providers).
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    ok(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE down USING reranking_model = {"model_name": "m", "base_url": "http://127.0.0.1:${port}", "api_key": "${KEY}"}`,
      ),
    );
    ok(await srv.sql(`INSERT INTO down (id, content) VALUES (1, 'refund')`));
    const e4 = err(await srv.sql(`SELECT id FROM down WHERE content = 'refund'`));
    assert.equal(e4.error_code, 2003);
    assert.match(
      e4.error_message,
      new RegExp(
        `^Knowledge base 'down': reranking provider 'cohere' \\(model m\\) at http://127.0.0.1:${port}/rerank failed`,
      ),
    );
    assert.ok(!e4.error_message.includes(KEY));
  });

  test('the sealed key opens again after a restart', async () => {
    await srv.stop();
    srv = await startTestServer({}, { storageDir: dir });
    rr.calls.length = 0;
    assert.deepEqual((await search('refund delayed bank', 'LIMIT 1'))[0], ['4', 1]);
    assert.deepEqual([rr.calls[0].auth, rr.calls[0].body.model], [`Bearer ${KEY}`, 'rerank-2']);
  });
});
