import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { runUploadCommand } from '../../../../src/cli/upload-command.js';
import { pgParams, startTestServer, type TestServer } from '../../../helpers/server.js';
import { createPgDatabase, PG, pgExec } from '../../../helpers/services.js';

let server: TestServer;
let db: { database: string; drop: () => Promise<void> };

// Customers live in PostgreSQL; their orders arrive as a CSV file.
const ORDERS_CSV =
  'order_id,customer_id,amount,placed\n' +
  '1,1,10.50,2024-01-02\n2,1,4.25,2024-01-05\n3,2,99.99,2024-02-01\n4,3,1.00,2024-02-03\n5,9,7.00,2024-03-01\n';

async function put(name: string, body: string, headers: Record<string, string>, query = '') {
  const res = await fetch(`${server.url}/api/files/${name}${query}`, { method: 'PUT', body, headers });
  return { status: res.status, body: (await res.json()) as any };
}

/** Statements through POST /api/sql/query. */
function sql(query: string) {
  return server.sql(query);
}

async function pgRows(sql: string): Promise<unknown[][]> {
  const c = new pg.Client({ ...PG, database: db.database });
  await c.connect();
  try {
    return (await c.query({ text: sql, rowMode: 'array' })).rows;
  } finally {
    await c.end();
  }
}

before(async () => {
  db = await createPgDatabase('files');
  await pgExec(
    db.database,
    `CREATE TABLE customers (id int primary key, name text, city text);
     INSERT INTO customers VALUES (1, 'Ann', 'Oslo'), (2, 'Bob', 'Bergen'), (3, 'Cy', 'Oslo');
     CREATE TABLE orders (order_id int, customer_id int, amount numeric(10,2), placed date);
     INSERT INTO orders VALUES (1,1,10.50,'2024-01-02'),(2,1,4.25,'2024-01-05'),(3,2,99.99,'2024-02-01'),(4,3,1.00,'2024-02-03'),(5,9,7.00,'2024-03-01');`,
  );
  server = await startTestServer();
  const r = await sql(`CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(db.database)}`);
  assert.equal(r.type, 'ok', JSON.stringify(r));
});

after(async () => {
  await server?.stop();
  await db?.drop();
});

