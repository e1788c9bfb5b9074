/**
 * What BI tools ask beyond the connect chatter, through the listener with mysql2: Metabase's
 * time-zone probe (TIMEDIFF, TIME_FORMAT, CONVERT_TZ) answered by each kind of default
 * database, column types as MySQL 8 reports them (integer arithmetic is BIGINT, TIMEDIFF is
 * TIME), and DESCRIBE / SHOW FULL COLUMNS in MySQL's type names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { startWireFixture, type WireFixture } from './helpers.js';

let fx: WireFixture;

const connect = (o: mysql.ConnectionOptions = {}) =>
  mysql.createConnection({ host: '127.0.0.1', port: fx.port, user: 'anyone', dateStrings: true, ...o });

before(async () => {
  fx = await startWireFixture();
});

after(async () => {
  await fx?.stop();
});

const METABASE_TZ =
  "SELECT @@GLOBAL.time_zone AS global_tz, @@system_time_zone AS system_tz, time_format(timediff(now(), convert_tz(now(), @@GLOBAL.time_zone, '+00:00')), '%H:%i') AS 'offset'";

const T = { LONG: 0x03, LONGLONG: 0x08, TIME: 0x0b, NEWDECIMAL: 0xf6, BLOB: 0xfc, VAR_STRING: 0xfd };

describe('BI probes through the MySQL listener', () => {
  for (const database of [undefined, 'pgs', 'mys']) {
    test(`Metabase's time-zone probe answers with ${database ?? 'no'} default database`, async () => {
      const conn = await connect(database ? { database } : {});
      const [rows] = await conn.query({ sql: METABASE_TZ, rowsAsArray: true });
      assert.deepEqual(rows, [['+00:00', 'UTC', '00:00']]);
      await conn.end();
    });
  }

  test('CONVERT_TZ knows zone names and offsets, and is NULL for an unknown zone', async () => {
    const sql = (from: string) =>
      `SELECT CONVERT_TZ('2024-07-01 00:00:00', 'UTC', 'Europe/Paris'), CONVERT_TZ('2024-01-15 12:00:00', 'Europe/Paris', 'America/New_York'), CONVERT_TZ('2024-01-01 00:00:00', 'Nowhere', '+00:00'), CONVERT_TZ('2024-01-01 00:00:00', '+00:00', '-05:30')${from}`;
    const want = [['2024-07-01 02:00:00', '2024-01-15 06:00:00', null, '2023-12-31 18:30:00']];
    const conn = await connect();
    // Without a table (the local DuckDB) and pushed down to PostgreSQL.
    for (const from of ['', ' FROM pgs.customers WHERE id = 1']) {
      const [rows] = await conn.query({ sql: sql(from), rowsAsArray: true });
      assert.deepEqual(rows, want, from || 'no table');
    }
    await conn.end();
  });

  test('column types: integer arithmetic is BIGINT, COUNT BIGINT, TIMEDIFF TIME', async () => {
    const conn = await connect();
    for (const from of ['', ' FROM pgs.customers WHERE id = 1', ' FROM mys.orders WHERE id = 10']) {
      const [rows, fields] = await conn.query({
        sql: `SELECT 1+1, 2*3, 7 DIV 2, COUNT(*), TIMEDIFF('10:00:00', '12:30:15')${from}`,
        rowsAsArray: true,
      });
      assert.deepEqual(rows, [[2, 6, 3, 1, '-02:30:15']], from);
      assert.deepEqual(
        fields.map((f) => f.columnType),
        [T.LONGLONG, T.LONGLONG, T.LONGLONG, T.LONGLONG, T.TIME],
        from || 'no table',
      );
    }
    const [, fields] = await conn.query('SELECT id + 1, -id, amount + 1 FROM mys.orders WHERE id = 10');
    assert.deepEqual(
      fields.map((f) => f.columnType),
      [T.LONGLONG, T.LONGLONG, T.NEWDECIMAL],
    );
    await conn.end();
  });

  test('an integer literal is BIGINT, TIME_FORMAT text even when NULL, as MySQL 8 types them', async () => {
    const conn = await connect();
    // The constant fast path, the local DuckDB, and pushed down to each source.
    for (const from of [
      '',
      ' FROM (SELECT 1 AS one) x',
      ' FROM pgs.customers WHERE id = 1',
      ' FROM mys.orders WHERE id = 10',
    ]) {
      const [rows, fields] = await conn.query({
        sql: `SELECT 1, -2 AS two, TIME_FORMAT(NULL, '%H'), TIME_FORMAT('100:05:06', '%H')${from}`,
        rowsAsArray: true,
      });
      assert.deepEqual(rows, [[1, -2, null, '100']], from || 'no table');
      const types = fields.map((f) => f.columnType);
      assert.deepEqual(types.slice(0, 2), [T.LONGLONG, T.LONGLONG], from || 'no table');
      // Text either way: VARCHAR, or TEXT where PostgreSQL computes it (its `text`), not a number.
      for (const t of types.slice(2)) assert.ok(t === T.VAR_STRING || t === T.BLOB, `${from}: type ${t}`);
    }
    await conn.end();
  });

  test("DESCRIBE and SHOW FULL COLUMNS name MySQL's types, not the source's", async () => {
    const conn = await connect();
    const [d] = await conn.query({ sql: 'DESCRIBE pgs.customers', rowsAsArray: true });
    assert.deepEqual(
      (d as unknown[][]).map((r) => r.slice(0, 4)),
      [
        ['id', 'int', 'NO', 'PRI'],
        ['name', 'varchar(40)', 'NO', ''],
        ['joined', 'date', 'YES', ''],
        ['balance', 'decimal(10,2)', 'YES', ''],
      ],
    );
    const [full, fields] = await conn.query({
      sql: 'SHOW FULL COLUMNS FROM orders FROM mys',
      rowsAsArray: true,
    });
    assert.deepEqual(
      fields.map((f) => f.name),
      ['Field', 'Type', 'Collation', 'Null', 'Key', 'Default', 'Extra', 'Privileges', 'Comment'],
    );
    assert.deepEqual(
      (full as unknown[][]).map((r) => [r[0], r[1], r[2]]),
      [
        ['id', 'int', null],
        ['customer_id', 'int', null],
        ['amount', 'decimal(12,2)', null],
        ['placed_at', 'datetime', null],
        ['note', 'text', 'utf8mb4_general_ci'],
      ],
    );
    await conn.end();
  });
});
