/** Fixed-point columns as DECIMAL, decided from the record scan of every row (column-types.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixedPointColumns } from '../../../../src/sources/files/column-types.js';
import { CsvRecordScan } from '../../../../src/sources/files/csv-check.js';
import type { Delimiter } from '../../../../src/sources/files/csv-delimiter.js';
import type { CsvLayout } from '../../../../src/sources/files/csv-layout.js';

function decide(text: string, delimiter: Delimiter, sniffed: string[]): CsvLayout {
  const scan = new CsvRecordScan(delimiter);
  scan.push(Buffer.from(text));
  const names = text.split(/\r?\n/)[0].split(delimiter);
  const layout: CsvLayout = {
    delimiter,
    columns: names.map((name, i) => ({ name, type: sniffed[i] })),
    dateFormat: null,
    timestampFormat: null,
  };
  return fixedPointColumns(layout, scan.end());
}

const types = (l: CsvLayout) => l.columns.map((c) => c.type);

test('fixed-point DOUBLE columns become DECIMAL with the most decimals of any row', () => {
  const l = decide('id,amount,ratio,big\n1,12.5,1e3,1234567890123456.125\n2,3.125,2,1\n', ',', [
    'BIGINT',
    'DOUBLE',
    'DOUBLE',
    'DOUBLE',
  ]);
  assert.deepEqual(types(l), ['BIGINT', 'DECIMAL(18,3)', 'DOUBLE', 'DECIMAL(38,3)']);
  assert.equal(l.decimalComma, undefined);
});

test('decimal commas in a semicolon file: DECIMAL, read with a decimal comma', () => {
  const l = decide('id;betrag;name\r\n1;12,50;Anna\r\n2;3;Bert\r\n', ';', ['BIGINT', 'VARCHAR', 'VARCHAR']);
  assert.deepEqual(types(l), ['BIGINT', 'DECIMAL(18,2)', 'VARCHAR']);
  assert.equal(l.decimalComma, true);
});

test('a file that also holds point decimals keeps its comma columns as text', () => {
  const l = decide('a;b\r\n1,5;2.5\r\n', ';', ['VARCHAR', 'DOUBLE']);
  assert.deepEqual(types(l), ['VARCHAR', 'DECIMAL(18,1)']);
  assert.equal(l.decimalComma, undefined);
});
