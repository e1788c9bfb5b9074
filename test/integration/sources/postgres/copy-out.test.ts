/**
 * copyOut (src/sources/postgres/copy-out.ts) against a real PostgreSQL: the bytes must be
 * exactly pg-copy-streams' for awkward CSV (quotes, commas, newlines, NULLs, multi-byte
 * text, rows larger than a socket read), notices in the middle of a copy pass, and an error
 * part-way reaches the caller with the connection still usable.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { copyOut } from '../../../../src/sources/postgres/copy-out.js';
import { createPgDatabase, PG } from '../../../helpers/services.js';

let db: { database: string; drop: () => Promise<void> };
let client: pg.Client;

before(async () => {
  db = await createPgDatabase('copyout');
  client = new pg.Client({ ...PG, database: db.database });
  await client.connect();
  await client.query(`
    CREATE TABLE t AS SELECT g AS id,
      CASE WHEN g % 11 = 0 THEN NULL WHEN g % 7 = 0 THEN 'a,"b"' || chr(10) || 'c' ELSE 'née-' || g END AS label,
      (g * 1.25)::numeric(12,2) AS amount
      FROM generate_series(1, 50000) g;
    INSERT INTO t VALUES (0, repeat('x', 300000), 1.00);
    CREATE FUNCTION noisy(i int) RETURNS int LANGUAGE plpgsql AS $$
      BEGIN IF i % 1000 = 0 THEN RAISE NOTICE 'at %', i; END IF; RETURN i; END $$;`);
});

after(async () => {
  await client?.end();
  await db?.drop();
});

function digest(stream: NodeJS.ReadableStream): Promise<{ sha: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    let bytes = 0;
    stream.on('data', (b: Buffer) => {
      h.update(b);
      bytes += b.length;
    });
    stream.on('end', () => resolve({ sha: h.digest('hex'), bytes }));
    stream.on('error', reject);
  });
}

test('the same bytes as pg-copy-streams, for awkward CSV and a row larger than a read', async () => {
  const sql = 'COPY (SELECT * FROM t ORDER BY id) TO STDOUT WITH (FORMAT csv)';
  const mine = await digest(client.query(copyOut(sql)));
  const theirs = await digest(client.query(copyTo(sql)));
  assert.deepEqual(mine, theirs);
  assert.ok(mine.bytes > 1_000_000);
});

test('notices sent in the middle of a copy are passed over', async () => {
  const sql = 'COPY (SELECT noisy(id), label FROM t ORDER BY id) TO STDOUT WITH (FORMAT csv)';
  const notices: string[] = [];
  const onNotice = (n: { message?: string }) => notices.push(String(n.message));
  client.on('notice', onNotice);
  try {
    const mine = await digest(client.query(copyOut(sql)));
    const theirs = await digest(client.query(copyTo(sql)));
    assert.deepEqual(mine, theirs);
  } finally {
    client.off('notice', onNotice);
  }
});

test('an error part-way reaches the caller, and the connection goes on', async () => {
  const sql = 'COPY (SELECT id, 1 / (id - 40000) FROM t ORDER BY id) TO STDOUT WITH (FORMAT csv)';
  await assert.rejects(digest(client.query(copyOut(sql))), /division by zero/);
  const r = await client.query('SELECT count(*)::int AS n FROM t');
  assert.equal(r.rows[0].n, 50001);
});

test('an empty result copies nothing and ends', async () => {
  const mine = await digest(
    client.query(copyOut('COPY (SELECT * FROM t WHERE false) TO STDOUT WITH (FORMAT csv)')),
  );
  assert.equal(mine.bytes, 0);
  assert.equal((await client.query('SELECT 1 AS one')).rows[0].one, 1);
});