describe('files through the server', () => {
  test('an uploaded CSV is a table: listed, described with inferred types, queried', async () => {
    const up = await put('orders', ORDERS_CSV, { 'content-type': 'text/csv' });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal(up.body.rows, 5);
    const dbs = await sql('SHOW DATABASES');
    assert.ok(dbs.type === 'table' && dbs.data.some((r) => r[0] === 'files'));
    const tables = await sql('SHOW TABLES FROM files');
    assert.ok(tables.type === 'table' && tables.data.some((r) => r[0] === 'orders'));
    const desc = await sql('DESCRIBE files.orders');
    assert.equal(desc.type, 'table', JSON.stringify(desc));
    if (desc.type !== 'table') return;
    const types = Object.fromEntries(desc.data.map((r) => [r[0], String(r[1]).toUpperCase()]));
    assert.match(types.order_id, /BIGINT/);
    // Money-like text is DECIMAL with its scale, not DOUBLE.
    assert.match(types.amount, /DECIMAL\(18,2\)/);
    assert.match(types.placed, /DATE/);
    const q = await sql(
      'SELECT order_id, placed FROM files.orders WHERE amount > 5 ORDER BY order_id LIMIT 2',
    );
    assert.deepEqual(q, {
      type: 'table',
      column_names: ['order_id', 'placed'],
      data: [
        [1, '2024-01-02'],
        [3, '2024-02-01'],
      ],
    });
  });

  test('a join of a file table with a PostgreSQL table matches the same join inside PostgreSQL', async () => {
    const fed = await sql(
      `SELECT c.city, COUNT(*) AS n, ROUND(SUM(o.amount), 2) AS total
         FROM files.orders o JOIN pg.customers c ON c.id = o.customer_id
        GROUP BY c.city ORDER BY c.city`,
    );
    assert.equal(fed.type, 'table', JSON.stringify(fed));
    const native = await pgRows(
      `SELECT c.city, COUNT(*) AS n, ROUND(SUM(o.amount), 2) AS total
         FROM orders o JOIN customers c ON c.id = o.customer_id
        GROUP BY c.city ORDER BY c.city`,
    );
    if (fed.type !== 'table') return;
    assert.deepEqual(
      fed.data.map((r) => [r[0], Number(r[1]), Number(r[2])]),
      native.map((r) => [r[0], Number(r[1]), Number(r[2])]),
    );
  });

  test('CREATE TABLE files.t AS SELECT from PostgreSQL stores a file table; DROP TABLE removes it', async () => {
    const c = await sql(`CREATE TABLE files.oslo AS SELECT id, name FROM pg.customers WHERE city = 'Oslo'`);
    assert.equal(c.type, 'ok', JSON.stringify(c));
    const list = (await (await fetch(`${server.url}/api/files`)).json()) as any[];
    const rec = list.find((f) => f.name === 'oslo');
    assert.equal(rec?.rows, 2);
    const q = await sql('SELECT name FROM files.oslo ORDER BY id');
    assert.deepEqual(q.type === 'table' && q.data, [['Ann'], ['Cy']]);
    const local = await sql('CREATE TABLE files.big_orders AS SELECT * FROM files.orders WHERE amount > 5');
    assert.deepEqual(local, { type: 'ok', affected_rows: 3 });
    const stored = () => readdirSync(join(server.storageDir, 'files')).filter((f) => f.startsWith('oslo.'));
    assert.equal(stored().length, 1);
    assert.ok(stored()[0].endsWith('.parquet'));
    assert.equal((await sql('DROP TABLE files.oslo')).type, 'ok');
    assert.deepEqual(stored(), []);
    const gone = await sql('SELECT * FROM files.oslo');
    assert.equal(gone.type === 'error' && gone.error_code, 1146);
  });

  test('the files source cannot be dropped', async () => {
    const r = await sql('DROP DATABASE files');
    assert.equal(r.type, 'error');
  });

  test('tributary upload without --url stores into the storage dir; the running server sees it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-upload-'));
    try {
      const path = join(dir, 'events.ndjson');
      writeFileSync(path, '{"kind":"click","n":2}\n{"kind":"view","n":5}\n');
      let err = '';
      const code = await runUploadCommand(
        server.deps.config,
        [path, 'events_cli'],
        {},
        new Writable({ write: (_c, _e, cb) => cb() }),
        new Writable({
          write(c, _e, cb) {
            err += String(c);
            cb();
          },
        }),
      );
      assert.equal(code, 0, err);
      const q = await sql('SELECT SUM(n) FROM files.events_cli');
      assert.deepEqual(q.type === 'table' && q.data, [[7]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('tributary upload sends a local file to a running server (--url)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-upload-'));
    try {
      const path = join(dir, 'Price List.tsv');
      writeFileSync(path, 'sku\tprice\nA1\t3.5\nB2\t4\n');
      let out = '';
      let err = '';
      const sink = (f: (s: string) => void) =>
        new Writable({
          write(chunk, _e, cb) {
            f(String(chunk));
            cb();
          },
        });
      const code = await runUploadCommand(
        server.deps.config,
        [path],
        { url: server.url },
        sink((s) => (out += s)),
        sink((s) => (err += s)),
      );
      assert.equal(code, 0, err);
      assert.equal(JSON.parse(out).name, 'price_list');
      const q = await sql('SELECT SUM(price) FROM files.price_list');
      // A DECIMAL sum comes back as its exact text, as PostgreSQL numeric does.
      assert.deepEqual(q.type === 'table' && q.data, [['7.5']]);
      const again = await runUploadCommand(
        server.deps.config,
        [path],
        { url: server.url },
        sink(() => {}),
        sink((s) => (err = s)),
      );
      assert.equal(again, 1);
      assert.match(err, /already exists/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
