import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Result } from '../../../src/sql/result.js';
import { pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createPgDatabase, pgExec } from '../../helpers/services.js';

function table(r: Result): { column_names: string[]; data: unknown[][] } {
  assert.equal(r.type, 'table', JSON.stringify(r));
  return r as { column_names: string[]; data: unknown[][] };
}
function ok(r: Result): number | null {
  assert.equal(r.type, 'ok', JSON.stringify(r));
  return (r as { affected_rows: number | null }).affected_rows;
}
function err(r: Result): { error_code: number; error_message: string } {
  assert.equal(r.type, 'error', JSON.stringify(r));
  return r as { error_code: number; error_message: string };
}

describe('knowledge bases: statements, search, joins, restart', () => {
  let srv: TestServer;
  let db: { database: string; drop: () => Promise<void> };

  before(async () => {
    db = await createPgDatabase('kb');
    await pgExec(
      db.database,
      `CREATE TABLE tickets (id int primary key, body text, customer_id int, priority text);
       INSERT INTO tickets VALUES
        (1, 'The refund for my order arrived late, three weeks after the return.', 10, 'high'),
        (2, 'Login fails with error ACME-213 after the password reset.', 11, 'low'),
        (3, 'Shipping was fast and the package arrived intact.', 10, 'low'),
        (4, 'Refunds take too long; I am still waiting for my money back.', 12, 'high');
       CREATE TABLE customers (id int primary key, name text);
       INSERT INTO customers VALUES (10, 'Ada'), (11, 'Bob'), (12, 'Cy');`,
    );
    srv = await startTestServer();
    ok(await srv.sql(`CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(db.database)}`));
  });
  after(async () => {
    await srv?.stop();
    await db?.drop();
  });

  test('CREATE with parameters in any order; SHOW and DESCRIBE list it', async () => {
    ok(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE tickets_kb USING metadata_columns = ['customer_id', 'priority'], embedding_model = {"provider": "builtin"}, content_columns = ['body'], id_column = 'id', preprocessing = {"chunk_size": 200, "chunk_overlap": 40}`,
      ),
    );
    const show = table(await srv.sql('SHOW KNOWLEDGE_BASES'));
    assert.deepEqual(show.column_names, [
      'NAME',
      'EMBEDDING_MODEL',
      'STORAGE',
      'METADATA_COLUMNS',
      'CONTENT_COLUMNS',
      'ID_COLUMN',
      'ROWS',
      'CHUNKS',
    ]);
    assert.equal(show.data[0][0], 'tickets_kb');
    assert.deepEqual(show.data[0][3], ['customer_id', 'priority']);
    assert.equal((show.data[0][1] as { provider: string }).provider, 'builtin');
    const d = table(await srv.sql('DESCRIBE KNOWLEDGE_BASE tickets_kb'));
    assert.match(String(d.data[0][d.column_names.indexOf('SEARCH')]), /matches words, not meanings/);
    ok(await srv.sql(`CREATE KNOWLEDGE_BASE IF NOT EXISTS tickets_kb USING content_columns = ['body']`));
    assert.equal(err(await srv.sql(`CREATE KNOWLEDGE_BASE tickets_kb`)).error_code, 1050);
  });

  test('bad parameters are errors naming them, and store nothing', async () => {
    const e = err(await srv.sql(`CREATE KNOWLEDGE_BASE bad_kb USING chunk_sise = 3`));
    assert.match(e.error_message, /unknown parameter 'chunk_sise'/);
    const e2 = err(
      await srv.sql(`CREATE KNOWLEDGE_BASE bad_kb USING embedding_model = {"provider": "nope"}`),
    );
    assert.match(e2.error_message, /unknown embedding provider 'nope'/);
    const e3 = err(await srv.sql(`CREATE KNOWLEDGE_BASE bad_kb USING content_columns = []`));
    assert.equal(e3.error_code, 1210);
    assert.match(e3.error_message, /^Knowledge base 'bad_kb': content_columns must name at least one column/);
    const names = table(await srv.sql('SHOW KNOWLEDGE_BASES')).data.map((r) => r[0]);
    assert.ok(!names.includes('bad_kb'));
  });

  test('INSERT ... SELECT from PostgreSQL chunks and stores; unchanged rows are counted, not re-embedded', async () => {
    assert.equal(
      ok(await srv.sql('INSERT INTO tickets_kb SELECT id, body, customer_id, priority FROM pg.tickets')),
      4,
    );
    assert.equal(
      ok(await srv.sql('INSERT INTO tickets_kb SELECT id, body, customer_id, priority FROM pg.tickets')),
      4,
    );
    const show = table(await srv.sql('SHOW KNOWLEDGE_BASES'));
    assert.equal(show.data[0][6], 4);
    const e = err(
      await srv.sql(
        'INSERT INTO tickets_kb SELECT id, body, name FROM pg.tickets JOIN pg.customers USING (id)',
      ),
    );
    assert.equal(e.error_code, 1054);
    assert.match(e.error_message, /'name'/);
  });

  test('semantic SELECT orders by relevance with the documented columns', async () => {
    const r = table(await srv.sql(`SELECT * FROM tickets_kb WHERE content = 'late refund' LIMIT 3`));
    assert.deepEqual(r.column_names, [
      'id',
      'chunk_id',
      'chunk_content',
      'metadata',
      'customer_id',
      'priority',
      'distance',
      'relevance',
    ]);
    assert.equal(r.data.length, 3);
    assert.ok(['1', '4'].includes(String(r.data[0][0])));
    const rel = r.data.map((x) => x[7] as number);
    assert.deepEqual(
      [...rel].sort((a, b) => b - a),
      rel,
    );
    for (const x of rel) assert.ok(x >= 0 && x <= 1);
    assert.deepEqual(r.data[0][3], { customer_id: r.data[0][4], priority: r.data[0][5] });
  });

  test('metadata filters apply before the top k; unknown metadata column is 1054', async () => {
    const r = table(
      await srv.sql(
        `SELECT id, priority FROM tickets_kb WHERE content = 'refund' AND priority = 'low' LIMIT 1`,
      ),
    );
    assert.equal(r.data.length, 1);
    assert.equal(r.data[0][1], 'low');
    const e = err(await srv.sql(`SELECT * FROM tickets_kb WHERE content = 'refund' AND colour = 'red'`));
    assert.equal(e.error_code, 1054);
    assert.match(e.error_message, /colour/);
    const gt = table(
      await srv.sql(`SELECT id FROM tickets_kb WHERE content = 'refund' AND customer_id >= 11`),
    );
    for (const row of gt.data) assert.ok(['2', '4'].includes(String(row[0])));
  });

  test('relevance threshold and hybrid search; an identifier finds its document first', async () => {
    const all = table(
      await srv.sql(`SELECT relevance FROM tickets_kb WHERE content = 'refund' AND relevance >= 0.2`),
    );
    for (const row of all.data) assert.ok((row[0] as number) >= 0.2);
    const h = table(
      await srv.sql(`SELECT id FROM tickets_kb WHERE content = 'ACME-213' AND hybrid_search = true`),
    );
    assert.equal(String(h.data[0][0]), '2');
    const a = table(
      await srv.sql(
        `SELECT id, relevance FROM tickets_kb WHERE content = 'ACME-213' AND hybrid_search_alpha = 0.3`,
      ),
    );
    assert.equal(String(a.data[0][0]), '2');
  });

  test('without content the KB filters like a table', async () => {
    const r = table(await srv.sql(`SELECT id FROM tickets_kb WHERE priority = 'high' ORDER BY id`));
    assert.deepEqual(
      r.data.map((x) => String(x[0])),
      ['1', '4'],
    );
  });

  test('a KB joins with a PostgreSQL table in one query', async () => {
    const r = table(
      await srv.sql(
        `SELECT c.name, kb.id FROM tickets_kb kb JOIN pg.customers c ON c.id = kb.customer_id WHERE kb.content = 'refund money back' ORDER BY kb.relevance DESC LIMIT 2`,
      ),
    );
    assert.equal(r.data.length, 2);
    assert.ok(r.data.every((x) => ['Ada', 'Bob', 'Cy'].includes(String(x[0]))));
  });

  test('INSERT VALUES upserts by id; a changed document replaces exactly its chunks; DELETE by id', async () => {
    ok(
      await srv.sql(
        `INSERT INTO tickets_kb (id, body, priority) VALUES (50, 'A brand new ticket about invoices.', 'low')`,
      ),
    );
    ok(
      await srv.sql(
        `INSERT INTO tickets_kb (id, body, priority) VALUES (50, 'Invoice totals are wrong.', 'low')`,
      ),
    );
    const r = table(await srv.sql(`SELECT chunk_id, chunk_content FROM tickets_kb WHERE id = '50'`));
    assert.deepEqual(r.data, [['50:0', 'Invoice totals are wrong.']]);
    assert.equal(ok(await srv.sql(`DELETE FROM tickets_kb WHERE id = 50`)), 1);
    assert.equal(table(await srv.sql(`SELECT * FROM tickets_kb WHERE id = '50'`)).data.length, 0);
  });

  test('EVALUATE scores questions from a table', async () => {
    await pgExec(
      db.database,
      `CREATE TABLE qs (question text, doc_id text);
       INSERT INTO qs VALUES ('error ACME-213 at login', '2'), ('package shipping fast', '3');`,
    );
    const r = table(
      await srv.sql(`EVALUATE KNOWLEDGE_BASE tickets_kb USING test_table = pg.qs, search = 'hybrid'`),
    );
    assert.deepEqual(r.column_names, [
      'total',
      'hits_at_1',
      'hits_at_10',
      'recall_at_10',
      'mrr_at_10',
      'avg_query_ms',
    ]);
    assert.equal(r.data[0][0], 2);
    assert.equal(r.data[0][1], 2);
  });

  test('KBs and their chunks survive a restart', async () => {
    const before = table(await srv.sql(`SELECT id FROM tickets_kb WHERE content = 'late refund' LIMIT 2`));
    const dir = srv.storageDir;
    await srv.close();
    srv = await startTestServer({}, { storageDir: dir });
    const again = table(await srv.sql(`SELECT id FROM tickets_kb WHERE content = 'late refund' LIMIT 2`));
    assert.deepEqual(again.data, before.data);
    assert.ok(readFileSync(join(dir, 'catalog.json'), 'utf8').includes('tickets_kb'));
  });

  test('DROP KNOWLEDGE_BASE removes it; IF EXISTS tolerates absence', async () => {
    ok(await srv.sql('DROP KNOWLEDGE_BASE tickets_kb'));
    ok(await srv.sql('DROP KNOWLEDGE_BASE IF EXISTS tickets_kb'));
    assert.equal(err(await srv.sql('DROP KNOWLEDGE_BASE tickets_kb')).error_code, 1146);
  });
});
