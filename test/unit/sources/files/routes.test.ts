import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import ExcelJS from 'exceljs';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import type { AppDeps } from '../../../../src/http/deps.js';
import { registerFileRoutes } from '../../../../src/http/routes/files.js';
import { type Fixture, fixture } from './helpers.js';

// The routes on a real listening Fastify server with the real files source; the rest of
// AppDeps is not used by these routes.
let fx: Fixture;
let app: FastifyInstance;
let url: string;
const LIMIT = 64 * 1024;

before(async () => {
  fx = await fixture();
  const deps = {
    config: { files: { max_upload_bytes: LIMIT } },
    logger: pino({ level: 'silent' }),
    sources: { get: async (n: string) => (n === 'files' ? fx.files : Promise.reject(new Error(n))) },
  } as unknown as AppDeps;
  app = Fastify();
  registerFileRoutes(app, deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address() as { port: number };
  url = `http://127.0.0.1:${addr.port}`;
});
after(async () => {
  await app.close();
  await fx.close();
});

async function put(
  path: string,
  body: RequestInit['body'],
  headers: Record<string, string> = {},
  method: 'PUT' | 'POST' = 'PUT',
) {
  const res = await fetch(`${url}${path}`, { method, body, headers });
  return { status: res.status, body: (await res.json()) as any };
}

test('PUT with a raw CSV body creates a table (201), then replaces it (200)', async () => {
  const r = await put('/api/files/cities', 'name,pop\nOslo,700000\nBergen,290000\n', {
    'content-type': 'text/csv',
  });
  assert.equal(r.status, 201);
  assert.deepEqual(
    { ...r.body, size_bytes: typeof r.body.size_bytes, created_at: typeof r.body.created_at },
    {
      name: 'cities',
      format: 'csv',
      rows: 2,
      columns: 2,
      size_bytes: 'number',
      created_at: 'string',
      stored_as: 'parquet',
    },
  );
  const again = await put('/api/files/cities', 'name,pop\nOslo,700000\n', { 'content-type': 'text/csv' });
  assert.equal(again.status, 409);
  assert.equal(again.body.error_code, 'file_exists');
  const replaced = await put('/api/files/cities?replace=true', 'name,pop\nOslo,700000\n', {
    'content-type': 'text/csv',
  });
  assert.equal(replaced.status, 200);
  assert.equal(replaced.body.rows, 1);
});

test('PUT multipart takes the file field; the format comes from its file name', async () => {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('A').addRow(['x']);
  const b = wb.addWorksheet('B');
  b.addRow(['k', 'v']);
  b.addRow(['one', 1]);
  const form = new FormData();
  form.append('note', 'ignored');
  form.append('file', new Blob([Buffer.from(await wb.xlsx.writeBuffer())]), 'book.xlsx');
  const r = await put('/api/files/sheet_b?sheet=B', form);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.format, 'xlsx');
  assert.equal(r.body.rows, 1);
  assert.equal(r.body.sheet, 'B');
  const none = new FormData();
  none.append('other', 'x');
  const bad = await put('/api/files/nofile', none);
  assert.equal(bad.status, 400);
  assert.match(bad.body.message, /no 'file' field/);
});

test('POST uploads like PUT (raw and multipart); an XLSX without sheet names the sheet it took', async () => {
  const raw = await put('/api/files/posted', 'a,b\n1,2\n', { 'content-type': 'text/csv' }, 'POST');
  assert.equal(raw.status, 201, JSON.stringify(raw.body));
  assert.equal(raw.body.rows, 1);
  assert.equal(raw.body.sheet, undefined);
  const wb = new ExcelJS.Workbook();
  const first = wb.addWorksheet('Q4 sales');
  first.addRow(['k', 'v']);
  first.addRow(['one', 1]);
  wb.addWorksheet('Other').addRow(['x']);
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(await wb.xlsx.writeBuffer())]), 'book.xlsx');
  const r = await put('/api/files/posted_xlsx', form, {}, 'POST');
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.sheet, 'Q4 sales');
});

test('bad names, bad files and oversized bodies get clear errors', async () => {
  const name = await put('/api/files/9lives', 'a\n1\n', { 'content-type': 'text/csv' });
  assert.equal(name.status, 400);
  assert.equal(name.body.error_code, 'invalid_name');
  const corrupt = await put('/api/files/pq?format=parquet', Buffer.from('PAR1 not really PAR1'));
  assert.equal(corrupt.status, 400);
  assert.equal(corrupt.body.error_code, 'invalid_file');
  assert.match(corrupt.body.message, /Could not read 'pq' as PARQUET/);
  const unknown = await put('/api/files/blob', Buffer.from('hello world'), {
    'content-type': 'application/octet-stream',
  });
  assert.equal(unknown.status, 415);
  const big = await put('/api/files/big', 'a\n'.repeat(LIMIT), { 'content-type': 'text/csv' });
  assert.equal(big.status, 413);
  assert.equal(big.body.error_code, 'request_too_large');
  // Without a content length the limit is enforced while streaming.
  const stream = new ReadableStream({
    start(c) {
      for (let i = 0; i < 100; i++) c.enqueue(new TextEncoder().encode('x\n'.repeat(1024)));
      c.close();
    },
  });
  const chunked = await fetch(`${url}/api/files/big2`, {
    method: 'PUT',
    body: stream,
    headers: { 'content-type': 'text/csv' },
    duplex: 'half',
  } as RequestInit);
  assert.equal(chunked.status, 413);
  const badReplace = await put('/api/files/x?replace=maybe', 'a\n1\n', { 'content-type': 'text/csv' });
  assert.equal(badReplace.status, 400);
  const names = fx.files.get('big') || fx.files.get('big2') || fx.files.get('pq') || fx.files.get('blob');
  assert.equal(names, null);
  assert.deepEqual(
    fx.storedFiles().filter((f) => f.startsWith('.tmp/')),
    [],
  );
});

test('GET lists the tables; DELETE removes one (404 when unknown)', async () => {
  await put('/api/files/to_delete', '{"a":1}\n', { 'content-type': 'application/x-ndjson' });
  const list = (await (await fetch(`${url}/api/files`)).json()) as any[];
  const item = list.find((f) => f.name === 'to_delete');
  assert.deepEqual(Object.keys(item).sort(), [
    'columns',
    'created_at',
    'format',
    'name',
    'rows',
    'size_bytes',
    'stored_as',
  ]);
  assert.equal(item.format, 'ndjson');
  assert.equal(item.stored_as, 'parquet');
  const del = await fetch(`${url}/api/files/to_delete`, { method: 'DELETE' });
  assert.equal(del.status, 204);
  const again = await fetch(`${url}/api/files/to_delete`, { method: 'DELETE' });
  assert.equal(again.status, 404);
  assert.equal(((await again.json()) as any).error_code, 'file_not_found');
  assert.ok(!fx.storedFiles().includes('to_delete.parquet'));
});
