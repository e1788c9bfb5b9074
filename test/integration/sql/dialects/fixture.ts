/**
 * A small fixture loaded identically into MariaDB, PostgreSQL and DuckDB for the
 * differential dialect tests: NULLs, mixed case, trailing spaces, quotes and backslashes,
 * dates, decimals, doubles, booleans and JSON.
 */
import type { MysqlType } from '../../../../src/core/types.js';

type Value = string | number | boolean | null;

interface Column {
  name: string;
  type: MysqlType;
  mysql: string;
  postgres: string;
  duckdb: string;
  sqlite: string;
}

const SQLITE_TYPE: Partial<Record<MysqlType, string>> = {
  INT: 'INTEGER',
  VARCHAR: 'TEXT',
  DECIMAL: 'NUMERIC',
  DOUBLE: 'REAL',
  DATE: 'TEXT',
  DATETIME: 'TEXT',
  BOOLEAN: 'INTEGER',
  TEXT: 'TEXT',
  JSON: 'TEXT',
};

interface Table {
  name: string;
  columns: Column[];
  rows: Value[][];
}

const col = (name: string, type: MysqlType, mysql: string, postgres: string, duckdb = postgres): Column => ({
  name,
  type,
  mysql,
  postgres,
  duckdb,
  sqlite: SQLITE_TYPE[type] ?? 'TEXT',
});

const INT = (name: string) => col(name, 'INT', 'INT', 'integer', 'INTEGER');
const VARCHAR = (name: string, n: number) =>
  col(name, 'VARCHAR', `VARCHAR(${n})`, `varchar(${n})`, 'VARCHAR');
const DECIMAL = (name: string, p: number, s: number) =>
  col(name, 'DECIMAL', `DECIMAL(${p},${s})`, `numeric(${p},${s})`, `DECIMAL(${p},${s})`);
const DOUBLE = (name: string) => col(name, 'DOUBLE', 'DOUBLE', 'double precision', 'DOUBLE');
const DATE = (name: string) => col(name, 'DATE', 'DATE', 'date', 'DATE');
const DATETIME = (name: string) => col(name, 'DATETIME', 'DATETIME', 'timestamp', 'TIMESTAMP');
const BOOL = (name: string) => col(name, 'BOOLEAN', 'TINYINT(1)', 'boolean', 'BOOLEAN');
const TEXT = (name: string) => col(name, 'TEXT', 'TEXT', 'text', 'VARCHAR');
const JSONC = (name: string) => col(name, 'JSON', 'JSON', 'jsonb', 'JSON');

