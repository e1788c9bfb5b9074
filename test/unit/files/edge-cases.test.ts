import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FileError } from '../../../src/sources/files/index.js';
import { type Fixture, fixture } from './helpers.js';

let fx: Fixture;
before(async () => {
  fx = await fixture();
});
after(async () => {
  await fx.close();
});

async function refused(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof FileError, String(e));
    assert.equal(e.status, 400);
    assert.match(e.message, pattern);
    assert.doesNotMatch(e.message, /\.tmp|upload-[0-9a-f]{8}/, 'no storage paths in messages');
    return true;
  });
}

test('bytes that are not UTF-8 are refused clearly', async () => {
  const latin1 = Buffer.concat([
    Buffer.from('city\n'),
    Buffer.from([0x4d, 0xfc, 0x6e, 0x63, 0x68, 0x65, 0x6e]),
    Buffer.from('\n'),
  ]);
  await refused(
    fx.put('latin', latin1, { format: 'csv' }),
    /Could not read 'latin' as CSV: .*(unicode|UTF-8)/i,
  );
});

test('a ragged TSV names the line', async () => {
  await refused(
    fx.put('ragged_tsv', 'a\tb\n1\t2\n3\n', { format: 'tsv' }),
    /line 3 has 1 field\(s\) but the header has 2/,
  );
});

test('a broken NDJSON line is refused', async () => {
  await refused(
    fx.put('bad_nd', '{"a":1}\n{"a":\n', { format: 'ndjson' }),
    /Could not read 'bad_nd' as NDJSON/,
  );
});

test('an empty JSON array has no rows', async () => {
  await refused(fx.put('empty_arr', '[]', { format: 'json' }), /empty_arr/);
});

test('a blank workbook sheet is refused', async () => {
  const ExcelJS = (await import('exceljs')).default;
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Blank');
  await refused(
    fx.put('blank', Buffer.from(await wb.xlsx.writeBuffer()), { format: 'xlsx' }),
    /empty|no sheets|no data rows/,
  );
});

test('nothing is left in the scratch dir after all of that', () => {
  assert.deepEqual(
    fx.storedFiles().filter((f) => f.startsWith('.tmp/')),
    [],
  );
  assert.deepEqual(fx.store.records.size, 0);
});

test('a small CSV with an unterminated quote names the line that opens it, as a ragged row names its line', async () => {
  await assert.rejects(
    fx.put('unterminated', 'a,b\n1,x\n2,"y\n3,z\n4,w\n', { format: 'csv' }),
    (e: unknown) => {
      assert.ok(e instanceof FileError, String(e));
      assert.equal(e.status, 400);
      assert.match(e.message, /line 3: a quoted field starts there and is never closed/);
      assert.doesNotMatch(e.message, /sniff/i);
      return true;
    },
  );
});

test('fixed-point CSV columns are DECIMAL with their scale: sums are exact', async () => {
  let csv = 'id,amount,ratio\n';
  for (let i = 0; i < 3000; i++) csv += `${i},${(i % 100) + 0.5}0,${i}.5e1\n`;
  csv += '3000,3.99,1e2\n';
  await fx.put('money', csv, { format: 'csv' });
  const cols = await fx.files.listColumns('money');
  assert.equal(cols.find((c) => c.name === 'amount')?.type, 'DECIMAL');
  assert.match(cols.find((c) => c.name === 'amount')?.nativeType ?? '', /DECIMAL\(18,2\)/);
  assert.equal(cols.find((c) => c.name === 'ratio')?.type, 'DOUBLE');
});

test('?types names column types; an unknown column or type is a 400 naming it', async () => {
  const { parseTypesParam } = await import('../../../src/sources/files/column-types.js');
  const csv = 'id,amount,note\n1,12.5,x\n2,3.99,y\n';
  await fx.put('typed', csv, { format: 'csv', types: parseTypesParam('amount:decimal(12,2), id:bigint') });
  const cols = await fx.files.listColumns('typed');
  assert.match(cols.find((c) => c.name === 'amount')?.nativeType ?? '', /DECIMAL\(12,2\)/);
  assert.equal(cols.find((c) => c.name === 'id')?.type, 'BIGINT');
  await assert.rejects(
    fx.put('typed2', csv, { format: 'csv', types: parseTypesParam('amont:decimal(12,2)') }),
    (e: unknown) =>
      e instanceof FileError &&
      e.status === 400 &&
      /no column 'amont'/.test(e.message) &&
      /amount/.test(e.message),
  );
  assert.throws(() => parseTypesParam('amount:money'), /Unknown type 'money' for column 'amount'/);
  assert.throws(() => parseTypesParam('amount:decimal(40,2)'), /DECIMAL\(p,s\)/);
});
