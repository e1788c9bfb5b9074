/**
 * Files shared by replicas on one PostgreSQL catalog (SPEC section 13): two servers in this
 * process, each with its own storage dir, on a catalog database made for the test; a third
 * in a child process for kill -9 mid-upload.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { PgCatalogStore } from '../../../../src/catalog/pg-store.js';
import type { Result } from '../../../../src/sql/result.js';
import { startTestServer, type TestServer } from '../../../helpers/server.js';
import { createPgDatabase, PG } from '../../../helpers/services.js';
import { spawnServer } from '../../auth/helpers/processes.js';

function rows(r: Result): unknown[][] {
  assert.equal(r.type, 'table', JSON.stringify(r));
  return (r as { data: unknown[][] }).data;
}
function errorCode(r: Result): number {
  assert.equal(r.type, 'error', JSON.stringify(r));
  return (r as { error_code: number }).error_code;
}

/** Polls until `check` passes (a background conversion on another replica). */
async function eventually(check: () => Promise<void>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > end) throw e;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

async function put(server: TestServer, name: string, body: string, query = '') {
  const res = await fetch(`${server.url}/api/files/${name}${query}`, {
    method: 'PUT',
    body,
    headers: { 'content-type': 'text/csv' },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function list(server: TestServer): Promise<Record<string, unknown>[]> {
  return (await (await fetch(`${server.url}/api/files`)).json()) as Record<string, unknown>[];
}

describe('files with a shared PostgreSQL catalog (two replicas)', () => {
  let db: { database: string; drop: () => Promise<void> };
  let env: Record<string, string>;
  let a: TestServer;
  let b: TestServer;
  let client: pg.Client;
  const scratch = mkdtempSync(join(tmpdir(), 'i30-files-rep-'));

  before(async () => {
    db = await createPgDatabase('i30filesrep');
    env = {
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
    rmSync(scratch, { recursive: true, force: true });
  });

  test('uploaded on A: a table on B at once, and listed by GET /api/files on B', async () => {
    const up = await put(a, 'orders', 'id,amount,city\n1,10.5,Oslo\n2,4.25,Bergen\n3,99.99,Oslo\n');
    assert.equal(up.status, 201, JSON.stringify(up.body));
    // No wait: B reads the registration and fetches the bytes on first use.
    assert.deepEqual(
      rows(await b.sql('SELECT city, SUM(amount) FROM files.orders GROUP BY city ORDER BY city')),
      [
        ['Bergen', '4.25'],
        ['Oslo', '110.49'],
      ],
    );
    const onB = await list(b);
    assert.deepEqual(
      onB.map((f) => [f.name, f.rows, f.columns, f.stored_as]),
      [['orders', 3, 3, 'parquet']],
    );
    // The bytes live in the catalog database; the registration names them by sha256.
    const reg = await client.query(
      `SELECT f.sha256, b.complete, (SELECT count(*) FROM tributary.tributary_file_chunks c WHERE c.sha256 = f.sha256) AS chunks
         FROM tributary.tributary_files f JOIN tributary.tributary_file_blobs b USING (sha256) WHERE f.name = 'orders'`,
    );
    assert.equal(reg.rows.length, 1);
    assert.match(reg.rows[0].sha256, /^[0-9a-f]{64}$/);
    assert.equal(reg.rows[0].complete, true);
    assert.equal(reg.rows[0].chunks, '1');
  });

  test('replaced on B: A reads the new content and columns', async () => {
    // A has planned over the old columns; the replace must not leave that cached.
    assert.equal(rows(await a.sql('SELECT COUNT(*) FROM files.orders'))[0][0], 3);
    const up = await put(b, 'orders', 'id,amount,city,note\n7,1.5,Tromso,new\n', '?replace=true');
    assert.equal(up.status, 200, JSON.stringify(up.body));
    // At once: A compares the catalog's files version before the statement.
    assert.deepEqual(rows(await a.sql('SELECT id, city, note FROM files.orders')), [[7, 'Tromso', 'new']]);
    assert.deepEqual(
      (await list(a)).map((f) => [f.name, f.rows, f.columns]),
      [['orders', 1, 4]],
    );
  });

  test('deleted on A: 1146 on B, and gone from its list', async () => {
    assert.equal(rows(await b.sql('SELECT COUNT(*) FROM files.orders'))[0][0], 1);
    const del = await fetch(`${a.url}/api/files/orders`, { method: 'DELETE' });
    assert.equal(del.status, 204);
    assert.equal(errorCode(await b.sql('SELECT * FROM files.orders')), 1146);
    assert.deepEqual(await list(b), []);
    assert.equal(errorCode(await a.sql('SELECT * FROM files.orders')), 1146);
  });

  test('identical uploads (through either replica) are stored once', async () => {
    const csv = `k,v\n${Array.from({ length: 5000 }, (_, i) => `${i},value-${i % 97}`).join('\n')}\n`;
    assert.equal((await put(a, 'same_a', csv)).status, 201);
    assert.equal((await put(b, 'same_b', csv)).status, 201);
    const r = await client.query(
      `SELECT name, sha256 FROM tributary.tributary_files WHERE name LIKE 'same%' ORDER BY name`,
    );
    assert.equal(r.rows.length, 2);
    assert.equal(r.rows[0].sha256, r.rows[1].sha256);
    const blobs = await client.query(
      `SELECT count(*) AS n FROM tributary.tributary_file_blobs WHERE sha256 = $1`,
      [r.rows[0].sha256],
    );
    assert.equal(blobs.rows[0].n, '1');
    // Dropping one keeps the other's bytes, on both replicas.
    assert.equal((await fetch(`${b.url}/api/files/same_a`, { method: 'DELETE' })).status, 204);
    assert.equal(errorCode(await a.sql('SELECT COUNT(*) FROM files.same_a')), 1146);
    assert.equal(rows(await a.sql('SELECT COUNT(*), COUNT(DISTINCT v) FROM files.same_b'))[0][0], 5000);
    assert.equal(rows(await b.sql('SELECT COUNT(*) FROM files.same_b'))[0][0], 5000);
  });

  test('a large CSV is queryable on B while A converts it, and B follows the Parquet', async () => {
    const path = join(scratch, 'big.csv');
    writeFileSync(
      path,
      `id,name,amount\n${Array.from({ length: 600_000 }, (_, i) => `${i},n${i % 1000},${i % 100}.5`).join('\n')}\n`,
    );
    assert.ok(statSync(path).size > 8 * 1024 * 1024);
    const up = await put(a, 'big', await (await import('node:fs/promises')).readFile(path, 'utf8'));
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal(up.body.stored_as, 'csv');
    assert.deepEqual(rows(await b.sql('SELECT COUNT(*), MAX(id) FROM files.big'))[0], [600000, 599999]);
    await eventually(async () => {
      assert.deepEqual(
        (await list(b)).filter((f) => f.name === 'big').map((f) => f.stored_as),
        ['parquet'],
      );
    }, 60_000);
    assert.deepEqual(rows(await b.sql('SELECT COUNT(*), SUM(amount) FROM files.big'))[0], [
      600000,
      '30000000.0',
    ]);
  });

  test('a replica killed mid-upload leaves no registration; its chunks are collected', {
    timeout: 120_000,
  }, async () => {
    const storage = mkdtempSync(join(tmpdir(), 'i30-files-kill-'));
    const child = await spawnServer({
      ...env,
      TRIBUTARY_STORAGE_DIR: storage,
      TRIBUTARY_HTTP_HOST: '127.0.0.1',
      TRIBUTARY_LOG_LEVEL: 'silent',
    });
    try {
      const path = join(scratch, 'killed.csv');
      writeFileSync(path, `a,b,c\n${`${'1234567,abcdefghij,42.5\n'.repeat(4_000_000)}`}`);
      const size = statSync(path).size;
      const req = http.request(new URL('/api/files/killed', child.url), {
        method: 'PUT',
        headers: { 'content-type': 'text/csv', 'content-length': String(size) },
      });
      req.on('error', () => {}); // the server dies under it
      createReadStream(path).pipe(req);
      // Wait for its chunks to be going in, then kill -9.
      let state = { chunks: 0, complete: false };
      for (let i = 0; i < 3000; i++) {
        const r = await client.query(
          `SELECT b.complete, count(c.seq)::int AS chunks FROM tributary.tributary_file_blobs b
             LEFT JOIN tributary.tributary_file_chunks c USING (sha256)
            WHERE b.size_bytes = $1 GROUP BY b.complete`,
          [size],
        );
        if (r.rows[0]) state = { chunks: r.rows[0].chunks, complete: r.rows[0].complete };
        if (state.chunks >= 2) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await child.crash();
      req.destroy();
      assert.ok(
        state.chunks >= 2 && !state.complete,
        `killed while writing chunks: ${JSON.stringify(state)}`,
      );
      const reg = await client.query(
        `SELECT count(*) AS n FROM tributary.tributary_files WHERE name = 'killed'`,
      );
      assert.equal(reg.rows[0].n, '0');
      assert.equal(errorCode(await a.sql('SELECT * FROM files.killed')), 1146);
      // What a start-up or the periodic sweep does, here without its grace time.
      const store = new PgCatalogStore({ url: env.TRIBUTARY_CATALOG_URL, secretKey: Buffer.alloc(32) });
      await store.init();
      try {
        await store.fileBytes(storage, 0).collect(await store.listFiles());
      } finally {
        await store.close();
      }
      const left = await client.query(
        `SELECT count(*) AS n FROM tributary.tributary_file_blobs WHERE size_bytes = $1`,
        [size],
      );
      assert.equal(left.rows[0].n, '0');
      // Registered files were not touched by the collection.
      assert.equal(rows(await b.sql('SELECT COUNT(*) FROM files.same_b'))[0][0], 5000);
    } finally {
      await child.crash();
      rmSync(storage, { recursive: true, force: true });
    }
  });
});
