/** A source column as MySQL 8 describes it (table-driven): type, information_schema facts, default. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { columnFacts, indexParts, plainDefault } from '../../../src/core/mysql-columns.js';
import type { ColumnInfo } from '../../../src/core/types.js';

const col = (over: Partial<ColumnInfo>): ColumnInfo => ({
  name: 'c',
  type: 'VARCHAR',
  nativeType: '',
  nullable: true,
  ...over,
});

test('column facts follow MySQL 8 for each type', () => {
  const cases: [Partial<ColumnInfo>, Partial<ReturnType<typeof columnFacts>>][] = [
    [
      { type: 'VARCHAR', nativeType: 'character varying(20)' },
      {
        columnType: 'varchar(20)',
        dataType: 'varchar',
        charMaxLength: 20,
        charOctetLength: 80,
        charset: 'utf8mb4',
      },
    ],
    [
      { type: 'DECIMAL', nativeType: 'numeric(10,2)' },
      { columnType: 'decimal(10,2)', numericPrecision: 10, numericScale: 2, charMaxLength: null },
    ],
    [
      { type: 'INT', nativeType: 'integer' },
      { columnType: 'int', numericPrecision: 10, numericScale: 0 },
    ],
    [
      { type: 'BOOLEAN', nativeType: 'boolean' },
      { columnType: 'tinyint(1)', dataType: 'tinyint', numericPrecision: 3 },
    ],
    [
      { type: 'TEXT', nativeType: 'text' },
      { columnType: 'text', charMaxLength: 65535 },
    ],
    [
      { type: 'DATETIME', nativeType: 'datetime(3)' },
      { columnType: 'datetime(3)', datetimePrecision: 3 },
    ],
    [
      { type: 'TIMESTAMP', nativeType: 'timestamp without time zone' },
      { columnType: 'timestamp', datetimePrecision: 0 },
    ],
    [
      { type: 'DOUBLE', nativeType: 'double precision' },
      { columnType: 'double', numericPrecision: 22, numericScale: null },
    ],
    [
      { type: 'BIGINT', nativeType: 'bigint(20) unsigned' },
      { columnType: 'bigint unsigned', dataType: 'bigint', numericPrecision: 20, numericScale: 0 },
    ],
    [
      { type: 'INT', nativeType: 'int(10) unsigned zerofill' },
      { columnType: 'int unsigned', dataType: 'int', numericPrecision: 10 },
    ],
    [
      { type: 'DECIMAL', nativeType: 'decimal(10,2) unsigned' },
      { columnType: 'decimal(10,2) unsigned', dataType: 'decimal', numericPrecision: 10, numericScale: 2 },
    ],
    [
      // Only a number column is unsigned: the word in a type's text elsewhere is not a flag.
      { type: 'ENUM', nativeType: "enum('signed','unsigned')" },
      { columnType: "enum('signed','unsigned')", dataType: 'enum' },
    ],
    [
      { type: 'INT', nativeType: 'integer', default: "nextval('t_id_seq'::regclass)" },
      { extra: 'auto_increment', default: null },
    ],
  ];
  for (const [c, want] of cases) {
    const got = columnFacts(col(c));
    for (const [k, v] of Object.entries(want))
      assert.equal(got[k as keyof typeof got], v, `${c.nativeType} ${k}`);
  }
});

test('defaults are shown as MySQL shows them', () => {
  const cases: [string | null, string | null][] = [
    ["'none'::character varying", 'none'],
    ["'it''s'::text", "it's"],
    ['0', '0'],
    ['(-1.5)::numeric', '-1.5'],
    ['NULL::character varying', null],
    ['now()', 'CURRENT_TIMESTAMP'],
    ['CURRENT_TIMESTAMP', 'CURRENT_TIMESTAMP'],
    ["(lower('X'))", "(lower('X'))"],
    [null, null],
  ];
  for (const [d, want] of cases) assert.equal(plainDefault(d), want, String(d));
});

test('indexes implied by a column listing: PRIMARY first, then one per UNI/MUL column', () => {
  const parts = indexParts([
    col({ name: 'b', key: 'MUL' }),
    col({ name: 'a', key: 'PRI', nullable: false }),
    col({ name: 'c', key: 'UNI' }),
  ]);
  assert.deepEqual(
    parts.map((p) => [p.name, p.unique, p.seq, p.column]),
    [
      ['PRIMARY', true, 1, 'a'],
      ['b', false, 1, 'b'],
      ['c', true, 1, 'c'],
    ],
  );
});
