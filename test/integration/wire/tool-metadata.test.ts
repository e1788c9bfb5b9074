/**
 * What DBeaver, Metabase and JDBC ask for a schema browser, through mysql2: information_schema
 * (COLUMNS with MySQL 8's fields, TABLES, SCHEMATA, STATISTICS, KEY_COLUMN_USAGE and its
 * foreign-key join), SHOW TABLE STATUS / GRANTS, and selects that mix the connection's own
 * values (USER(), @@version, DATABASE()) with expressions the engine computes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { addVisits, startWireFixture, type WireFixture } from './helpers.js';

let fx: WireFixture;
let conn: mysql.Connection;

before(async () => {
  fx = await startWireFixture();
  await addVisits(fx);
  conn = await mysql.createConnection({
    host: '127.0.0.1',
    port: fx.port,
    user: 'anyone',
    database: 'pgs',
    dateStrings: true,
  });
});

after(async () => {
  await conn?.end();
  await fx?.stop();
});

async function rows(sql: string): Promise<mysql.RowDataPacket[]> {
  const [r] = await conn.query<mysql.RowDataPacket[]>(sql);
  return r;
}

describe('selects mixing connection values and expressions, as MySQL 8 answers them', () => {
  test('SELECT USER(), 1+1', async () => {
    const [r] = await rows('SELECT USER(), 1+1');
    assert.deepEqual({ ...r }, { 'USER()': 'anyone@127.0.0.1', '1+1': 2 });
  });

  test('SELECT @@version, NOW()', async () => {
    const [r] = await rows('SELECT @@version, NOW()');
    assert.match(r['@@version'], /^8\.0\.\d+/);
    assert.match(r['NOW()'], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  test('SELECT DATABASE(), CONNECTION_ID() and values inside expressions and WHERE', async () => {
    const [r] = await rows('SELECT DATABASE(), CONNECTION_ID()');
    assert.deepEqual({ ...r }, { 'DATABASE()': 'pgs', 'CONNECTION_ID()': conn.threadId });
    const [c] = await rows("SELECT CONCAT(USER(), '/', @@session.time_zone) AS u, CONNECTION_ID() + 1 AS n");
    assert.deepEqual({ ...c }, { u: 'anyone@127.0.0.1/+00:00', n: conn.threadId + 1 });
    const t = await rows(
      'SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY 1',
    );
    assert.deepEqual(
      t.map((x) => x.TABLE_NAME),
      ['customers', 'visits'],
    );
    await assert.rejects(conn.query('SELECT @@no_such_thing, 1+1'), { errno: 1193 });
  });
});

describe('information_schema as DBeaver and Metabase read it', () => {
  test('COLUMNS carries MySQL 8 types, lengths, precision, defaults and keys', async () => {
    const r = await rows(
      `SELECT COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE, COLUMN_TYPE,
         CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE,
         DATETIME_PRECISION, CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_KEY, EXTRA
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pgs' AND TABLE_NAME IN ('visits', 'customers')
       ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    );
    const byName = Object.fromEntries(r.map((x) => [`${x.COLUMN_NAME}`, { ...x }]));
    assert.deepEqual(byName.balance, {
      COLUMN_NAME: 'balance',
      ORDINAL_POSITION: 4,
      COLUMN_DEFAULT: null,
      IS_NULLABLE: 'YES',
      DATA_TYPE: 'decimal',
      COLUMN_TYPE: 'decimal(10,2)',
      CHARACTER_MAXIMUM_LENGTH: null,
      CHARACTER_OCTET_LENGTH: null,
      NUMERIC_PRECISION: 10,
      NUMERIC_SCALE: 2,
      DATETIME_PRECISION: null,
      CHARACTER_SET_NAME: null,
      COLLATION_NAME: null,
      COLUMN_KEY: '',
      EXTRA: '',
    });
    assert.deepEqual(byName.note, {
      COLUMN_NAME: 'note',
      ORDINAL_POSITION: 4,
      COLUMN_DEFAULT: 'none',
      IS_NULLABLE: 'YES',
      DATA_TYPE: 'varchar',
      COLUMN_TYPE: 'varchar(20)',
      CHARACTER_MAXIMUM_LENGTH: 20,
      CHARACTER_OCTET_LENGTH: 80,
      NUMERIC_PRECISION: null,
      NUMERIC_SCALE: null,
      DATETIME_PRECISION: null,
      CHARACTER_SET_NAME: 'utf8mb4',
      COLLATION_NAME: 'utf8mb4_general_ci',
      COLUMN_KEY: '',
      EXTRA: '',
    });
    assert.equal(byName.id.COLUMN_KEY, 'PRI');
    assert.equal(byName.id.NUMERIC_PRECISION, 10);
    assert.equal(byName.day.COLUMN_KEY, 'MUL');
    const [placed] = await rows(
      "SELECT COLUMN_TYPE, DATETIME_PRECISION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'mys' AND COLUMN_NAME = 'placed_at'",
    );
    assert.deepEqual({ ...placed }, { COLUMN_TYPE: 'datetime', DATETIME_PRECISION: 0 });
  });

  test('TABLES and SCHEMATA have the fields tools select', async () => {
    const t = await rows(
      `SELECT TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_ROWS, TABLE_COLLATION, TABLE_COMMENT, CREATE_TIME
       FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'mys'`,
    );
    assert.deepEqual(
      t.map((x) => ({ ...x })),
      [
        {
          TABLE_NAME: 'orders',
          TABLE_TYPE: 'BASE TABLE',
          ENGINE: 'Tributary',
          TABLE_ROWS: 4,
          TABLE_COLLATION: 'utf8mb4_general_ci',
          TABLE_COMMENT: '',
          CREATE_TIME: null,
        },
      ],
    );
    const s = await rows(
      "SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN ('pgs', 'mys') ORDER BY 1",
    );
    assert.deepEqual(
      s.map((x) => Object.values(x)),
      [
        ['mys', 'utf8mb4', 'utf8mb4_general_ci'],
        ['pgs', 'utf8mb4', 'utf8mb4_general_ci'],
      ],
    );
  });

  test('STATISTICS and KEY_COLUMN_USAGE: primary key, index and foreign key', async () => {
    const st = await rows(
      `SELECT INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, INDEX_TYPE FROM information_schema.STATISTICS
       WHERE TABLE_SCHEMA = 'pgs' AND TABLE_NAME = 'visits' ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
    );
    assert.deepEqual(
      st.map((x) => Object.values(x)),
      [
        ['PRIMARY', 0, 1, 'id', 'BTREE'],
        ['day', 1, 1, 'day', 'BTREE'],
      ],
    );
    // DBeaver's unique keys, then its foreign keys joined with REFERENTIAL_CONSTRAINTS.
    const keys = await rows(
      `SELECT kc.CONSTRAINT_NAME, kc.COLUMN_NAME, kc.ORDINAL_POSITION FROM INFORMATION_SCHEMA.KEY_COLUMN_USAGE kc
       WHERE kc.TABLE_SCHEMA = 'pgs' AND kc.REFERENCED_TABLE_NAME IS NULL AND kc.TABLE_NAME = 'visits'
       ORDER BY kc.CONSTRAINT_NAME, kc.ORDINAL_POSITION`,
    );
    assert.deepEqual(
      keys.map((x) => Object.values(x)),
      [['PRIMARY', 'id', 1]],
    );
    const fks = await rows(
      `SELECT kc.CONSTRAINT_NAME, kc.COLUMN_NAME, kc.REFERENCED_TABLE_SCHEMA, kc.REFERENCED_TABLE_NAME,
         kc.REFERENCED_COLUMN_NAME, rc.UPDATE_RULE, rc.DELETE_RULE
       FROM INFORMATION_SCHEMA.KEY_COLUMN_USAGE kc JOIN INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS rc
         ON rc.CONSTRAINT_SCHEMA = kc.TABLE_SCHEMA AND rc.CONSTRAINT_NAME = kc.CONSTRAINT_NAME
       WHERE kc.TABLE_SCHEMA = 'pgs' AND kc.TABLE_NAME = 'visits' AND kc.REFERENCED_TABLE_NAME IS NOT NULL`,
    );
    assert.deepEqual(
      fks.map((x) => Object.values(x)),
      [['visits_customer_id_fkey', 'customer_id', 'pgs', 'customers', 'id', 'NO ACTION', 'NO ACTION']],
    );
    // Metabase's foreign keys: KEY_COLUMN_USAGE joined with itself.
    const mb = await rows(
      `SELECT fk.TABLE_NAME AS fk_table, fk.COLUMN_NAME AS fk_column, pk.TABLE_NAME AS pk_table, pk.COLUMN_NAME AS pk_column
       FROM information_schema.key_column_usage fk JOIN information_schema.key_column_usage pk
         ON fk.referenced_table_schema = pk.table_schema AND fk.referenced_table_name = pk.table_name
        AND fk.referenced_column_name = pk.column_name
       WHERE pk.constraint_name = 'PRIMARY' AND fk.table_schema = 'pgs'`,
    );
    assert.deepEqual(
      mb.map((x) => Object.values(x)),
      [['visits', 'customer_id', 'customers', 'id']],
    );
  });

  test('SHOW TABLE STATUS, SHOW GRANTS, SHOW TABLES FROM information_schema', async () => {
    const st = await rows("SHOW TABLE STATUS FROM mys LIKE 'ord%'");
    assert.equal(st.length, 1);
    assert.equal(st[0].Name, 'orders');
    assert.equal(st[0].Engine, 'Tributary');
    assert.equal(st[0].Rows, 4);
    const where = await rows("SHOW TABLE STATUS WHERE Name = 'visits'");
    assert.deepEqual(
      where.map((x) => x.Name),
      ['visits'],
    );
    const grants = await rows('SHOW GRANTS FOR CURRENT_USER()');
    assert.deepEqual(Object.values(grants[0]), ['GRANT ALL PRIVILEGES ON *.* TO `anyone`@`%`']);
    const info = await rows('SHOW TABLES FROM information_schema');
    for (const t of ['COLUMNS', 'KEY_COLUMN_USAGE', 'STATISTICS', 'TABLES', 'SCHEMATA'])
      assert.ok(
        info.some((x) => x.Tables_in_information_schema === t),
        t,
      );
  });
});
