/**
 * A knowledge-base search composes like a relation (SPEC section 8, "A search is a
 * relation"): the same search alone, joined, nested, grouped, with and without LIMIT/ORDER
 * BY, on the embedded store and on pgvector (PGlite), each answer checked against an
 * oracle: every hit of the question with its relevance and hit_rank (the search alone with a
 * k larger than the KB) loaded into a plain PostgreSQL table, and the statement rewritten
 * to read that table (rows without ORDER BY in hit_rank order).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Result } from '../../../src/sql/result.js';
import { type PgliteServer, startPglite } from '../../helpers/pglite.js';
import { pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createPgDatabase, PG, pgExec } from '../../helpers/services.js';
import { docText } from './brute-force.js';

function table(r: Result, what = ''): { column_names: string[]; data: unknown[][] } {
  assert.equal(r.type, 'table', `${what}: ${JSON.stringify(r)}`);
  return r as { column_names: string[]; data: unknown[][] };
}
function ok(r: Result): void {
  assert.equal(r.type, 'ok', JSON.stringify(r));
}
function err(r: Result): { error_code: number; error_message: string } {
  assert.equal(r.type, 'error', JSON.stringify(r));
  return r as { error_code: number; error_message: string };
}

const N = 90;
const PRIORITIES = ['low', 'high', 'urgent'];
const QUESTIONS = ['refund delay customer', 'server outage latency'];

/** One statement over the KB and the same statement over the oracle table `{H}`. */
interface Case {
  name: string;
  kb: string;
  oracle: string;
  /** Compare row order too (the statement orders, or has no ORDER BY: relevance order). */
  ordered: boolean;
}

