import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import { FileError } from '../../../src/sources/files/index.js';
import { type Fixture, fixture } from './helpers.js';

let fx: Fixture;
before(async () => {
  fx = await fixture();
});
after(async () => {
  await fx.close();
});

async function rejects(p: Promise<unknown>, status: number, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof FileError, `expected FileError, got ${e}`);
    assert.equal(e.status, status);
    assert.match(e.message, pattern);
    return true;
  });
}

describe('CSV', () => {
  test('quoted fields keep commas and newlines; types are inferred', async () => {
    const csv =
      'id,price,day,ts,ok,name\n' +
      '1,12.5,2024-01-02,2024-01-02 10:00:00,true,"a, b"\n' +
      '2,3.25,2024-02-03,2024-01-03 11:00:00,false,"multi\nline ""quoted"""\n';
    const { record, created } = await fx.put('sales', csv, { format: 'csv' });
    assert.equal(created, true);
    assert.deepEqual(
      { name: record.name, format: record.format, rows: record.rows, columns: record.columns },
      { name: 'sales', format: 'csv', rows: 2, columns: 6 },
    );
    assert.deepEqual(await fx.rows('SELECT * FROM "sales" ORDER BY id'), [
      // A fixed-point column is DECIMAL with its largest scale (column-types.ts).
      [1, '12.50', '2024-01-02', '2024-01-02 10:00:00', true, 'a, b'],
      [2, '3.25', '2024-02-03', '2024-01-03 11:00:00', false, 'multi\nline "quoted"'],
    ]);
    const cols = await fx.files.listColumns('sales');
    assert.deepEqual(
      cols.map((c) => [c.name, c.type]),
      [
        ['id', 'BIGINT'],
        ['price', 'DECIMAL'],
        ['day', 'DATE'],
        ['ts', 'DATETIME'],
        ['ok', 'BOOLEAN'],
        ['name', 'VARCHAR'],
      ],
    );
  });

  test('a UTF-8 byte order mark does not end up in the first column name', async () => {
    await fx.put('bom', '\uFEFFcity,n\nZürich,1\nMünchen,2\n', { contentType: 'text/csv' });
    const cols = await fx.files.listColumns('bom');
    assert.equal(cols[0].name, 'city');
    assert.deepEqual(await fx.rows('SELECT city FROM bom ORDER BY n'), [['Zürich'], ['München']]);
  });

  test('a type change past the inference sample widens the column instead of failing', async () => {
    let csv = 'k,v\n';
    for (let i = 0; i < 30000; i++) csv += `${i},x\n`;
    csv += 'not-a-number,y\n';
    const { record } = await fx.put('late_text', csv, { fileName: 'late.csv' });
    assert.equal(record.rows, 30001);
    const cols = await fx.files.listColumns('late_text');
    assert.equal(cols[0].type, 'VARCHAR');
  });

  test('ragged rows are refused naming the line; nothing is stored', async () => {
    const before = fx.storedFiles();
    await rejects(
      fx.put('ragged', 'a,b,c\n1,2,3\n4,5\n6,7,8\n', { format: 'csv' }),
      400,
      /line 3 has 2 field\(s\) but the header has 3/,
    );
    await rejects(fx.put('ragged', 'a,b\n1,2\n3,4,5\n', { format: 'csv' }), 400, /line 3 has 3 field/);
    assert.equal(fx.files.get('ragged'), null);
    assert.deepEqual(fx.storedFiles(), before);
  });

  test('an empty file is refused', async () => {
    await rejects(fx.put('empty', '', { format: 'csv' }), 400, /empty/);
    await rejects(fx.put('header_only', 'a,b\n', { format: 'csv' }), 400, /no data rows/);
    assert.equal(fx.files.get('empty'), null);
  });
});

test('TSV', async () => {
  const { record } = await fx.put('tabs', 'a\tb\n1\tx, y\n2\tz\n', {
    contentType: 'text/tab-separated-values',
  });
  assert.equal(record.format, 'tsv');
  assert.deepEqual(await fx.rows('SELECT a, b FROM tabs ORDER BY a'), [
    [1, 'x, y'],
    [2, 'z'],
  ]);
});

