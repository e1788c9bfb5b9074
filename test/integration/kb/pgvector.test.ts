import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Result } from '../../../src/sql/result.js';
import { type PgliteServer, startPglite } from '../../helpers/pglite.js';
import { pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createPgDatabase, PG } from '../../helpers/services.js';
import { assertSameTopK, bruteForce, docText, type RawChunk } from './brute-force.js';

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

const N = 300;
const values = (from: number, to: number) =>
  Array.from(
    { length: to - from },
    (_, j) => `(${from + j}, '${docText(from + j)}', 'team${(from + j) % 5}', ${from + j})`,
  ).join(', ');

describe('knowledge bases stored in PostgreSQL with pgvector (PGlite over the wire protocol)', () => {
  let pgl: PgliteServer;
  let srv: TestServer;

  before(async () => {
    pgl = await startPglite();
    srv = await startTestServer();
    ok(await srv.sql(`CREATE DATABASE pgv WITH ENGINE = "postgres", PARAMETERS = ${pgl.params()}`));
  });
  after(async () => {
    await srv?.stop();
    await pgl?.stop();
  });

  const chunks = async (): Promise<RawChunk[]> =>
    (await pgl.query('SELECT chunk_id, embedding::text AS e, metadata, seq FROM kb_docs')).rows;

  test('CREATE makes a vector(dim) table with an HNSW cosine index; INSERT fills it', async () => {
    ok(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE vkb USING storage = pgv.kb_docs, metadata_columns = ['team', 'n'], preprocessing = {"chunk_size": 120, "chunk_overlap": 20}`,
      ),
    );
    const type = await pgl.query(
      `SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'kb_docs'::regclass AND attname = 'embedding'`,
    );
    assert.equal(type.rows[0].t, 'vector(256)');
    const idx = await pgl.query(`SELECT indexdef FROM pg_indexes WHERE tablename = 'kb_docs'`);
    assert.ok(
      idx.rows.some((r) => /USING hnsw \(embedding vector_cosine_ops\)/.test(r.indexdef)),
      JSON.stringify(idx.rows),
    );
    assert.equal(ok(await srv.sql(`INSERT INTO vkb (id, content, team, n) VALUES ${values(0, N)}`)), N);
    const show = table(await srv.sql(`SHOW KNOWLEDGE_BASES LIKE 'vkb'`));
    assert.equal(show.data[0][2], 'pgv.kb_docs');
    assert.equal(show.data[0][6], N);
    const stored = Number((await pgl.query('SELECT count(*) AS n FROM kb_docs')).rows[0].n);
    assert.ok(stored > N, 'documents are cut into several chunks');
    assert.equal(show.data[0][7], stored);
    const d = table(await srv.sql('DESCRIBE KNOWLEDGE_BASE vkb'));
    assert.match(String(d.data[0][d.column_names.indexOf('SEARCH')]), /HNSW/);
  });

  test('vector search equals a brute-force scan, with and without filters (a narrow filter still fills k)', async () => {
    const all = await chunks();
    const cases: [string, string, (m: Record<string, unknown>) => boolean, number][] = [
      ['refund delay customer', '', () => true, 10],
      ['refund delay customer', `AND team = 'TEAM3'`, (m) => m.team === 'team3', 10],
      ['server outage latency', 'AND n = 7', (m) => m.n === 7, 10],
      [
        'password login error',
        `AND n >= 250 AND team IN ('team1', 'team2')`,
        (m) => Number(m.n) >= 250 && ['team1', 'team2'].includes(String(m.team)),
        25,
      ],
      [
        'coupon discount',
        `AND team != 'team0' AND chunk_content LIKE '%COUPON%'`,
        (m) => m.team !== 'team0',
        15,
      ],
    ];
    for (const [question, where, keep, k] of cases) {
      const r = table(
        await srv.sql(
          `SELECT chunk_id, distance, team, n, chunk_content FROM vkb WHERE content = '${question}' ${where} LIMIT ${k}`,
        ),
      );
      let want = bruteForce(all, question, keep, all.length);
      if (where.includes('LIKE')) {
        const content = new Map(
          (await pgl.query('SELECT chunk_id, content FROM kb_docs')).rows.map((x) => [x.chunk_id, x.content]),
        );
        want = want.filter((w) => /coupon/i.test(content.get(w.chunkId)));
      }
      assertSameTopK(r.data, want.slice(0, k), `${question} ${where}`);
      if (where.includes('n = 7')) {
        assert.ok(r.data.length > 0 && r.data.every((x) => x[3] === 7));
      }
    }
  });

  test('hybrid search: BM25 postings in PostgreSQL; identifiers first; the filter holds on both arms', async () => {
    ok(
      await srv.sql(
        `INSERT INTO vkb (id, content, team, n) VALUES (1000, 'Login fails with error ACME-213 after the password reset.', 'team4', 1000)`,
      ),
    );
    const h = table(
      await srv.sql(
        `SELECT id, relevance FROM vkb WHERE content = 'ACME-213' AND hybrid_search = true LIMIT 5`,
      ),
    );
    assert.equal(String(h.data[0][0]), '1000');
    const rel = h.data.map((x) => Number(x[1]));
    for (const x of rel) assert.ok(x >= 0 && x <= 1);
    assert.deepEqual(
      [...rel].sort((a, b) => b - a),
      rel,
    );
    const f = table(
      await srv.sql(
        `SELECT id, team FROM vkb WHERE content = 'ACME-213 refund' AND team = 'team2' AND hybrid_search_alpha = 0.3 LIMIT 20`,
      ),
    );
    assert.equal(f.data.length, 20);
    assert.ok(f.data.every((x) => x[1] === 'team2'));
    const kwOnly = table(
      await srv.sql(`SELECT id FROM vkb WHERE content = 'ACME-213' AND hybrid_search_alpha = 0 LIMIT 3`),
    );
    assert.equal(String(kwOnly.data[0][0]), '1000');
  });

  test('upsert by id: unchanged rows are not written, a changed one replaces its chunks and postings; DELETE', async () => {
    const before = (await pgl.query('SELECT chunk_id, xmin::text AS x FROM kb_docs ORDER BY chunk_id')).rows;
    assert.equal(ok(await srv.sql(`INSERT INTO vkb (id, content, team, n) VALUES ${values(0, N)}`)), N);
    const again = (await pgl.query('SELECT chunk_id, xmin::text AS x FROM kb_docs ORDER BY chunk_id')).rows;
    assert.deepEqual(again, before, 'unchanged rows are neither re-embedded nor rewritten');
    ok(
      await srv.sql(
        `INSERT INTO vkb (id, content, team, n) VALUES (1000, 'Invoices are wrong since ZETA-9.', 'team4', 1000)`,
      ),
    );
    const r = table(await srv.sql(`SELECT chunk_id, chunk_content FROM vkb WHERE id = '1000'`));
    assert.deepEqual(r.data, [['1000:0', 'Invoices are wrong since ZETA-9.']]);
    const stale = await pgl.query(`SELECT count(*)::int AS n FROM kb_docs_terms WHERE term = 'acme-213'`);
    assert.equal(stale.rows[0].n, 0);
    const z = table(
      await srv.sql(`SELECT id FROM vkb WHERE content = 'ZETA-9' AND hybrid_search = true LIMIT 1`),
    );
    assert.equal(String(z.data[0][0]), '1000');
    assert.equal(ok(await srv.sql(`DELETE FROM vkb WHERE id = 1000`)), 1);
    assert.equal(table(await srv.sql(`SELECT * FROM vkb WHERE id = '1000'`)).data.length, 0);
    const orphans = await pgl.query(
      `SELECT count(*)::int AS n FROM kb_docs_terms t WHERE NOT EXISTS (SELECT 1 FROM kb_docs c WHERE c.chunk_id = t.chunk_id)`,
    );
    assert.equal(orphans.rows[0].n, 0);
    const stats = (await pgl.query('SELECT docs, chunks, total_len FROM kb_docs_stats')).rows[0];
    const real = (
      await pgl.query(
        'SELECT (SELECT count(*) FROM kb_docs_docs) AS docs, count(*) AS chunks, sum(len) AS total_len FROM kb_docs',
      )
    ).rows[0];
    assert.deepEqual(stats, real);
    assert.equal(Number(stats.docs), N);
  });

  test('the KB survives a restart of Tributary', async () => {
    const q = `SELECT chunk_id, distance FROM vkb WHERE content = 'weekly report backup' AND team = 'team1' LIMIT 5`;
    const before = table(await srv.sql(q));
    const dir = srv.storageDir;
    await srv.close();
    srv = await startTestServer({}, { storageDir: dir });
    assert.deepEqual(table(await srv.sql(q)).data, before.data);
    assert.equal(table(await srv.sql(`SHOW KNOWLEDGE_BASES LIKE 'vkb'`)).data[0][6], N);
  });

  test('a storage table already there is refused; DROP KNOWLEDGE_BASE drops the tables', async () => {
    const e = err(await srv.sql(`CREATE KNOWLEDGE_BASE other USING storage = pgv.kb_docs`));
    assert.equal(e.error_code, 1050);
    assert.match(e.error_message, /kb_docs' already exists in source 'pgv'/);
    ok(await srv.sql('DROP KNOWLEDGE_BASE vkb'));
    const left = await pgl.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'kb_docs%'`);
    assert.equal(left.rows[0].n, 0);
  });
});

