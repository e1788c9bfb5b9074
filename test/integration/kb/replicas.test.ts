import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Result } from '../../../src/sql/result.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
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

/** Polls until `check` passes: a replica learns of another's change through NOTIFY. */
async function eventually(check: () => Promise<void>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > end) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe('knowledge bases with a shared PostgreSQL catalog (two replicas, no pgvector)', () => {
  let db: { database: string; drop: () => Promise<void> };
  let a: TestServer;
  let b: TestServer;
  let client: pg.Client;

  before(async () => {
    db = await createPgDatabase('kbrep');
    const env = {
      TRIBUTARY_CATALOG_URL: `postgres://postgres@127.0.0.1:5432/${db.database}`,
      TRIBUTARY_SECRET_KEY: randomBytes(32).toString('base64'),
    };
    a = await startTestServer(env);
    b = await startTestServer(env);
    client = new pg.Client({ ...PG, database: db.database });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await a?.stop();
    await b?.stop();
    await db?.drop();
  });

  test('a KB created and filled through A is searchable through B with the same rows', async () => {
    ok(
      await a.sql(
        `CREATE KNOWLEDGE_BASE shared_kb USING metadata_columns = ['team'], preprocessing = {"chunk_size": 150, "chunk_overlap": 20}`,
      ),
    );
    const values = Array.from({ length: 120 }, (_, i) => `(${i}, '${docText(i)}', 'team${i % 3}')`).join(
      ', ',
    );
    assert.equal(ok(await a.sql(`INSERT INTO shared_kb (id, content, team) VALUES ${values}`)), 120);
    ok(
      await a.sql(
        `INSERT INTO shared_kb (id, content, team) VALUES (500, 'Error ACME-213 at checkout', 'team1')`,
      ),
    );
    // The chunks live in the catalog database, as plain arrays (no pgvector there).
    const tables = await client.query(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'tributary' AND tablename LIKE 'kb\\_%' ORDER BY 1`,
    );
    assert.equal(tables.rows.length, 4, JSON.stringify(tables.rows));
    const show = table(await a.sql(`SHOW KNOWLEDGE_BASES`));
    assert.equal(show.data[0][2], 'catalog');
    assert.equal(show.data[0][6], 121);

    const queries = [
      `SELECT chunk_id, distance, team FROM shared_kb WHERE content = 'refund delay customer' LIMIT 10`,
      `SELECT chunk_id, distance, team FROM shared_kb WHERE content = 'server outage' AND team = 'team2' LIMIT 10`,
      `SELECT id, relevance FROM shared_kb WHERE content = 'ACME-213' AND hybrid_search = true LIMIT 5`,
    ];
    let fromB: unknown[][][] = [];
    await eventually(async () => {
      fromB = [];
      for (const q of queries) fromB.push(table(await b.sql(q)).data);
    });
    for (let i = 0; i < queries.length; i++) assert.deepEqual(fromB[i], table(await a.sql(queries[i])).data);
    assert.equal(String(fromB[2][0][0]), '500');
    assert.equal(table(await b.sql(`SHOW KNOWLEDGE_BASES`)).data[0][6], 121);

    // Exact search in SQL: the same as a brute-force scan of the stored arrays.
    const chunks: RawChunk[] = (
      await client.query(
        `SELECT chunk_id, embedding::text AS e, metadata, seq FROM tributary.${tables.rows.find((r) => !/_(docs|terms|stats)$/.test(r.tablename)).tablename}`,
      )
    ).rows;
    assertSameTopK(
      fromB[0],
      bruteForce(chunks, 'refund delay customer', () => true, 10),
      'unfiltered',
    );
    assertSameTopK(
      fromB[1],
      bruteForce(chunks, 'server outage', (m) => m.team === 'team2', 10),
      'team2',
    );
  });

  test('a delete through B is seen by A; a drop through A is seen by B', async () => {
    assert.equal(ok(await b.sql(`DELETE FROM shared_kb WHERE id = 500`)), 1);
    const h = table(
      await a.sql(`SELECT id FROM shared_kb WHERE content = 'ACME-213' AND hybrid_search = true LIMIT 5`),
    );
    assert.ok(!h.data.some((r) => String(r[0]) === '500'));
    assert.equal(table(await a.sql(`SELECT * FROM shared_kb WHERE id = '500'`)).data.length, 0);
    assert.equal(table(await a.sql(`SHOW KNOWLEDGE_BASES`)).data[0][6], 120);

    ok(await a.sql('DROP KNOWLEDGE_BASE shared_kb'));
    await eventually(async () => {
      const r = await b.sql(`SELECT * FROM shared_kb WHERE content = 'refund' LIMIT 1`);
      assert.equal(r.type, 'error', JSON.stringify(r));
    });
    const left = await client.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'kb\\_%'`);
    assert.equal(left.rows[0].n, 0);
  });
});
