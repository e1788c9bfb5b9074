/**
 * CSV files as people's tools write them, part two (issue 28): semicolon (Excel in much of
 * Europe), pipe and tab delimiters detected, quoted fields holding CRLF and LF line breaks,
 * small and past the size where an upload is kept as CSV and converted later (8 MiB); one
 * file, one schema whatever its size; refusals answered with the line and the reason; and
 * `?replace=true`. Every file is written by Python's csv module in the test and uploaded
 * over HTTP; answers are read back through SQL and compared with the rows Python wrote.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { runUploadCommand } from '../../../../src/cli/upload-command.js';
import { startTestServer, type TestServer } from '../../../helpers/server.js';

let server: TestServer;
let dir: string;

before(async () => {
  server = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'tributary-csv-delims-'));
});
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const BIG = 8 * 1024 * 1024;

/**
 * A file written by Python's csv.writer with `delimiter` (its default CRLF line ends):
 * id, a name, an amount with two decimals, a note that every 997th row holds a quoted
 * line break (CRLF or LF) beside every delimiter and a quote, and a city.
 */
function pythonCsv(name: string, delimiter: string, rows: number, ext = 'csv'): string {
  const path = join(dir, `${name}.${ext}`);
  const script = `
import csv, sys
with open(sys.argv[1], 'w', newline='', encoding='utf-8') as f:
    w = csv.writer(f, delimiter=sys.argv[2])
    w.writerow(['id', 'name', 'amount', 'note', 'city'])
    for i in range(int(sys.argv[3])):
        note = 'plain %d' % i
        if i % 997 == 5: note = 'crlf\\r\\nkeeps , ; | \\t and "quotes"'
        if i % 997 == 6: note = 'lf\\nkeeps , ; | \\t'
        w.writerow([i, 'name %d' % i, '%d.%02d' % (i % 1000, i % 100), note, 'Zürich'])
`;
  execFileSync('python3', ['-c', script, path, delimiter, String(rows)]);
  return path;
}