describe('knowledge base storage in a PostgreSQL without pgvector', () => {
  let srv: TestServer;
  let db: { database: string; drop: () => Promise<void> };

  before(async () => {
    db = await createPgDatabase('kbnovec');
    srv = await startTestServer();
    ok(
      await srv.sql(
        `CREATE DATABASE plainpg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(db.database)}`,
      ),
    );
  });
  after(async () => {
    await srv?.stop();
    await db?.drop();
  });

  test('CREATE fails naming the source, and leaves nothing behind', async () => {
    const e = err(await srv.sql(`CREATE KNOWLEDGE_BASE nokb USING storage = plainpg.kb_docs`));
    assert.match(e.error_message, /pgvector is not installed in source 'plainpg'/);
    assert.equal(table(await srv.sql(`SHOW KNOWLEDGE_BASES LIKE 'nokb'`)).data.length, 0);
    const c = new pg.Client({ ...PG, database: db.database });
    await c.connect();
    try {
      const r = await c.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'kb_docs%'`);
      assert.equal(r.rows[0].n, 0);
    } finally {
      await c.end();
    }
  });

  test('storage must name a PostgreSQL source', async () => {
    const e = err(await srv.sql(`CREATE KNOWLEDGE_BASE nokb USING storage = nosuch.kb_docs`));
    assert.match(e.error_message, /nosuch/);
    const bad = err(await srv.sql(`CREATE KNOWLEDGE_BASE nokb USING storage = 'plainpg'`));
    assert.match(bad.error_message, /storage must be source\.table/);
  });
});
