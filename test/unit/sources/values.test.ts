import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePgArray } from '../../../src/sources/postgres/array-text.js';
import { pgTypes } from '../../../src/sources/postgres/types.js';
import { mysqlTypeOfDeclared, mysqlTypeOfValues } from '../../../src/sources/sqlite/types.js';
import { canonicalInt, float32, intFromText, normalizeDateTime } from '../../../src/sources/value-util.js';

describe('canonical value helpers', () => {
  test('integers are numbers up to 2^53, bigints beyond', () => {
    assert.equal(canonicalInt(42n), 42);
    assert.equal(canonicalInt(9007199254740993n), 9007199254740993n);
    assert.equal(intFromText('-17'), -17);
    assert.equal(intFromText('9223372036854775807'), 9223372036854775807n);
    assert.equal(intFromText('x1'), 'x1');
  });

  test('FLOAT values read as the shortest decimal of the 32-bit float', () => {
    assert.equal(float32(Math.fround(0.1)), 0.1);
    assert.equal(float32(Math.fround(2.71823)), 2.71823);
    assert.equal(float32(1.5), 1.5);
  });

  test('date-times become YYYY-MM-DD HH:MM:SS[.ffffff] in UTC', () => {
    assert.equal(normalizeDateTime('2024-01-02T03:04:05Z'), '2024-01-02 03:04:05');
    assert.equal(normalizeDateTime('2024-01-02 03:04:05.123456+00'), '2024-01-02 03:04:05.123456');
    assert.equal(normalizeDateTime('2024-01-02 01:30:00+02:00'), '2024-01-01 23:30:00');
    assert.equal(normalizeDateTime('2024-01-02 01:30:00.5-0530'), '2024-01-02 07:00:00.5');
    assert.equal(normalizeDateTime('2024-01-02T03:04:05.123456789'), '2024-01-02 03:04:05.123456');
    assert.equal(normalizeDateTime('2024-01-02 03:04'), '2024-01-02 03:04:00');
    assert.equal(normalizeDateTime('not a date'), 'not a date');
    assert.equal(normalizeDateTime('2024-01-02'), '2024-01-02');
  });
});

describe('postgres text values', () => {
  const parse = (oid: number, text: string) => pgTypes.getTypeParser(oid, 'text')(text);

  test('arrays become JSON text with exact numbers', () => {
    assert.equal(parse(1007, '{1,NULL,3}'), '[1,null,3]');
    assert.equal(parse(1231, '{1.50,NaN}'), '[1.50,"NaN"]');
    assert.equal(parse(1016, '{9223372036854775807}'), '[9223372036854775807]');
    assert.equal(parse(1009, '{"a b","c\\"d",e,"NULL"}'), '["a b","c\\"d","e","NULL"]');
    assert.equal(parse(1007, '{{1,2},{3,4}}'), '[[1,2],[3,4]]');
    assert.equal(parse(1000, '{t,f}'), '[true,false]');
    assert.equal(parse(3807, '{"{\\"a\\": 1}"}'), '[{"a": 1}]');
    assert.equal(parse(1007, '[0:1]={1,2}'), '[1,2]');
    assert.equal(parse(1001, '{"\\\\x0102"}'), '["AQI="]');
  });

  test('scalars are canonical', () => {
    assert.equal(parse(20, '9007199254740993'), 9007199254740993n);
    assert.equal(parse(20, '12'), 12);
    assert.equal(parse(1700, '12345678901234567890.123'), '12345678901234567890.123');
    assert.equal(parse(16, 't'), true);
    assert.equal(parse(1082, '2024-02-29'), '2024-02-29');
    assert.equal(parse(1184, '2024-01-02 03:04:05.5+00'), '2024-01-02 03:04:05.5');
    assert.equal(parse(114, '{"a": [1]}'), '{"a": [1]}');
    assert.deepEqual([...(parse(17, '\\x0102') as Uint8Array)], [1, 2]);
    assert.equal(parse(1186, '1 day'), '1 day');
  });

  test('an unparsable array text is kept as a JSON string', () => {
    assert.equal(
      parsePgArray('{unterminated', (v) => JSON.stringify(v)),
      '"{unterminated"',
    );
  });
});

describe('sqlite types', () => {
  test('declared types follow SQLite affinity, refined by common names', () => {
    assert.equal(mysqlTypeOfDeclared('INTEGER'), 'BIGINT');
    assert.equal(mysqlTypeOfDeclared('int'), 'INT');
    assert.equal(mysqlTypeOfDeclared('VARCHAR(20)'), 'VARCHAR');
    assert.equal(mysqlTypeOfDeclared('decimal(10,2)'), 'DECIMAL');
    assert.equal(mysqlTypeOfDeclared('DATETIME'), 'DATETIME');
    assert.equal(mysqlTypeOfDeclared('REAL'), 'DOUBLE');
    assert.equal(mysqlTypeOfDeclared('clob'), 'TEXT');
    assert.equal(mysqlTypeOfDeclared('boolean'), 'BOOLEAN');
    assert.equal(mysqlTypeOfDeclared(''), null);
  });

  test('expression columns take their type from their values', () => {
    assert.equal(mysqlTypeOfValues([1, null, 2n]), 'BIGINT');
    assert.equal(mysqlTypeOfValues([1, 2.5]), 'DOUBLE');
    assert.equal(mysqlTypeOfValues(['a', null]), 'TEXT');
    assert.equal(mysqlTypeOfValues([new Uint8Array([1])]), 'BLOB');
    assert.equal(mysqlTypeOfValues([1, 'a']), 'TEXT');
    assert.equal(mysqlTypeOfValues([null]), 'TEXT');
  });
});
