import assert from 'node:assert/strict';
import { test } from 'node:test';
import { charsetNamed, charsetOfCollation, decodeName, UTF8 } from '../../../src/wire/charsets.js';
import { columnsIn, rowIn, wireColumns } from '../../../src/wire/columns.js';

const latin1 = charsetNamed('latin1')!;

test('latin1 (cp1252) writes é, ÿ and € as MySQL does, and reads them back', () => {
  const b = latin1.encode('é ÿ € Œ ‰ abc');
  assert.equal(
    b.toString('hex'),
    Buffer.from([0xe9, 0x20, 0xff, 0x20, 0x80, 0x20, 0x8c, 0x20, 0x89, 0x20, 0x61, 0x62, 0x63]).toString(
      'hex',
    ),
  );
  assert.equal(latin1.decoder.decode(b), 'é ÿ € Œ ‰ abc');
  assert.equal(latin1.collation, 8);
});

test('a character latin1 cannot hold is one ?, a character outside the BMP too', () => {
  assert.equal(latin1.encode('日本 ok').toString('latin1'), '?? ok');
  assert.equal(latin1.encode('a😀b').toString('latin1'), 'a?b');
  assert.equal(latin1.encode('').length, 0);
  assert.equal(latin1.encode('\0x').toString('hex'), '0078');
});

test('other single-byte sets write their own letters', () => {
  const cp1251 = charsetNamed('cp1251')!;
  assert.equal(cp1251.encode('Жж').toString('hex'), 'c6e6');
  assert.equal(cp1251.collation, 51);
  assert.equal(charsetNamed('greek')!.encode('Ω').toString('hex'), 'd9');
});

test('utf8mb4 writes UTF-8; the handshake collations name their sets', () => {
  assert.equal(UTF8.encode('é€').toString('hex'), 'c3a9e282ac');
  assert.equal(charsetOfCollation(8), latin1);
  assert.equal(charsetOfCollation(48), latin1);
  assert.equal(charsetOfCollation(51), charsetNamed('cp1251'));
  assert.equal(charsetOfCollation(255), UTF8);
});

test('names (COM_INIT_DB, COM_FIELD_LIST) read in the connection set', () => {
  assert.equal(decodeName(Buffer.from([0x63, 0x61, 0x66, 0xe9]), latin1), 'café');
  assert.equal(decodeName(Buffer.from('café', 'utf8'), UTF8), 'café');
});

test('a result in latin1: text columns carry latin1_swedish_ci and bytes, binary and numbers keep 63', () => {
  const cols = columnsIn(
    wireColumns(
      [
        { name: 's', type: 'VARCHAR' },
        { name: 't', type: 'TEXT' },
        { name: 'b', type: 'BLOB' },
        { name: 'n', type: 'INT' },
        { name: 'd', type: 'DATE' },
      ],
      [],
    ),
    latin1,
  );
  assert.deepEqual(
    cols.map((c) => c.charset),
    [8, 8, 63, 63, 63],
  );
  const row = rowIn(cols, ['é€', 'ÿ', 'AAE=', 7, '2024-01-02'], latin1);
  assert.deepEqual(row[0], Buffer.from([0xe9, 0x80]));
  assert.deepEqual(row[1], Buffer.from([0xff]));
  assert.deepEqual(row.slice(2), ['AAE=', 7, '2024-01-02']);
});
