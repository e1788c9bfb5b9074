import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { fileJson } from '../../../../src/http/routes/files.js';
import { FileError, FilesSource } from '../../../../src/sources/files/index.js';
import { type Fixture, fixture } from './helpers.js';

// Every CSV here takes the large-upload path (convertLaterAbove: 0): kept as CSV,
// answered at once, converted to Parquet in the background. The idle delay is long, so
// conversions run only when a test asks for them (convertPending) unless it says so.
let fx: Fixture;
before(async () => {
  fx = await fixture({ convertLaterAbove: 0, convertIdleMs: 60_000 });
});
after(async () => {
  await fx.close();
});

const MIXED =
  'id,price,day,ts,ok,name,maybe\n' +
  '1,12.5,02/01/2024,2024-01-02 10:00:00,true,"a, b",\n' +
  '2,3.25,03/02/2024,2024-01-03 11:00:00,false,"multi\nline ""quoted""",7\n' +
  '3,-1,04/02/2024,2024-01-04 12:30:00,true,Zürich,\n';

const ALL = 'SELECT * FROM mixed ORDER BY id';
const AGG = `SELECT count(*), sum(price), count(DISTINCT translate(lower(rtrim(name)), 'ü', 'u')), min(day), max(ts) FROM mixed`;

function stored(): string[] {
  return fx.storedFiles().filter((f) => !f.startsWith('.tmp/'));
}

async function describeTypes(name: string): Promise<string[][]> {
  return (await fx.files.listColumns(name)).map((c) => [c.name, c.type, c.nativeType ?? '']);
}