describe('JSON', () => {
  test('an array of objects; keys missing from some objects are NULL', async () => {
    const { record } = await fx.put(
      'people',
      '[{"id":1,"name":"Ann","born":"1990-05-01"},{"id":2,"score":9.5}]',
      {
        contentType: 'application/json',
      },
    );
    assert.equal(record.format, 'json');
    assert.deepEqual(await fx.rows('SELECT id, name, born, score FROM people ORDER BY id'), [
      [1, 'Ann', '1990-05-01', null],
      [2, null, null, 9.5],
    ]);
  });

  test('NDJSON, also when sent as application/json', async () => {
    const body = '{"a":1,"t":"2024-01-02 10:00:00"}\n{"a":2,"t":"2024-01-03 11:30:00"}\n';
    const { record } = await fx.put('events', body, { contentType: 'application/json' });
    assert.equal(record.format, 'ndjson');
    const cols = await fx.files.listColumns('events');
    assert.deepEqual(
      cols.map((c) => c.type),
      ['BIGINT', 'DATETIME'],
    );
  });

  test('JSON that is not an array of objects is refused clearly', async () => {
    await rejects(fx.put('nums', '[1,2,3]', { format: 'json' }), 400, /JSON array of objects/);
    await rejects(fx.put('broken', '[{"a":1},', { format: 'json' }), 400, /Could not read 'broken'/);
    assert.equal(fx.files.get('nums'), null);
  });
});

describe('Parquet', () => {
  test('a Parquet file round-trips with its types', async () => {
    // Make a real Parquet file with the source's own DuckDB: a CTAS, then read its bytes.
    await fx.files.execute(
      `CREATE TABLE "pq_src" AS SELECT 1::INTEGER AS i, 2.50::DECIMAL(10,2) AS d, 'x' AS s`,
    );
    const rec = fx.files.get('pq_src')!;
    const { readFileSync } = await import('node:fs');
    const bytes = readFileSync(`${fx.dir}/${rec.storagePath}`);
    const { record } = await fx.put('pq', bytes, { contentType: 'application/octet-stream' });
    assert.equal(record.format, 'parquet');
    assert.deepEqual(await fx.rows('SELECT * FROM pq'), [[1, '2.50', 'x']]);
    const cols = await fx.files.listColumns('pq');
    assert.deepEqual(
      cols.map((c) => c.type),
      ['INT', 'DECIMAL', 'VARCHAR'],
    );
  });

  test('a corrupt Parquet file is refused; nothing is stored', async () => {
    const before = fx.storedFiles();
    const junk = Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(200, 7), Buffer.from('PAR1')]);
    await rejects(fx.put('corrupt', junk, { format: 'parquet' }), 400, /Could not read 'corrupt' as PARQUET/);
    assert.equal(fx.files.get('corrupt'), null);
    assert.deepEqual(fx.storedFiles(), before);
  });
});

