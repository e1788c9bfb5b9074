/** A CSV money column sums as PostgreSQL's numeric does; ?types overrides through HTTP, a bad one is a 400. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { startTestServer, type TestServer } from '../../../helpers/server.js';
import { createPgDatabase, PG } from '../../../helpers/services.js';

let server: TestServer;
let db: Awaited<ReturnType<typeof createPgDatabase>>;
before(async () => {
  server = await startTestServer();
  db = await createPgDatabase('dec');
});
after(async () => {
  await server?.stop();
  await db?.drop();
});

test('SUM over a fixed-point CSV column equals PostgreSQL numeric', async () => {
  const amounts: string[] = [];
  for (let i = 0; i < 20000; i++)
    amounts.push(`${(i * 37) % 10000}.${String((i * 7) % 100).padStart(2, '0')}`);
  const csv = `id,amount\n${amounts.map((a, i) => `${i},${a}`).join('\n')}\n`;
  const put = await fetch(`${server.url}/api/files/money`, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: csv,
  });
  assert.equal(put.status, 201, await put.text());
  const c = new pg.Client({ ...PG, database: db.database });
  await c.connect();
  let expected: string;
  try {
    const r = await c.query(`SELECT SUM(a::numeric)::text AS s FROM unnest($1::text[]) a`, [amounts]);
    expected = r.rows[0].s;
  } finally {
    await c.end();
  }
  const r = await server.sql('SELECT SUM(amount) AS s FROM files.money');
  assert.equal(r.type, 'table', JSON.stringify(r));
  assert.equal(String(r.type === 'table' ? r.data[0][0] : ''), expected);
});

test('?types over HTTP: applied, and an unknown column is refused naming it', async () => {
  const csv = 'id,price\n1,10\n2,12.5\n';
  const ok = await fetch(`${server.url}/api/files/priced?types=price:decimal(12,3)`, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: csv,
  });
  assert.equal(ok.status, 201, await ok.text());
  const d = await server.sql('DESCRIBE files.priced');
  assert.match(JSON.stringify(d), /decimal\(12,3\)/i);
  const bad = await fetch(`${server.url}/api/files/priced2?types=cost:decimal(12,2)`, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: csv,
  });
  assert.equal(bad.status, 400);
  const body = (await bad.json()) as { error_code: string; message: string };
  assert.equal(body.error_code, 'invalid_types');
  assert.match(body.message, /no column 'cost'/);
});