describe('a large CSV is answered before its conversion', () => {
  test('the upload answers with the table stored as CSV, its rows counted as it arrived', async () => {
    const { record, created } = await fx.put('mixed', MIXED, { format: 'csv' });
    assert.equal(created, true);
    assert.equal(record.rows, 3, 'the quoted field with a newline is one row');
    assert.equal(record.columns, 7);
    assert.match(record.storagePath, /^files\/mixed\.[0-9a-f]{8}\.csv$/);
    assert.equal(fileJson(record).rows, 3);
    assert.equal(fileJson(record).stored_as, 'csv', 'the listing says the conversion is still to come');
    assert.deepEqual(stored(), [record.storagePath.slice('files/'.length)]);
  });

  test('a one-column CSV with empty lines: rows are unknown (null) until the conversion counts them', async () => {
    // DuckDB reads an empty line of a one-column file as a NULL row, so the scan does not guess.
    const { record } = await fx.put('onecol', 'a\n1\n\n2\n', { format: 'csv' });
    assert.equal(record.rows, -1);
    assert.equal(fileJson(record).rows, null);
    await fx.files.convertPending();
    assert.equal(fx.files.get('onecol')!.rows, 3);
    await fx.files.remove('onecol');
  });

  test('answers and column types are the same before and after the conversion', async () => {
    const before = { all: await fx.rows(ALL), agg: await fx.rows(AGG), types: await describeTypes('mixed') };
    // The fixed-point price is DECIMAL on this path too, as for a small upload.
    assert.deepEqual(before.all[1], [
      2,
      '3.25',
      '2024-02-03',
      '2024-01-03 11:00:00',
      false,
      'multi\nline "quoted"',
      7,
    ]);
    assert.deepEqual(await fx.files.convertPending(), []);
    const rec = fx.files.get('mixed')!;
    assert.equal(rec.rows, 3);
    assert.equal(fileJson(rec).rows, 3);
    assert.equal(fileJson(rec).stored_as, 'parquet');
    assert.match(rec.storagePath, /\.parquet$/);
    assert.deepEqual(fx.store.records.get('mixed')?.storagePath, rec.storagePath);
    assert.deepEqual(stored(), [rec.storagePath.slice('files/'.length)], 'the CSV is gone');
    assert.deepEqual(await fx.rows(ALL), before.all);
    assert.deepEqual(await fx.rows(AGG), before.agg);
    assert.deepEqual(await describeTypes('mixed'), before.types);
  });

  test('a TSV takes the same path', async () => {
    const { record } = await fx.put('tabbed', 'a\tb\n1\tx, y\n2\tz\n', { format: 'tsv' });
    assert.match(record.storagePath, /\.tsv$/);
    const before = await fx.rows('SELECT a, b FROM tabbed ORDER BY a');
    assert.deepEqual(before, [
      [1, 'x, y'],
      [2, 'z'],
    ]);
    await fx.files.convertPending();
    assert.match(fx.files.get('tabbed')!.storagePath, /\.parquet$/);
    assert.deepEqual(await fx.rows('SELECT a, b FROM tabbed ORDER BY a'), before);
  });

  test('the conversion starts by itself once the source has been idle', async () => {
    const quick = await fixture({ convertLaterAbove: 0, convertIdleMs: 20 });
    try {
      await quick.put('soon', 'a,b\n1,x\n2,y\n', { format: 'csv' });
      const deadline = Date.now() + 10_000;
      while (quick.files.get('soon')?.rows !== 2) {
        assert.ok(Date.now() < deadline, 'converted within 10 s');
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual(await quick.rows('SELECT b FROM soon ORDER BY a'), [['x'], ['y']]);
    } finally {
      await quick.close();
    }
  });
});

describe('bad large CSVs', () => {
  test('what the cheap checks see is refused up front; nothing is registered or left', async () => {
    const before = stored();
    const refused = async (body: string | Buffer, pattern: RegExp) =>
      assert.rejects(fx.put('bad', body, { format: 'csv' }), (e: unknown) => {
        assert.ok(e instanceof FileError, String(e));
        assert.equal(e.status, 400);
        assert.match(e.message, pattern);
        return true;
      });
    await refused('', /empty/);
    await refused('a,b\n', /no data rows/);
    await refused('a,b,c\n1,2,3\n4,5\n', /line 3 has 2 field\(s\) but the header has 3/);
    await refused('a,b\n1,x\n2,"y\n3,z\n', /line 3: a quoted field starts there and is never closed/);
    await refused(
      Buffer.concat([Buffer.from('city\nM'), Buffer.from([0xfc]), Buffer.from('nchen\n')]),
      /UTF-8/,
    );
    assert.equal(fx.files.get('bad'), null);
    assert.deepEqual(stored(), before);
    assert.deepEqual(
      fx.storedFiles().filter((f) => f.startsWith('.tmp/')),
      [],
    );
  });

  test('a type change past the sniffed sample widens the column; the query that met it still answers', async () => {
    let csv = 'k,v\n';
    for (let i = 0; i < 30000; i++) csv += `${i},x\n`;
    csv += 'not-a-number,y\n';
    await fx.put('late_text', csv, { format: 'csv' });
    assert.equal((await fx.files.listColumns('late_text'))[0].type, 'BIGINT', 'sniffed from the sample');
    assert.deepEqual(await fx.rows('SELECT count(*), max(k) FROM late_text'), [[30001, 'not-a-number']]);
    const rec = fx.files.get('late_text')!;
    assert.equal(rec.rows, 30001);
    assert.match(rec.storagePath, /\.parquet$/);
    assert.equal((await fx.files.listColumns('late_text'))[0].type, 'VARCHAR');
  });

  test('a ragged row past the sniffer sample is refused at upload; nothing is registered or left', async () => {
    let csv = 'a,b\n';
    for (let i = 0; i < 30000; i++) csv += `${i},x\n`;
    csv += '1,2,3\n';
    const before = stored();
    await assert.rejects(
      fx.put('ragged_late', csv, { format: 'csv' }),
      /line 30002 has 3 field\(s\) but the header has 2/,
    );
    assert.equal(fx.files.get('ragged_late'), null);
    assert.equal(fx.store.records.has('ragged_late'), false);
    assert.deepEqual(stored(), before);
  });

  test('a quoted field left open at the end is refused at upload', async () => {
    let csv = 'a,b\n';
    for (let i = 0; i < 30000; i++) csv += `${i},x\n`;
    csv += '1,"open\n';
    const before = stored();
    await assert.rejects(
      fx.put('open_quote', csv, { format: 'csv' }),
      /line 30002: a quoted field starts there and is never closed/,
    );
    assert.equal(fx.files.get('open_quote'), null);
    assert.deepEqual(stored(), before);
  });
});

describe('replace and drop during a conversion', () => {
  function bigCsv(rows: number, tag: string): string {
    let csv = 'id,tag,amount\n';
    for (let i = 0; i < rows; i++) csv += `${i},${tag},${i / 4}\n`;
    return csv;
  }

  test('a replace wins over a running conversion of the old file', async () => {
    const before = stored();
    await fx.put('swap', bigCsv(300_000, 'old'), { format: 'csv' });
    const converting = fx.files.convertPending();
    await new Promise((r) => setTimeout(r, 30));
    const { record } = await fx.put('swap', 'id,tag\n1,new\n', { format: 'csv', replace: true });
    await converting;
    assert.deepEqual(await fx.rows('SELECT tag FROM swap'), [['new']]);
    assert.equal(fx.store.records.get('swap')?.storagePath, fx.files.get('swap')?.storagePath);
    await fx.files.convertPending();
    assert.deepEqual(await fx.rows('SELECT tag FROM swap'), [['new']]);
    const now = fx.files.get('swap')!;
    assert.notEqual(now.storagePath, record.storagePath);
    assert.deepEqual(stored(), [...before, now.storagePath.slice('files/'.length)].sort());
  });

  test('a drop wins over a running conversion; nothing is left', async () => {
    const before = stored();
    await fx.put('gone', bigCsv(300_000, 'x'), { format: 'csv' });
    const converting = fx.files.convertPending();
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(await fx.files.writeTable({ kind: 'drop', table: 'gone', ifExists: false }), {
      affectedRows: 0,
    });
    await converting;
    assert.equal(fx.files.get('gone'), null);
    assert.equal(fx.store.records.has('gone'), false);
    assert.deepEqual(stored(), before);
    assert.deepEqual(
      fx.storedFiles().filter((f) => f.startsWith('.tmp/')),
      [],
    );
  });

  test('INSERT into a table still stored as CSV rewrites it as Parquet', async () => {
    await fx.put('grow', 'a,b\n1,x\n', { format: 'csv' });
    assert.deepEqual(
      await fx.files.writeTable({ kind: 'change', table: 'grow', sql: `INSERT INTO "grow" VALUES (2, 'y')` }),
      { affectedRows: 1 },
    );
    const rec = fx.files.get('grow')!;
    assert.match(rec.storagePath, /\.parquet$/);
    assert.equal(rec.rows, 2);
    assert.deepEqual(await fx.rows('SELECT * FROM grow ORDER BY a'), [
      [1, 'x'],
      [2, 'y'],
    ]);
    assert.ok(!stored().some((f) => f.startsWith('grow.') && f.endsWith('.csv')));
  });
});

test('a restart with a pending conversion serves the CSV and converts it', async () => {
  const other = await fixture({ convertLaterAbove: 0, convertIdleMs: 60_000 });
  try {
    await other.put('resume', MIXED.replace('mixed', 'resume'), { format: 'csv' });
    const answer = await other.rows('SELECT * FROM resume ORDER BY id');
    const types = (await other.files.listColumns('resume')).map((c) => c.nativeType);
    // A crash: the process ends without converting; the catalog still says CSV.
    await other.files.close();
    assert.match(other.store.records.get('resume')!.storagePath, /\.csv$/);
    const again = await FilesSource.open({
      storageDir: other.dir,
      store: other.store,
      logger: pino({ level: 'silent' }),
      convertIdleMs: 60_000,
    });
    try {
      const { collect } = await import('../../../../src/sources/types.js');
      assert.deepEqual((await collect(await again.query('SELECT * FROM resume ORDER BY id'))).rows, answer);
      assert.deepEqual(await again.convertPending(), []);
      assert.match(again.get('resume')!.storagePath, /\.parquet$/);
      assert.equal(again.get('resume')!.rows, 3);
      assert.deepEqual((await collect(await again.query('SELECT * FROM resume ORDER BY id'))).rows, answer);
      assert.deepEqual(
        (await again.listColumns('resume')).map((c) => c.nativeType),
        types,
      );
      assert.deepEqual(
        other.storedFiles().filter((f) => !f.startsWith('.tmp/')),
        [again.get('resume')!.storagePath.slice('files/'.length)],
      );
    } finally {
      await again.close();
    }
  } finally {
    await other.close().catch(() => {});
  }
});

test('a CSV longer than the sniffed head: typed from its head while arriving, and alike after a restart', async () => {
  const other = await fixture({ convertLaterAbove: 0, convertIdleMs: 60_000 });
  try {
    let csv = 'id,day,amount,label\n';
    for (let i = 0; i < 60_000; i++)
      csv += `${i},2024-01-${String((i % 28) + 1).padStart(2, '0')},${i / 8},row ${i}\n`;
    assert.ok(csv.length > 1.5 * 1024 * 1024);
    await other.put('long', csv, { format: 'csv' });
    const types = (await other.files.listColumns('long')).map((c) => c.nativeType);
    assert.deepEqual(types, ['BIGINT', 'DATE', 'DECIMAL(18,3)', 'VARCHAR']);
    const answer = await other.rows(
      'SELECT count(*), sum(amount), max(day), count(DISTINCT label) FROM long',
    );
    await other.files.close();
    const again = await FilesSource.open({
      storageDir: other.dir,
      store: other.store,
      logger: pino({ level: 'silent' }),
      convertIdleMs: 60_000,
    });
    try {
      const { collect } = await import('../../../../src/sources/types.js');
      assert.deepEqual(
        (await again.listColumns('long')).map((c) => c.nativeType),
        types,
      );
      assert.deepEqual(await again.convertPending(), []);
      assert.equal(again.get('long')!.rows, 60_000);
      const q = 'SELECT count(*), sum(amount), max(day), count(DISTINCT label) FROM long';
      assert.deepEqual((await collect(await again.query(q))).rows, answer);
    } finally {
      await again.close();
    }
  } finally {
    await other.close().catch(() => {});
  }
});

test('a semicolon file with decimal commas kept as CSV: the same delimiter and types after a restart', async () => {
  const other = await fixture({ convertLaterAbove: 0, convertIdleMs: 60_000 });
  try {
    let csv = 'nr;betrag;kunde\r\n';
    for (let i = 0; i < 80_000; i++)
      csv += `${i};${i % 1000},${String(i % 100).padStart(2, '0')};"Kunde; ${i}"\r\n`;
    assert.ok(csv.length > 1.5 * 1024 * 1024, 'longer than the sniffed head');
    await other.put('eu', csv, { format: 'csv' });
    const types = (await other.files.listColumns('eu')).map((c) => c.nativeType);
    assert.deepEqual(types, ['BIGINT', 'DECIMAL(18,2)', 'VARCHAR']);
    const q = 'SELECT count(*), CAST(sum(betrag) AS VARCHAR), max(kunde) FROM eu';
    const answer = await other.rows(q);
    await other.files.close();
    const again = await FilesSource.open({
      storageDir: other.dir,
      store: other.store,
      logger: pino({ level: 'silent' }),
      convertIdleMs: 60_000,
    });
    try {
      const { collect } = await import('../../../../src/sources/types.js');
      assert.deepEqual(
        (await again.listColumns('eu')).map((c) => c.nativeType),
        types,
      );
      assert.deepEqual((await collect(await again.query(q))).rows, answer);
      assert.deepEqual(await again.convertPending(), []);
      assert.equal(again.get('eu')!.rows, 80_000);
      assert.deepEqual((await collect(await again.query(q))).rows, answer);
    } finally {
      await again.close();
    }
  } finally {
    await other.close().catch(() => {});
  }
});
