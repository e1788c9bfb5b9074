/**
 * CSV files as people's tools write them (issue 28): Python's csv module and Excel end
 * lines with CRLF, Excel's "CSV UTF-8" starts with a byte-order mark, quoted fields hold
 * commas, quotes and line breaks. Small files and files past the size where an upload is
 * kept as CSV and converted later (8 MiB) read the same. The files are written by Python's
 * own csv module in the test.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../../helpers/server.js';

let server: TestServer;
let dir: string;

before(async () => {
  server = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'tributary-csv-'));
});
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A CSV written by Python's csv module (CRLF line ends, its defaults); `bom` as Excel's "CSV UTF-8". */
function pythonCsv(name: string, rows: number, bom = false): string {
  const path = join(dir, `${name}.csv`);
  const script = `
import csv, sys
with open(sys.argv[1], 'w', newline='', encoding='utf-8-sig' if sys.argv[3] == '1' else 'utf-8') as f:
    w = csv.writer(f)
    w.writerow(['id', 'note', 'city'])
    for i in range(int(sys.argv[2])):
        w.writerow([i, 'line one\\r\\nline "two", three' if i % 1000 == 7 else 'plain %d' % i, 'Zürich'])
`;
  execFileSync('python3', ['-c', script, path, String(rows), bom ? '1' : '0']);
  return path;
}

async function upload(name: string, path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}/api/files/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: readFileSync(path),
  });
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(res.status, 201, JSON.stringify(body));
  return body;
}

async function summary(table: string): Promise<unknown> {
  const r = await server.sql(
    `SELECT COUNT(*) AS n, SUM(id) AS ids, MAX(city) AS city, SUM(note LIKE 'line one%') AS multiline FROM files.${table}`,
  );
  assert.equal(r.type, 'table', JSON.stringify(r));
  return r.type === 'table' ? r.data[0] : null;
}

test('a small CRLF file from Python csv reads whole, quoted line breaks kept', async () => {
  const path = pythonCsv('small', 2000);
  assert.ok(readFileSync(path, 'latin1').includes('\r\n'));
  await upload('crlf_small', path);
  assert.deepEqual(await summary('crlf_small'), [2000, (2000 * 1999) / 2, 'Zürich', 2]);
  const r = await server.sql(`SELECT note FROM files.crlf_small WHERE id = 7`);
  assert.deepEqual(r, { type: 'table', column_names: ['note'], data: [['line one\r\nline "two", three']] });
});

test('a CRLF file past the streaming size reads the same, before and after its conversion', async () => {
  const path = pythonCsv('big', 400_000);
  assert.ok(statSync(path).size > 8 * 1024 * 1024);
  const answer = await upload('crlf_big', path);
  assert.equal(answer.rows, 400_000);
  const want = [400_000, (400_000 * 399_999) / 2, 'Zürich', 400];
  assert.deepEqual(await summary('crlf_big'), want);
  // Once converted to Parquet in the background, the same answer.
  for (let i = 0; i < 100; i++) {
    const files = (await (await fetch(`${server.url}/api/files`)).json()) as {
      name: string;
      stored_as: string;
    }[];
    if (files.find((f) => f.name === 'crlf_big')?.stored_as === 'parquet') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.deepEqual(await summary('crlf_big'), want);
});

test("a file with Excel's byte-order mark: the first column is named without it", async () => {
  await upload('bom', pythonCsv('bom', 10, true));
  const r = await server.sql('SELECT id, city FROM files.bom WHERE id = 3');
  assert.deepEqual(r, { type: 'table', column_names: ['id', 'city'], data: [[3, 'Zürich']] });
});