const CASES: Case[] = [
  {
    name: 'alone, LIMIT 5',
    kb: `SELECT chunk_id, relevance FROM {K} WHERE content = '{Q}' LIMIT 5`,
    oracle: `SELECT chunk_id, relevance FROM {H} ORDER BY hit_rank LIMIT 5`,
    ordered: true,
  },
  {
    name: 'alone, default k',
    kb: `SELECT chunk_id FROM {K} WHERE content = '{Q}'`,
    oracle: `SELECT chunk_id FROM {H} WHERE hit_rank <= 10 ORDER BY hit_rank`,
    ordered: true,
  },
  {
    name: 'alone, ORDER BY relevance DESC LIMIT 7 OFFSET 2',
    kb: `SELECT chunk_id, id FROM {K} WHERE content = '{Q}' ORDER BY relevance DESC LIMIT 7 OFFSET 2`,
    oracle: `SELECT chunk_id, id FROM {H} ORDER BY relevance DESC, hit_rank LIMIT 7 OFFSET 2`,
    ordered: true,
  },
  {
    name: 'alone, threshold without LIMIT: every hit above it',
    kb: `SELECT chunk_id FROM {K} WHERE content = '{Q}' AND relevance >= {X}`,
    oracle: `SELECT chunk_id FROM {H} WHERE relevance >= {X} ORDER BY hit_rank`,
    ordered: true,
  },
  {
    name: 'COUNT(*) with a threshold',
    kb: `SELECT COUNT(*) FROM {K} WHERE content = '{Q}' AND relevance >= {X}`,
    oracle: `SELECT COUNT(*) FROM {H} WHERE relevance >= {X}`,
    ordered: true,
  },
  {
    name: 'COUNT(*) FROM kb LIMIT 1 (no question: every chunk)',
    kb: `SELECT COUNT(*) FROM {K} LIMIT 1`,
    oracle: `SELECT COUNT(*) FROM {H} LIMIT 1`,
    ordered: true,
  },
  {
    name: 'GROUP BY with a threshold, LIMIT 2',
    kb: `SELECT priority, COUNT(*) AS n FROM {K} WHERE content = '{Q}' AND relevance >= {X} GROUP BY priority ORDER BY priority LIMIT 2`,
    oracle: `SELECT priority, COUNT(*) AS n FROM {H} WHERE relevance >= {X} GROUP BY priority ORDER BY priority LIMIT 2`,
    ordered: true,
  },
  {
    name: 'GROUP BY without a question, LIMIT 2',
    kb: `SELECT priority, COUNT(*) AS n FROM {K} GROUP BY priority ORDER BY priority LIMIT 2`,
    oracle: `SELECT priority, COUNT(*) AS n FROM {H} GROUP BY priority ORDER BY priority LIMIT 2`,
    ordered: true,
  },
  {
    name: 'join, LIMIT 5 without ORDER BY (README): the 5 best-ranked joined rows',
    kb: `SELECT c.name, kb.chunk_id, kb.relevance FROM {K} kb JOIN pg.customers c ON c.id = kb.customer_id WHERE kb.content = '{Q}' LIMIT 5`,
    oracle: `SELECT c.name, h.chunk_id, h.relevance FROM {H} h JOIN pg.customers c ON c.id = h.customer_id ORDER BY h.hit_rank LIMIT 5`,
    ordered: true,
  },
  {
    name: 'join, filter on the other table, ORDER BY relevance DESC LIMIT 50',
    kb: `SELECT c.name, kb.chunk_id FROM {K} kb JOIN pg.customers c ON c.id = kb.customer_id WHERE kb.content = '{Q}' AND c.tier = 'enterprise' ORDER BY kb.relevance DESC LIMIT 50`,
    oracle: `SELECT c.name, h.chunk_id FROM {H} h JOIN pg.customers c ON c.id = h.customer_id WHERE c.tier = 'enterprise' ORDER BY h.relevance DESC, h.hit_rank LIMIT 50`,
    ordered: true,
  },
  {
    name: 'join, filter on the KB side, LIMIT 5',
    kb: `SELECT c.name, kb.chunk_id FROM {K} kb JOIN pg.customers c ON c.id = kb.customer_id WHERE kb.content = '{Q}' AND kb.priority = 'high' LIMIT 5`,
    oracle: `SELECT c.name, h.chunk_id FROM {H} h JOIN pg.customers c ON c.id = h.customer_id WHERE h.priority = 'high' ORDER BY h.hit_rank LIMIT 5`,
    ordered: true,
  },
  {
    name: 'join without LIMIT: the default 10 hits, joined, in relevance order',
    kb: `SELECT c.name, kb.chunk_id FROM {K} kb JOIN pg.customers c ON c.id = kb.customer_id WHERE kb.content = '{Q}'`,
    oracle: `SELECT c.name, h.chunk_id FROM (SELECT * FROM {H} ORDER BY hit_rank LIMIT 10) h JOIN pg.customers c ON c.id = h.customer_id ORDER BY h.hit_rank`,
    ordered: true,
  },
  {
    name: 'join, a KB condition the store cannot evaluate (BETWEEN), LIMIT 4',
    kb: `SELECT c.name, kb.chunk_id FROM {K} kb JOIN pg.customers c ON c.id = kb.customer_id WHERE kb.content = '{Q}' AND kb.amount BETWEEN 100 AND 300 LIMIT 4`,
    oracle: `SELECT c.name, h.chunk_id FROM {H} h JOIN pg.customers c ON c.id = h.customer_id WHERE h.amount BETWEEN 100 AND 300 ORDER BY h.hit_rank LIMIT 4`,
    ordered: true,
  },
  {
    name: 'LEFT JOIN, the KB on the null side with a condition of its own ON',
    kb: `SELECT c.id, kb.chunk_id FROM pg.customers c LEFT JOIN {K} kb ON kb.customer_id = c.id AND kb.priority = 'urgent' WHERE kb.content = '{Q}' ORDER BY c.id, kb.relevance DESC`,
    oracle: `SELECT c.id, h.chunk_id FROM pg.customers c LEFT JOIN (SELECT * FROM {H} WHERE priority = 'urgent' ORDER BY hit_rank LIMIT 10) h ON h.customer_id = c.id ORDER BY c.id, h.relevance DESC`,
    ordered: true,
  },
  {
    name: 'LEFT JOIN, the KB preserved, LIMIT 8',
    kb: `SELECT kb.chunk_id, c.name FROM {K} kb LEFT JOIN pg.customers c ON c.id = kb.customer_id WHERE kb.content = '{Q}' LIMIT 8`,
    oracle: `SELECT h.chunk_id, c.name FROM {H} h LEFT JOIN pg.customers c ON c.id = h.customer_id ORDER BY h.hit_rank LIMIT 8`,
    ordered: true,
  },
  {
    name: 'derived table with its own LIMIT',
    kb: `SELECT d.chunk_id FROM (SELECT chunk_id, relevance FROM {K} WHERE content = '{Q}' LIMIT 6) d ORDER BY d.relevance DESC`,
    oracle: `SELECT d.chunk_id FROM (SELECT chunk_id, relevance, hit_rank FROM {H} ORDER BY hit_rank LIMIT 6) d ORDER BY d.relevance DESC, d.hit_rank`,
    ordered: true,
  },
  {
    name: 'derived table, LIMIT outside',
    kb: `SELECT d.id FROM (SELECT id, relevance FROM {K} WHERE content = '{Q}' AND relevance >= {X}) d ORDER BY d.relevance DESC LIMIT 3`,
    oracle: `SELECT d.id FROM (SELECT id, relevance, hit_rank FROM {H} WHERE relevance >= {X}) d ORDER BY d.relevance DESC, d.hit_rank LIMIT 3`,
    ordered: true,
  },
  {
    name: 'CTE under COUNT',
    kb: `WITH top AS (SELECT id, chunk_id FROM {K} WHERE content = '{Q}' AND relevance >= {X}) SELECT COUNT(*), COUNT(DISTINCT id) FROM top`,
    oracle: `WITH top AS (SELECT id, chunk_id FROM {H} WHERE relevance >= {X}) SELECT COUNT(*), COUNT(DISTINCT id) FROM top`,
    ordered: true,
  },
  {
    name: 'IN-subquery',
    kb: `SELECT c.name FROM pg.customers c WHERE c.id IN (SELECT customer_id FROM {K} WHERE content = '{Q}' AND relevance >= {X}) ORDER BY c.id`,
    oracle: `SELECT c.name FROM pg.customers c WHERE c.id IN (SELECT customer_id FROM {H} WHERE relevance >= {X}) ORDER BY c.id`,
    ordered: true,
  },
  {
    name: 'UNION branch',
    kb: `SELECT chunk_id FROM {K} WHERE content = '{Q}' AND relevance >= {X} UNION ALL SELECT 'none'`,
    oracle: `SELECT chunk_id FROM {H} WHERE relevance >= {X} UNION ALL SELECT 'none'`,
    ordered: false,
  },
  {
    name: 'LIMIT 500 (above the old cap of 100)',
    kb: `SELECT COUNT(*) FROM (SELECT chunk_id FROM {K} WHERE content = '{Q}' LIMIT 500) d`,
    oracle: `SELECT COUNT(*) FROM (SELECT chunk_id FROM {H} ORDER BY hit_rank LIMIT 500) d`,
    ordered: true,
  },
  {
    name: 'amount BETWEEN 100 AND 200 (DECIMAL metadata)',
    kb: `SELECT chunk_id, amount FROM {K} WHERE content = '{Q}' AND amount BETWEEN 100 AND 200 LIMIT 5`,
    oracle: `SELECT chunk_id, amount FROM {H} WHERE amount BETWEEN 100 AND 200 ORDER BY hit_rank LIMIT 5`,
    ordered: true,
  },
  {
    name: `amount > '400' compares numbers`,
    kb: `SELECT chunk_id, amount FROM {K} WHERE content = '{Q}' AND amount > '400' LIMIT 5`,
    oracle: `SELECT chunk_id, amount FROM {H} WHERE amount > 400 ORDER BY hit_rank LIMIT 5`,
    ordered: true,
  },
  {
    name: `priority = 'URGENT ' under MySQL's collation`,
    kb: `SELECT chunk_id, priority FROM {K} WHERE content = '{Q}' AND priority = 'URGENT ' LIMIT 5`,
    oracle: `SELECT chunk_id, priority FROM {H} WHERE priority = 'urgent' ORDER BY hit_rank LIMIT 5`,
    ordered: true,
  },
  {
    name: 'OR and NOT on metadata',
    kb: `SELECT chunk_id FROM {K} WHERE content = '{Q}' AND (priority = 'high' OR NOT amount >= 50) LIMIT 6`,
    oracle: `SELECT chunk_id FROM {H} WHERE (priority = 'high' OR NOT amount >= 50) ORDER BY hit_rank LIMIT 6`,
    ordered: true,
  },
  {
    name: 'content LIKE: a text filter on the chunk',
    kb: `SELECT chunk_id FROM {K} WHERE content = '{Q}' AND content LIKE '%Invoice%' LIMIT 5`,
    oracle: `SELECT chunk_id FROM {H} WHERE chunk_content LIKE '%INVOICE%' ORDER BY hit_rank LIMIT 5`,
    ordered: true,
  },
];

