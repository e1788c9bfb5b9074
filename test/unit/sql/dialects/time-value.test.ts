/** CONVERT_TZ's zones as MySQL reads them, and the MySQL types a statement settles for its result columns. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pkg from 'node-sql-parser/build/mysql.js';
import { parseZone } from '../../../../src/sql/dialects/functions/time-value.js';
import { resultTypes } from '../../../../src/sql/dialects/infer.js';
import { normalizeAst } from '../../../../src/sql/parse/normalize.js';

const { Parser } = pkg as unknown as { Parser: new () => { astify(sql: string, o: object): any } };
const parser = new Parser();

describe('CONVERT_TZ zones', () => {
  const cases: [string, ReturnType<typeof parseZone>][] = [
    ['SYSTEM', { offset: 0 }],
    ['system', { offset: 0 }],
    ['+00:00', { offset: 0 }],
    ['+05:30', { offset: 330 }],
    ['+5:30', { offset: 330 }],
    ['-03:00', { offset: -180 }],
    ['+14:00', { offset: 840 }],
    ['-13:59', { offset: -839 }],
    ['+14:01', null],
    ['-14:00', null],
    ['+01:60', null],
    ['00:00', null],
    ['+1:5', null],
    ['UTC', { name: 'UTC' }],
    ['Europe/Paris', { name: 'Europe/Paris' }],
    ['europe/paris', { name: 'Europe/Paris' }],
    ['Nowhere/City', null],
    ['', null],
    ["Europe/Paris'; DROP TABLE t", null],
  ];
  for (const [text, want] of cases)
    test(`'${text}' is ${JSON.stringify(want)}`, () => assert.deepEqual(parseZone(text), want));
});

describe('result types a statement settles', () => {
  const types = (sql: string) =>
    resultTypes((normalizeAst(parser.astify(sql, { database: 'MySQL' })) as { columns: any }).columns);
  test('integer arithmetic is BIGINT, TIMEDIFF TIME, JSON functions JSON; the rest (SUM, /) is the source’s', () => {
    assert.deepEqual(
      types(
        "SELECT 1+1, id, -id, 7 DIV 2, MOD(a, 2), TIMEDIFF(a, b), JSON_OBJECT('k', 1), a->'$.x', SUM(a), a / 2 FROM t",
      ),
      [
        { at: 0, type: 'BIGINT' },
        { at: 2, type: 'BIGINT' },
        { at: 3, type: 'BIGINT' },
        { at: 4, type: 'BIGINT' },
        { at: 5, type: 'TIME' },
        { at: 6, type: 'JSON' },
        { at: 7, type: 'JSON' },
      ],
    );
  });
  test('after a star, positions count from the end', () => {
    assert.deepEqual(types('SELECT *, id + 1 FROM t'), [{ at: -1, type: 'BIGINT' }]);
  });
});