describe('XLSX', () => {
  async function workbook(): Promise<Buffer> {
    const wb = new ExcelJS.Workbook();
    const a = wb.addWorksheet('Orders');
    a.addRow(['id', 'customer', 'placed', 'amount', 'paid']);
    a.addRow([1, 'Ann', new Date(Date.UTC(2024, 0, 2)), 10.5, true]);
    a.addRow([2, 'Bob, Jr.', new Date(Date.UTC(2024, 0, 3)), 7, false]);
    const b = wb.addWorksheet('Refunds');
    b.addRow(['order_id', 'at']);
    b.addRow([1, new Date(Date.UTC(2024, 0, 5, 9, 30))]);
    b.getCell('C2').value = { formula: 'A2*2', result: 2 } as any;
    return Buffer.from(await wb.xlsx.writeBuffer());
  }

  test('the first sheet by default, with cell types', async () => {
    const { record } = await fx.put('orders', await workbook(), { fileName: 'book.xlsx' });
    assert.equal(record.format, 'xlsx');
    assert.deepEqual(await fx.rows('SELECT * FROM orders ORDER BY id'), [
      [1, 'Ann', '2024-01-02', 10.5, true],
      [2, 'Bob, Jr.', '2024-01-03', 7, false],
    ]);
    const cols = await fx.files.listColumns('orders');
    assert.deepEqual(
      cols.map((c) => c.type),
      ['BIGINT', 'VARCHAR', 'DATE', 'DOUBLE', 'BOOLEAN'],
    );
  });

  test('?sheet= picks a sheet by name or number; an unknown one lists the sheets', async () => {
    const book = await workbook();
    await fx.put('refunds', book, { fileName: 'book.xlsx', sheet: 'refunds' });
    assert.deepEqual(await fx.rows('SELECT * FROM refunds'), [[1, '2024-01-05 09:30:00', 2]]);
    await fx.put('refunds2', book, { fileName: 'book.xlsx', sheet: '2' });
    assert.equal(fx.files.get('refunds2')?.rows, 1);
    await rejects(
      fx.put('nosheet', book, { fileName: 'book.xlsx', sheet: 'Nope' }),
      400,
      /no sheet 'Nope'.*'Orders', 'Refunds'/,
    );
  });

  test('a broken workbook is refused', async () => {
    const before = fx.storedFiles();
    await rejects(fx.put('badxlsx', Buffer.from('PK\x03\x04garbage'), { format: 'xlsx' }), 400, /XLSX/);
    assert.deepEqual(fx.storedFiles(), before);
  });
});

describe('names and formats', () => {
  test('names must be SQL identifiers', async () => {
    for (const bad of ['1abc', 'a-b', 'a b', '', 'x'.repeat(65), 'drop;table']) {
      await rejects(fx.put(bad, 'a\n1\n', { format: 'csv' }), 400, /Invalid file table name/);
    }
  });

  test('an existing name is refused unless replace is set', async () => {
    await fx.put('clash', 'a\n1\n', { format: 'csv' });
    await rejects(fx.put('clash', 'a\n2\n', { format: 'csv' }), 409, /already exists.*replace=true/);
    await rejects(fx.put('CLASH', 'a\n2\n', { format: 'csv' }), 409, /already exists/);
    assert.deepEqual(await fx.rows('SELECT a FROM clash'), [[1]]);
    const { created, record } = await fx.put('clash', 'b,c\nx,2\ny,3\n', { format: 'csv', replace: true });
    assert.equal(created, false);
    assert.equal(record.rows, 2);
    assert.deepEqual(await fx.rows('SELECT b, c FROM clash ORDER BY c'), [
      ['x', 2],
      ['y', 3],
    ]);
  });

  test('a failed replace keeps the old table', async () => {
    await fx.put('keep', 'a\n1\n', { format: 'csv' });
    await assert.rejects(fx.put('keep', 'a,b\n1\n2,3,4\n', { format: 'csv', replace: true }));
    assert.deepEqual(await fx.rows('SELECT a FROM keep'), [[1]]);
    fx.store.failNextPut = true;
    await assert.rejects(fx.put('keep', 'a\n5\n', { format: 'csv', replace: true }), /catalog unavailable/);
    assert.deepEqual(await fx.rows('SELECT a FROM keep'), [[1]]);
  });

  test('an unknown format is refused with the list of formats', async () => {
    await rejects(fx.put('what', 'hello', {}), 415, /Cannot tell the format/);
    await rejects(fx.put('what', 'hello', { format: 'docx' }), 400, /Unsupported format 'docx'/);
  });

  test('the size limit stops the upload and leaves nothing behind', async () => {
    const before = fx.storedFiles();
    await rejects(
      fx.put('big', 'a\n'.repeat(1000), { format: 'csv', maxBytes: 100 }),
      413,
      /limit of 100 bytes/,
    );
    assert.deepEqual(fx.storedFiles(), before);
  });
});