/** A cell as compared: numbers to 6 places (DECIMAL text and doubles alike), the rest as text. */
const cell = (v: unknown) =>
  v === null || v === undefined
    ? 'NULL'
    : typeof v === 'number' || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v))
      ? Number(v).toFixed(6)
      : String(v);

describe('a knowledge-base search composes as a relation (oracle: every hit in a plain table)', () => {
  let srv: TestServer;
  let db: { database: string; drop: () => Promise<void> };
  let pgl: PgliteServer;
  let client: pg.Client;

  before(async () => {
    db = await createPgDatabase('i29_relation');
    const tickets = Array.from(
      { length: N },
      (_, i) =>
        `(${i}, '${docText(i)}', ${10 + (i % 6)}, '${PRIORITIES[i % 3]}', ${((i * 37) % 500) + 0.25})`,
    ).join(', ');
    await pgExec(
      db.database,
      `CREATE TABLE tickets (id int primary key, body text, customer_id int, priority text, amount numeric(10,2));
       INSERT INTO tickets VALUES ${tickets};
       CREATE TABLE customers (id int primary key, name text, tier text);
       INSERT INTO customers VALUES (10, 'Ada', 'enterprise'), (11, 'Bob', 'free'), (12, 'Cy', 'free'),
         (13, 'Di', 'enterprise'), (14, 'Ed', 'free'), (16, 'Flo', 'enterprise');
       CREATE TABLE hits (id text, chunk_id text, chunk_content text, customer_id int, priority text,
         amount numeric(10,2), distance float8, relevance float8, hit_rank int);`,
    );
    client = new pg.Client({ ...PG, database: db.database });
    await client.connect();
    pgl = await startPglite();
    srv = await startTestServer();
    ok(await srv.sql(`CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(db.database)}`));
    ok(await srv.sql(`CREATE DATABASE pgv WITH ENGINE = "postgres", PARAMETERS = ${pgl.params()}`));
    const using = `content_columns = ['body'], metadata_columns = ['customer_id', 'priority', 'amount'], preprocessing = {"chunk_size": 120, "chunk_overlap": 20}`;
    ok(await srv.sql(`CREATE KNOWLEDGE_BASE ekb USING ${using}`));
    ok(await srv.sql(`CREATE KNOWLEDGE_BASE vkb USING storage = pgv.kb_comp, ${using}`));
    for (const kb of ['ekb', 'vkb'])
      ok(await srv.sql(`INSERT INTO ${kb} SELECT id, body, customer_id, priority, amount FROM pg.tickets`));
  });
  after(async () => {
    await client?.end().catch(() => {});
    await srv?.stop();
    await pgl?.stop();
    await db?.drop();
  });

  /** Every hit of the question, in hit_rank order, into pg.hits; returns the threshold X (the 25th relevance). */
  async function loadOracle(kb: string, question: string): Promise<number> {
    const all = table(
      await srv.sql(
        `SELECT id, chunk_id, chunk_content, customer_id, priority, amount, distance, relevance FROM ${kb} WHERE content = '${question}' LIMIT 5000`,
      ),
    );
    const chunks = table(await srv.sql(`SELECT COUNT(*) FROM ${kb} LIMIT 1`)).data[0][0];
    assert.equal(all.data.length, Number(chunks), 'the oracle holds every chunk');
    assert.ok(all.data.length > 150, `more chunks than the old cap: ${all.data.length}`);
    await client.query('TRUNCATE hits');
    const params: unknown[] = [];
    const rows = all.data.map((r, i) => {
      const at = [...r, i + 1].map((v) => {
        params.push(v);
        return `$${params.length}`;
      });
      return `(${at.join(', ')})`;
    });
    await client.query(`INSERT INTO hits VALUES ${rows.join(', ')}`, params);
    return Number(all.data[24][7]);
  }

  for (const kb of ['ekb', 'vkb'])
    for (const question of QUESTIONS)
      test(`${kb === 'ekb' ? 'embedded store' : 'pgvector (PGlite)'}: '${question}' in every composition`, async () => {
        const x = await loadOracle(kb, question);
        const fill = (s: string) =>
          s
            .replaceAll('{K}', kb)
            .replaceAll('{H}', 'pg.hits')
            .replaceAll('{Q}', question)
            .replaceAll('{X}', String(x));
        for (const c of CASES) {
          const got = table(await srv.sql(fill(c.kb)), c.name).data.map((r) => r.map(cell).join(' | '));
          const want = table(await srv.sql(fill(c.oracle)), `oracle of ${c.name}`).data.map((r) =>
            r.map(cell).join(' | '),
          );
          if (!c.ordered) {
            got.sort();
            want.sort();
          }
          assert.deepEqual(got, want, `${kb} '${question}': ${c.name}\n${fill(c.kb)}`);
        }
      });

  test('content IN (...) and an OR of questions: one search each, each chunk once with its best relevance', async () => {
    const best = new Map<string, number>();
    for (const q of QUESTIONS) {
      const r = table(await srv.sql(`SELECT chunk_id, relevance FROM ekb WHERE content = '${q}' LIMIT 8`));
      for (const [id, rel] of r.data) best.set(String(id), Math.max(best.get(String(id)) ?? 0, Number(rel)));
    }
    const want = [...best.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([id, rel]) => `${id} ${rel.toFixed(6)}`);
    for (const where of [
      `content IN ('${QUESTIONS[0]}', '${QUESTIONS[1]}')`,
      `(content = '${QUESTIONS[0]}' OR content = '${QUESTIONS[1]}')`,
    ]) {
      const got = table(await srv.sql(`SELECT chunk_id, relevance FROM ekb WHERE ${where} LIMIT 8`)).data.map(
        ([id, rel]) => `${id} ${Number(rel).toFixed(6)}`,
      );
      assert.deepEqual(got, want, where);
    }
  });

  test('parameters leave the statement; bad ones are errors naming them', async () => {
    const e1 = err(await srv.sql(`SELECT * FROM ekb WHERE content = 'refund' AND hybrid_search = 'yes'`));
    assert.equal(e1.error_code, 1210);
    assert.match(e1.error_message, /hybrid_search/);
    const e2 = err(await srv.sql(`SELECT * FROM ekb WHERE content = 'refund' AND hybrid_search_alpha = 2`));
    assert.equal(e2.error_code, 1210);
    assert.match(e2.error_message, /hybrid_search_alpha/);
    const e3 = err(await srv.sql(`SELECT content FROM ekb WHERE content = 'refund'`));
    assert.equal(e3.error_code, 1235);
    assert.match(e3.error_message, /'ekb'/);
    const e4 = err(await srv.sql(`SELECT kb.colour FROM ekb kb WHERE kb.content = 'refund'`));
    assert.equal(e4.error_code, 1054);
    assert.match(e4.error_message, /'ekb'/);
    const e6 = err(await srv.sql(`SELECT id FROM ekb WHERE content = 'refund' AND colour = 'red'`));
    assert.equal(e6.error_code, 1054);
    assert.match(e6.error_message, /'colour' in knowledge base 'ekb'/);
    assert.doesNotMatch(e6.error_message, /Binder/);
    const e5 = err(await srv.sql(`SELECT * FROM ekb WHERE content = 'refund' LIMIT 20000`));
    assert.equal(e5.error_code, 1210);
    assert.match(e5.error_message, /kb\.max_results/);
    // reranking = false is a parameter, not a column (the reranker is another part of the work).
    const r = table(
      await srv.sql(`SELECT id FROM ekb WHERE content = 'refund' AND reranking = false LIMIT 2`),
    );
    assert.equal(r.data.length, 2);
    // In a CTE, a derived table or a UNION: no binder error leaks.
    table(
      await srv.sql(
        `WITH t AS (SELECT id FROM ekb WHERE content = 'refund' AND hybrid_search = true) SELECT COUNT(*) FROM t`,
      ),
    );
  });

  test('DESCRIBE kb lists the relation; mindsdb.kb reads it; EXPLAIN says where k came from', async () => {
    const d = table(await srv.sql('DESCRIBE ekb'));
    const typeOf = (n: string) => String(d.data.find((r) => r[0] === n)?.[1]);
    assert.match(typeOf('customer_id'), /^int/);
    assert.match(typeOf('amount'), /^decimal/);
    assert.equal(typeOf('relevance'), 'double');
    assert.equal(typeOf('metadata'), 'json');
    assert.deepEqual(
      d.data.map((r) => r[0]),
      [
        'id',
        'chunk_id',
        'chunk_content',
        'metadata',
        'customer_id',
        'priority',
        'amount',
        'distance',
        'relevance',
      ],
    );
    const m = table(await srv.sql(`SELECT id FROM mindsdb.ekb WHERE content = 'refund' LIMIT 2`));
    assert.equal(m.data.length, 2);
    const explain = async (sql: string) =>
      table(await srv.sql(`EXPLAIN ${sql}`))
        .data.filter((r) => String(r[1]).startsWith('knowledge_base'))
        .map((r) => String(r[2]))[0];
    assert.match(
      await explain(`SELECT id FROM ekb WHERE content = 'refund' LIMIT 5`),
      /k 5 \(LIMIT of the search's block\)/,
    );
    assert.match(await explain(`SELECT id FROM ekb WHERE content = 'refund'`), /k 10 \(default\)/);
    assert.match(
      await explain(`SELECT COUNT(*) FROM ekb WHERE content = 'refund' AND relevance >= 0.5`),
      /every hit with relevance >= 0.5/,
    );
    assert.match(
      await explain(
        `SELECT c.name FROM ekb kb JOIN pg.customers c ON c.id = kb.customer_id WHERE kb.content = 'refund' AND kb.priority = 'high' LIMIT 50`,
      ),
      /growing batches from 50 \(LIMIT of a join\).*exact filters: .*priority/,
    );
  });
});

describe('kb.max_results: no silent cap', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer({ TRIBUTARY_KB_MAX_RESULTS: '40' });
    const rows = Array.from({ length: 30 }, (_, i) => `(${i}, '${docText(i)}', ${i})`).join(', ');
    ok(
      await srv.sql(
        `CREATE KNOWLEDGE_BASE capkb USING metadata_columns = ['n'], preprocessing = {"chunk_size": 120, "chunk_overlap": 20}`,
      ),
    );
    ok(await srv.sql(`INSERT INTO capkb (id, content, n) VALUES ${rows}`));
  });
  after(async () => {
    await srv?.stop();
  });

  test('a LIMIT above it, a threshold with more hits, batches past it: 1210 naming kb.max_results', async () => {
    const chunks = Number(table(await srv.sql('SELECT COUNT(*) FROM capkb')).data[0][0]);
    assert.ok(chunks > 40, `${chunks} chunks`);
    for (const sql of [
      `SELECT id FROM capkb WHERE content = 'refund' LIMIT 41`,
      `SELECT COUNT(*) FROM capkb WHERE content = 'refund' AND relevance >= 0`,
      `SELECT kb.id FROM capkb kb JOIN (SELECT 999 AS id) c ON c.id = kb.n WHERE kb.content = 'refund' LIMIT 5`,
    ]) {
      const e = err(await srv.sql(sql));
      assert.equal(e.error_code, 1210, sql);
      assert.match(e.error_message, /kb\.max_results \(40\)/, sql);
    }
    assert.equal(
      table(await srv.sql(`SELECT id FROM capkb WHERE content = 'refund' LIMIT 40`)).data.length,
      40,
    );
    const few = table(
      await srv.sql(`SELECT COUNT(*) FROM capkb WHERE content = 'refund' AND relevance >= 0.4`),
    );
    assert.ok(Number(few.data[0][0]) <= 40);
  });
});
