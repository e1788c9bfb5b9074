import assert from 'node:assert/strict';
import { test } from 'node:test';
import { charsetNamed, charsetOfCollation, UTF8 } from '../../../src/wire/charsets.js';
import { decodeStatement, literalBytes } from '../../../src/wire/statement-bytes.js';

const bytes = (s: string) => Buffer.from(s, 'latin1');
const latin1 = charsetNamed('latin1')!;

test('UTF-8 statements without binary literals come back as their text', () => {
  for (const sql of [
    'SELECT 1',
    "SELECT 'é', `naïve_col` FROM t WHERE x = '日本' -- comment é",
    "SELECT _utf8mb4'abc', 'it''s', \"q\\\"\" /* don't */",
    "INSERT INTO t VALUES ('a_binary')",
  ])
    assert.equal(decodeStatement(Buffer.from(sql, 'utf8')), sql);
});

test('a _binary literal becomes X.. of its exact bytes, escapes undone, introducer gone', () => {
  assert.equal(decodeStatement(bytes("SELECT _binary'\\0\xff\\'\x01'")), "SELECT X'00ff2701'");
  assert.equal(decodeStatement(bytes("SELECT _BINARY 'abc', 1")), "SELECT X'616263', 1");
  assert.equal(
    decodeStatement(bytes("SELECT _binary'a''b\\\\c\\n\\Z\\t\\r\\b'")),
    "SELECT X'6127625c630a1a090d08'",
  );
  // `\%` and `\_` keep their backslash, as in MySQL.
  assert.equal(decodeStatement(bytes("SELECT _binary'\\%\\_'")), "SELECT X'5c255c5f'");
  assert.equal(decodeStatement(bytes("SELECT _binary''")), "SELECT X''");
  assert.equal(decodeStatement(bytes('SELECT _binary"a\'b"')), "SELECT X'612762'");
});

test('a plain string that is not UTF-8 keeps its bytes; valid neighbours stay text', () => {
  assert.equal(
    decodeStatement(Buffer.concat([bytes("INSERT INTO t VALUES (1, '\\0\xff\x01', "), Buffer.from("'é')")])),
    "INSERT INTO t VALUES (1, X'00ff01', 'é')",
  );
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const escaped = Buffer.concat(
    [...all].map((c) => (c === 0x27 || c === 0x5c ? Buffer.from([0x5c, c]) : Buffer.from([c]))),
  );
  const sql = Buffer.concat([bytes("INSERT INTO t (v) VALUES ('"), escaped, bytes("')")]);
  assert.equal(decodeStatement(sql), `INSERT INTO t (v) VALUES (X'${all.toString('hex')}')`);
});

test('quotes in comments, names and other literals do not open a literal', () => {
  const sql = bytes("SELECT `it's` /* it's */, 'x' # it's\n, _binary'\xff' -- it's\n");
  assert.equal(decodeStatement(sql), "SELECT `it's` /* it's */, 'x' # it's\n, X'ff' -- it's\n");
  // An executable comment is statement text: its literals are read.
  assert.equal(
    decodeStatement(bytes("SELECT 1 /*!40101 , _binary'\xfe' */")),
    "SELECT 1 /*!40101 , X'fe' */",
  );
});

test('invalid UTF-8 outside a string literal is error 1300', () => {
  assert.throws(
    () => decodeStatement(bytes('SELECT \xff FROM t')),
    (e: Error & { code?: number; errno?: number }) => /Invalid utf8mb4 character string: 'FF/.test(e.message),
  );
});

test('a latin1 connection: text converted from Windows-1252, _binary kept, introducers obeyed', () => {
  assert.equal(decodeStatement(bytes("SELECT '\xe9\x80', `caf\xe9`"), latin1), "SELECT 'é€', `café`");
  assert.equal(decodeStatement(bytes("SELECT _binary'\xe9'"), latin1), "SELECT X'e9'");
  assert.equal(decodeStatement(Buffer.from("SELECT _utf8mb4'é'", 'utf8'), latin1), "SELECT 'é'");
  assert.equal(decodeStatement(bytes("SELECT _latin1'\xe9'")), "SELECT 'é'");
});

test('character sets by name and by handshake collation', () => {
  for (const n of ['utf8', 'UTF8MB4', "'utf8mb3'", 'ascii', 'binary', 'default'])
    assert.equal(charsetNamed(n), UTF8, n);
  assert.equal(charsetNamed('latin1')?.name, 'latin1');
  assert.equal(charsetNamed('cp1251')?.decoder.decode(bytes('\xc0')), 'А');
  assert.equal(charsetNamed('gbk'), null);
  assert.equal(charsetOfCollation(8), latin1);
  assert.equal(charsetOfCollation(45), UTF8);
  assert.equal(charsetOfCollation(255), UTF8);
});

test('literalBytes undoes MySQL escapes', () => {
  const b = bytes("'a\\0b''c\\x'");
  assert.deepEqual([...literalBytes(b, 0, b.length)], [0x61, 0, 0x62, 0x27, 0x63, 0x78]);
});