export const TABLES: Table[] = [
  {
    name: 'customers',
    columns: [
      INT('id'),
      VARCHAR('name', 40),
      VARCHAR('city', 40),
      VARCHAR('email', 60),
      DATE('joined'),
      BOOL('active'),
      DECIMAL('score', 8, 2),
      JSONC('profile'),
    ],
    rows: [
      [
        1,
        'Alice',
        'Paris',
        'alice@example.com',
        '2021-01-15',
        true,
        88.5,
        '{"age": 31, "tags": ["vip", "early"], "address": {"city": "Paris", "zip": "75001"}}',
      ],
      [
        2,
        'bob',
        'paris ',
        'BOB@Example.com',
        '2021-03-02',
        false,
        72.25,
        '{"age": 25, "tags": [], "address": {"city": "Paris"}}',
      ],
      [3, 'CHARLIE', 'London', null, '2020-12-31', true, null, '{"age": 40, "tags": ["vip"]}'],
      [4, 'dave ', null, 'dave@example.com', '2022-02-28', true, 95, null],
      [
        5,
        'Eve',
        'Berlin',
        'eve@example.com',
        '2021-07-04',
        false,
        60.75,
        '{"age": 22, "tags": ["new"], "address": {"city": "Berlin", "zip": "10115"}}',
      ],
      [6, "O'Brien", 'Dublin', 'obrien@example.com', '2019-11-11', true, 77, '{"age": 55}'],
      [7, 'zoë', 'berlin', null, '2023-05-05', false, null, '{"tags": ["x"]}'],
      [
        8,
        'Frank',
        'Madrid',
        'frank@example.com',
        '2020-02-29',
        true,
        50,
        '{"age": 33, "tags": ["vip", "late"]}',
      ],
    ],
  },
  {
    name: 'orders',
    columns: [
      INT('id'),
      INT('customer_id'),
      DECIMAL('amount', 10, 2),
      INT('qty'),
      VARCHAR('status', 20),
      DATETIME('ordered_at'),
      TEXT('note'),
      DOUBLE('discount'),
    ],
    rows: [
      [101, 1, 120, 2, 'shipped', '2021-02-01 10:00:00', 'gift wrap', 0.1],
      [102, 1, 35.5, 1, 'Pending', '2021-02-15 14:30:00', null, null],
      [103, 2, 250, 5, 'shipped', '2021-03-10 09:15:00', 'Leave at door', 0],
      [104, 3, 15.99, 1, 'cancelled', '2021-01-05 23:59:59', null, 0.05],
      [105, 3, 99.99, 3, 'SHIPPED', '2021-04-20 12:00:00', 'fragile', null],
      [106, null, 10, 1, 'pending', '2021-05-01 00:00:00', 'walk-in', null],
      [107, 5, 500, 10, 'shipped', '2020-12-31 18:45:00', null, 0.2],
      [108, 6, 42.42, 2, 'returned', '2021-06-30 08:00:00', 'C:\\temp\\x', 0.15],
      [109, 8, 0, 0, 'pending', '2022-01-01 00:00:00', null, null],
      [110, 4, 75.25, 3, 'shipped', '2022-03-15 16:20:00', '50% off', 0.5],
      [111, 1, 60, 2, 'shipped', '2022-03-15 16:20:00', null, null],
      [112, 7, 5, 1, 'Pending ', '2023-06-01 12:34:56', 'under_score', 0],
    ],
  },
  {
    name: 'products',
    columns: [
      INT('id'),
      VARCHAR('sku', 20),
      VARCHAR('title', 60),
      DECIMAL('price', 10, 2),
      DOUBLE('weight'),
      VARCHAR('category', 20),
    ],
    rows: [
      [1, 'SKU-001', 'Red Mug', 12.5, 0.35, 'Kitchen'],
      [2, 'sku-002', 'blue mug', 12.5, 0.35, 'kitchen'],
      [3, 'SKU-003', 'Desk Lamp', 45, 1.2, 'Office'],
      [4, 'SKU-004', 'Notebook', 3.99, null, 'office'],
      [5, 'SKU-005', 'Pen (10 pack)', 7.25, 0.1, null],
      [6, 'SKU-006', 'Chair', 149.99, 7.5, 'Office'],
    ],
  },
  {
    name: 'order_items',
    columns: [INT('order_id'), INT('product_id'), INT('quantity'), DECIMAL('unit_price', 10, 2)],
    rows: [
      [101, 1, 1, 12.5],
      [101, 3, 1, 45],
      [102, 4, 2, 3.99],
      [103, 6, 1, 149.99],
      [103, 2, 4, 12.5],
      [104, 5, 1, 7.25],
      [105, 3, 2, 45],
      [107, 6, 3, 149.99],
      [108, 1, 2, 12.5],
      [110, 4, 5, 3.99],
      [111, 2, 2, 12.5],
      [112, 5, 1, 5],
    ],
  },
  {
    // Punctuation around the letters: MySQL's weights are upper case, so '[', '_' and '`'
    // sort after 'Z' and '-' before 'A'.
    name: 'tags',
    columns: [INT('tag_id'), VARCHAR('label', 20)],
    rows: [
      [1, 'a_'],
      [2, 'ab'],
      [3, 'aZ'],
      [4, 'a['],
      [5, 'a~'],
      [6, 'a`'],
      [7, 'A-'],
      [8, 'b '],
      [9, 'B'],
    ],
  },
];

/** Column name → MySQL type (names are unique across tables, or share a type). */
export const COLUMN_TYPES: Record<string, MysqlType> = Object.fromEntries(
  TABLES.flatMap((t) => t.columns.map((c) => [c.name, c.type])),
);

function literal(dialect: Dialect, v: Value): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean')
    return dialect === 'mysql' || dialect === 'sqlite' ? (v ? '1' : '0') : v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number') return String(v);
  if (dialect === 'mysql') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return `'${v.replace(/'/g, "''")}'`;
}

/** CREATE TABLE + INSERT statements for one dialect. */
export type Dialect = 'mysql' | 'postgres' | 'duckdb' | 'sqlite';

export function fixtureSql(dialect: Dialect): string[] {
  const q = (n: string) => (dialect === 'mysql' ? `\`${n}\`` : `"${n}"`);
  const out: string[] = [];
  for (const t of TABLES) {
    const cols = t.columns.map((c) => `${q(c.name)} ${c[dialect]}`).join(', ');
    out.push(`CREATE TABLE ${q(t.name)} (${cols})${dialect === 'mysql' ? ' DEFAULT CHARSET=utf8mb4' : ''}`);
    const rows = t.rows.map((r) => `(${r.map((v) => literal(dialect, v)).join(', ')})`).join(', ');
    out.push(`INSERT INTO ${q(t.name)} VALUES ${rows}`);
  }
  return out;
}