/** What the file holds, computed as Python wrote it (amounts summed in cents: exact). */
function expected(rows: number) {
  let cents = 0n;
  let ids = 0;
  let crlf = 0;
  let lf = 0;
  for (let i = 0; i < rows; i++) {
    cents += BigInt((i % 1000) * 100 + (i % 100));
    ids += i;
    if (i % 997 === 5) crlf++;
    if (i % 997 === 6) lf++;
  }
  const sum = `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
  return [rows, ids, sum, crlf, lf, 'Zürich'];
}

async function put(name: string, body: Buffer, query = '', contentType = 'text/csv') {
  const res = await fetch(`${server.url}/api/files/${name}${query}`, {
    method: 'PUT',
    headers: { 'content-type': contentType },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function upload(name: string, path: string, query = ''): Promise<Record<string, unknown>> {
  const r = await put(name, readFileSync(path), query);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

async function rows(sql: string): Promise<unknown[][]> {
  const r = await server.sql(sql);
  assert.equal(r.type, 'table', JSON.stringify(r));
  return r.type === 'table' ? r.data : [];
}

const SUMMARY = (t: string) =>
  `SELECT COUNT(*), SUM(id), CAST(SUM(amount) AS CHAR), SUM(note LIKE 'crlf\r\n%'), SUM(note LIKE 'lf\n%'), MAX(city) FROM files.${t}`;

async function describe(t: string): Promise<unknown[][]> {
  return (await rows(`DESCRIBE files.${t}`)).map((r) => r.slice(0, 2));
}

async function converted(name: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const files = (await (await fetch(`${server.url}/api/files`)).json()) as {
      name: string;
      stored_as: string;
    }[];
    if (files.find((f) => f.name === name)?.stored_as === 'parquet') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`${name} was not converted`);
}

const COLUMNS = [
  ['id', 'bigint'],
  ['name', 'text'],
  ['amount', 'decimal(18,2)'],
  ['note', 'text'],
  ['city', 'text'],
];

for (const [label, delimiter, ext] of [
  ['semicolon', ';', 'csv'],
  ['pipe', '|', 'csv'],
  ['tab', '\t', 'csv'],
  ['tsv', '\t', 'tsv'],
] as const) {
  test(`a small ${label} file from Python csv: right columns, quoted CRLF and LF kept`, async () => {
    const path = pythonCsv(`small_${label}`, delimiter, 3000, ext);
    const answer = await upload(`small_${label}`, path, ext === 'tsv' ? '?format=tsv' : '');
    assert.equal(answer.rows, 3000);
    assert.equal(answer.columns, 5);
    assert.deepEqual(
      (await describe(`small_${label}`)).map(([n, t]) => [n, String(t).toLowerCase()]),
      COLUMNS,
    );
    assert.deepEqual(await rows(SUMMARY(`small_${label}`)), [expected(3000)]);
    assert.deepEqual(
      await rows(`SELECT id, name, amount, note FROM files.small_${label} WHERE id IN (5, 6, 7) ORDER BY id`),
      [
        [5, 'name 5', '5.05', 'crlf\r\nkeeps , ; | \t and "quotes"'],
        [6, 'name 6', '6.06', 'lf\nkeeps , ; | \t'],
        [7, 'name 7', '7.07', 'plain 7'],
      ],
    );
  });
}

test('a semicolon file and a pipe file past the streaming size: the same columns and rows, before and after conversion', async () => {
  for (const [label, delimiter] of [
    ['semicolon', ';'],
    ['pipe', '|'],
  ] as const) {
    const n = 200_000;
    const path = pythonCsv(`big_${label}`, delimiter, n);
    assert.ok(statSync(path).size > BIG, `${label} is past the streaming size`);
    const answer = await upload(`big_${label}`, path);
    assert.equal(answer.rows, n);
    assert.equal(answer.stored_as, 'csv', 'kept as CSV, converted later');
    const want = [expected(n)];
    assert.deepEqual(await rows(SUMMARY(`big_${label}`)), want);
    const types = await describe(`big_${label}`);
    assert.deepEqual(
      types.map(([c, t]) => [c, String(t).toLowerCase()]),
      COLUMNS,
    );
    await converted(`big_${label}`);
    assert.deepEqual(await rows(SUMMARY(`big_${label}`)), want);
    assert.deepEqual(await describe(`big_${label}`), types);
  }
});

test('one file, one schema: the same content at 1 MB and at 9+ MB has the same columns and an exact money SUM', async () => {
  const small = pythonCsv('schema_small', ',', 24_000);
  const large = pythonCsv('schema_large', ',', 240_000);
  assert.ok(statSync(small).size > 1_000_000 && statSync(small).size < 2_000_000);
  assert.ok(statSync(large).size > 9_000_000 && statSync(large).size > BIG);
  assert.equal((await upload('schema_small', small)).stored_as, 'parquet');
  assert.equal((await upload('schema_large', large)).stored_as, 'csv');
  const smallTypes = await describe('schema_small');
  assert.deepEqual(await describe('schema_large'), smallTypes);
  const sum = (t: string) => rows(`SELECT CAST(SUM(amount) AS CHAR) FROM files.${t}`);
  assert.deepEqual(await sum('schema_small'), [[expected(24_000)[2]]]);
  assert.deepEqual(await sum('schema_large'), [[expected(240_000)[2]]]);
  await converted('schema_large');
  assert.deepEqual(await describe('schema_large'), smallTypes);
  assert.deepEqual(await sum('schema_large'), [[expected(240_000)[2]]]);
});

test('European Excel: semicolons and decimal commas, small and streamed, sum exactly as DECIMAL', async () => {
  const write = (name: string, n: number) => {
    const path = join(dir, `${name}.csv`);
    execFileSync('python3', [
      '-c',
      `import csv, sys
with open(sys.argv[1], 'w', newline='', encoding='utf-8-sig') as f:
    w = csv.writer(f, delimiter=';')
    w.writerow(['Nr', 'Betrag', 'Kunde'])
    for i in range(int(sys.argv[2])):
        w.writerow([i, ('%d,%02d' % (i % 1000, i % 100)), 'Müller; Söhne' if i % 50 == 0 else 'Kunde %d' % i])`,
      path,
      String(n),
    ]);
    return path;
  };
  for (const [name, n] of [
    ['eu_small', 5000],
    ['eu_big', 400_000],
  ] as const) {
    const path = write(name, n);
    await upload(name, path);
    const want = [[n, String(expected(n)[2]), Math.ceil(n / 50)]];
    const q = `SELECT COUNT(*), CAST(SUM(Betrag) AS CHAR), SUM(Kunde = 'Müller; Söhne') FROM files.${name}`;
    assert.deepEqual(await rows(q), want);
    const types = (await describe(name)).map(([c, t]) => [c, String(t).toLowerCase()]);
    assert.deepEqual(types, [
      ['Nr', 'bigint'],
      ['Betrag', 'decimal(18,2)'],
      ['Kunde', 'text'],
    ]);
    if (n > 5000) {
      assert.ok(statSync(path).size > BIG);
      await converted(name);
      assert.deepEqual(await rows(q), want);
    }
  }
});

test('?delimiter= names the delimiter when detection would not choose it', async () => {
  // Every line holds one comma and one semicolon: detection takes the comma.
  const body = Buffer.from('a;b,c\r\n1;x,y\r\n4;p,q\r\n');
  assert.equal((await put('named_comma', body)).body.columns, 2);
  const r = await put('named_semi', body, '?delimiter=;');
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.deepEqual(await rows('SELECT * FROM files.named_semi ORDER BY 1'), [
    [1, 'x,y'],
    [4, 'p,q'],
  ]);
  const bad = await put('named_bad', body, '?delimiter=:');
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error_code, 'invalid_delimiter');
});

/** A ragged row or a bad byte at `line` of a file of `rows` rows: its text. */
function brokenCsv(rows: number, line: number, kind: 'ragged' | 'utf8'): Buffer {
  const parts: Buffer[] = [Buffer.from('id;name;amount\r\n')];
  for (let i = 0; i < rows; i++) {
    const l = i + 2;
    if (l === line && kind === 'ragged') parts.push(Buffer.from(`${i};name ${i}\r\n`));
    else if (l === line)
      parts.push(Buffer.concat([Buffer.from(`${i};caf`), Buffer.from([0xe9]), Buffer.from(';1.50\r\n')]));
    else parts.push(Buffer.from(`${i};name ${i} with some padding text;${i % 100}.25\r\n`));
  }
  return Buffer.concat(parts);
}

test('a refused upload is an answer naming the line and the reason, small or streamed', async () => {
  for (const rowsN of [1000, 300_000]) {
    for (const kind of ['ragged', 'utf8'] as const) {
      const line = rowsN - 10;
      const body = brokenCsv(rowsN, line, kind);
      assert.equal(body.length > BIG, rowsN > 1000);
      const r = await put(`broken_${kind}_${rowsN}`, body);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error_code, 'invalid_file');
      assert.match(
        String(r.body.message),
        kind === 'ragged'
          ? new RegExp(`line ${line} has 2 field\\(s\\) but the header has 3`)
          : new RegExp(`line ${line} is not valid UTF-8`),
      );
      const list = (await (await fetch(`${server.url}/api/files`)).json()) as { name: string }[];
      assert.ok(!list.some((f) => f.name === `broken_${kind}_${rowsN}`), 'nothing is stored');
    }
  }
});

test('?replace=true: without it 409 names the file and the option; with it the table is replaced whole', async () => {
  const v1 = pythonCsv('replace_v1', ';', 500);
  const v2 = pythonCsv('replace_v2', '|', 800);
  await upload('swap', v1);
  const again = await put('swap', readFileSync(v2));
  assert.equal(again.status, 409);
  assert.equal(again.body.error_code, 'file_exists');
  assert.match(String(again.body.message), /'swap' already exists.*\?replace=true/);
  assert.deepEqual(await rows(SUMMARY('swap')), [expected(500)]);
  // A replacement that fails leaves the old table as it was.
  const bad = await put('swap', brokenCsv(100, 50, 'ragged'), '?replace=true');
  assert.equal(bad.status, 400);
  assert.match(String(bad.body.message), /line 50/);
  assert.deepEqual(await rows(SUMMARY('swap')), [expected(500)]);
  // Replaced while queries run: each sees the old table or the new one, never a mix.
  let stop = false;
  const seen = new Set<string>();
  const reader = (async () => {
    while (!stop) seen.add(JSON.stringify(await rows(SUMMARY('swap'))));
  })();
  const replaced = await put('swap', readFileSync(v2), '?replace=true');
  assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
  assert.equal(replaced.body.rows, 800);
  stop = true;
  await reader;
  const allowed = new Set([JSON.stringify([expected(500)]), JSON.stringify([expected(800)])]);
  for (const s of seen) assert.ok(allowed.has(s), `a query saw ${s}`);
  assert.deepEqual(await rows(SUMMARY('swap')), [expected(800)]);
});

test('a client that sends the whole body before reading (Python urllib) gets the answer, not a reset', async () => {
  await upload('taken', pythonCsv('taken', ';', 10));
  const big = join(dir, 'urllib-body.csv');
  // 10 MB: a refusal decided before the body is read (409, a bad parameter), and one
  // decided after (a ragged row near the end, past the streaming size).
  execFileSync('python3', [
    '-c',
    `import sys
with open(sys.argv[1], 'wb') as f:
    f.write(b'a;b\\r\\n' + b'1;2\\r\\n' * (10 * 1024 * 1024 // 5) + b'3\\r\\n')`,
    big,
  ]);
  const script = `
import sys, urllib.request, urllib.error
body = open(sys.argv[2], 'rb').read()
for name in ['taken', 'fresh?delimiter=:', 'fresh?replace=maybe', 'fresh']:
    req = urllib.request.Request(sys.argv[1] + '/api/files/' + name, data=body, method='PUT', headers={'Content-Type': 'text/csv'})
    try:
        print(urllib.request.urlopen(req).status)
    except urllib.error.HTTPError as e:
        print(e.code, e.read().decode())
    except Exception as e:
        print('failed', type(e).__name__, e)
`;
  const out = await new Promise<string>((resolve, reject) =>
    execFile('python3', ['-c', script, server.url, big], (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    ),
  );
  const lines = out.trim().split('\n');
  assert.equal(lines.length, 4, out);
  assert.match(lines[0], /^409 .*file_exists.*'taken' already exists.*replace=true/);
  assert.match(lines[1], /^400 .*invalid_delimiter/);
  assert.match(lines[2], /^400 .*Invalid replace 'maybe'/);
  assert.match(lines[3], /^400 .*invalid_file.*line 2097154 has 1 field\(s\) but the header has 2/);
});

test('tributary upload: a semicolon file detected in-process, and --delimiter sent to a server', async () => {
  const path = pythonCsv('cli_semi', ';', 1000);
  const run = async (name: string, args: Record<string, unknown>) => {
    let err = '';
    const sink = new Writable({
      write(c, _e, cb) {
        err += String(c);
        cb();
      },
    });
    const code = await runUploadCommand(
      server.deps.config,
      [path, name],
      args,
      new Writable({ write: (_c, _e, cb) => cb() }),
      sink,
    );
    assert.equal(code, 0, err);
  };
  await run('cli_local', {});
  await run('cli_remote', { url: server.url, delimiter: 'semicolon' });
  for (const t of ['cli_local', 'cli_remote']) assert.deepEqual(await rows(SUMMARY(t)), [expected(1000)]);
});
