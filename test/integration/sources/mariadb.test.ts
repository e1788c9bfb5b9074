import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import pino from 'pino';
import { parseEngineParams } from '../../../src/sources/params.js';
import { getEngine } from '../../../src/sources/registry.js';
import { collect, type Source } from '../../../src/sources/types.js';
import { createMariaDatabase, MARIADB, mariaExec, uniqueName } from '../../helpers/services.js';
import { closedPort, expectSqlError, waitFor } from './helpers.js';

const logger = pino({ level: 'silent' });
const ctx = { storageDir: '/tmp', logger };

function makeSource(name: string, params: Record<string, unknown>, engine = 'mariadb'): Source {
  const spec = getEngine(engine);
  return spec.create(name, parseEngineParams(spec, params), ctx);
}

async function adminRows<T>(sql: string, values: unknown[] = []): Promise<T[]> {
  const c = await mysql.createConnection({ ...MARIADB, database: undefined });
  try {
    return (await c.query(sql, values))[0] as T[];
  } finally {
    await c.end();
  }
}

describe('mariadb source', () => {
  let database: string;
  let drop: () => Promise<void>;
  let src: Source;

  before(async () => {
    ({ database, drop } = await createMariaDatabase('src_my'));
    await mariaExec(
      database,
      `CREATE TABLE big (id INT PRIMARY KEY, s VARCHAR(40));
       INSERT INTO big SELECT seq, MD5(seq) FROM seq_1_to_50000;
       CREATE TABLE types (
         id INT PRIMARY KEY, ti TINYINT(1), si SMALLINT, bi BIGINT, ubi BIGINT UNSIGNED, n DECIMAL(40,3),
         f FLOAT, d DOUBLE, dt DATE, ts DATETIME(6), tsz TIMESTAMP NULL, t TIME, j JSON, bl BLOB, vb VARBINARY(10),
         tx TEXT, vc VARCHAR(10) UNIQUE DEFAULT 'x', ch CHAR(3), e ENUM('a','b'), bt BIT(8), y YEAR, nul INT);
       SET time_zone = '+02:00';
       INSERT INTO types VALUES (1, 1, 7, 9007199254740993, 18446744073709551615, 12345678901234567890.123,
         0.1, 2.5, '2024-02-29', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05', '13:14:15', '{"a": [1, 2]}',
         x'00ff10', x'0102', 'héllo', 'v', 'ab', 'b', b'101', 2024, NULL);
       CREATE VIEW v AS SELECT id FROM types;`,
    );
    src = makeSource('my1', { host: '127.0.0.1', port: '3306', user: 'root', password: '', database });
  });

  after(async () => {
    await src?.close();
    await drop?.();
  });

  test('declares its dialect, capabilities and default schema', () => {
    assert.equal(src.dialect, 'mysql');
    assert.equal(src.engine, 'mariadb');
    assert.equal(src.defaultSchema, database);
    assert.deepEqual(src.capabilities, {
      fullStatements: true,
      projection: true,
      filters: 'exact',
      limit: true,
    });
    const m = makeSource('m', { host: '127.0.0.1', user: 'root', database }, 'mysql');
    assert.equal(m.engine, 'mysql');
    assert.equal(m.dialect, 'mysql');
    return m.close();
  });

  test('test() connects', async () => {
    await src.test();
  });

  test('lists tables and views', async () => {
    assert.deepEqual(
      (await src.listTables()).map((t) => [t.name, t.schema, t.type]),
      [
        ['big', database, 'BASE TABLE'],
        ['types', database, 'BASE TABLE'],
        ['v', database, 'VIEW'],
      ],
    );
  });

  test('lists columns with MySQL types, keys, nullability and defaults', async () => {
    const cols = await src.listColumns('types');
    assert.deepEqual(
      cols.map((c) => c.type),
      [
        'INT',
        'TINYINT',
        'SMALLINT',
        'BIGINT',
        'BIGINT',
        'DECIMAL',
        'FLOAT',
        'DOUBLE',
        'DATE',
        'DATETIME',
        'TIMESTAMP',
      ].concat([
        'TIME',
        'JSON',
        'BLOB',
        'BINARY',
        'TEXT',
        'VARCHAR',
        'CHAR',
        'ENUM',
        'BIGINT',
        'YEAR',
        'INT',
      ]),
    );
    const by = Object.fromEntries(cols.map((c) => [c.name, c]));
    assert.equal(by.id.key, 'PRI');
    assert.equal(by.id.nullable, false);
    assert.equal(by.vc.key, 'UNI');
    assert.equal(by.vc.default, 'x');
    assert.equal(by.nul.default, null);
    assert.equal(by.ti.nativeType, 'tinyint(1)');
    assert.equal(by.n.nativeType, 'decimal(40,3)');
    await expectSqlError(src.listColumns('nosuch'), 1146, "Table 'my1.nosuch' doesn't exist");
  });

  test('every value type comes out canonical', async () => {
    const s = await src.query('SELECT * FROM types');
    // The same types listColumns reports, JSON included (MariaDB's is LONGTEXT with a check).
    assert.deepEqual(
      s.columns.map((c) => c.type),
      (await src.listColumns('types')).map((c) => c.type),
    );
    const { rows } = await collect(s);
    assert.deepEqual(rows, [
      [
        1,
        1,
        7,
        9007199254740993n,
        18446744073709551615n,
        '12345678901234567890.123',
        0.1,
        2.5,
        '2024-02-29',
        '2024-01-02 03:04:05.123456',
        '2024-01-02 01:04:05',
        '13:14:15',
        '{"a": [1, 2]}',
        Buffer.from([0, 255, 16]),
        Buffer.from([1, 2]),
        'héllo',
        'v',
        'ab',
        'b',
        5,
        2024,
        null,
      ],
    ]);
  });

  test('a JSON column stays JSON through aliases; expressions over it are text', async () => {
    const s = await src.query('SELECT t.j AS jj, CONCAT(j) AS c, tx FROM types t');
    assert.deepEqual(
      s.columns.map((c) => c.type),
      ['JSON', 'TEXT', 'TEXT'],
    );
    assert.deepEqual((await collect(s)).rows, [['{"a": [1, 2]}', '{"a": [1, 2]}', 'héllo']]);
  });

  test('streams a 50k-row table in bounded batches', async () => {
    const s = await src.query('SELECT id, s FROM big ORDER BY id', { batchRows: 2000 });
    // Each column says where it comes from, with MariaDB's own flags (NOT_NULL | PRI_KEY on id).
    const at = (name: string, flags: number) => ({
      schema: 'my1',
      table: 'big',
      orgTable: 'big',
      orgName: name,
      flags,
    });
    assert.deepEqual(
      s.columns.map((c) => ({ ...c, origin: c.origin && at(c.origin.orgName, c.origin.flags & 3) })),
      [
        { name: 'id', type: 'INT', origin: at('id', 3) },
        { name: 's', type: 'VARCHAR', origin: at('s', 0) },
      ],
    );
    let count = 0;
    let batches = 0;
    let last = 0;
    for await (const b of s.batches) {
      assert.ok(b.length <= 2000);
      batches++;
      count += b.length;
      last = b[b.length - 1][0] as number;
    }
    assert.equal(count, 50000);
    assert.equal(last, 50000);
    assert.ok(batches >= 25);
  });

  test('statements without rows report affected rows', async () => {
    assert.deepEqual(await src.execute('CREATE TABLE w (a INT)'), { affectedRows: 0 });
    assert.deepEqual(await src.execute('INSERT INTO w VALUES (1), (2), (3)'), { affectedRows: 3 });
    assert.deepEqual(await src.execute('UPDATE w SET a = a + 1 WHERE a >= 2'), { affectedRows: 2 });
    assert.deepEqual(await src.execute('DELETE FROM w'), { affectedRows: 3 });
    // A statement without rows through query() streams nothing.
    const s = await src.query('DROP TABLE w');
    assert.deepEqual(await collect(s), { columns: [], rows: [] });
  });

  test('errors carry MySQL codes and name the source', async () => {
    await expectSqlError(src.query('SELECT * FROM nosuch'), 1146, "Table 'my1.nosuch' doesn't exist");
    await expectSqlError(
      src.query('SELECT nosuch FROM big'),
      1054,
      "Unknown column 'nosuch' in source 'my1'",
    );
    await expectSqlError(
      src.query('SELEC 1'),
      1064,
      /^Source 'my1' syntax error: You have an error in your SQL syntax/,
    );
    await src.execute('CREATE TABLE dz (a INT)');
    await expectSqlError(
      src.execute('INSERT INTO dz VALUES (1 / 0)'),
      1365,
      "Source 'my1' error: Division by 0",
    );
  });

  test('wrong password is 1045 without the password; unknown database is 1049', async () => {
    const user = uniqueName('tu');
    await adminRows(`CREATE USER '${user}'@'%' IDENTIFIED BY 'right-pass-1'`);
    try {
      await adminRows(`GRANT SELECT ON \`${database}\`.* TO '${user}'@'%'`);
      const bad = makeSource('my2', { host: '127.0.0.1', user, password: 'wrong-pass-999', database });
      const e = await expectSqlError(
        bad.test(),
        1045,
        new RegExp(`^Access denied to source 'my2' for user '${user}': `),
      );
      assert.doesNotMatch(e.message, /wrong-pass|right-pass/);
      await bad.close();
      const good = makeSource('my3', { host: '127.0.0.1', user, password: 'right-pass-1', database });
      await good.test();
      assert.ok((await good.listTables()).some((t) => t.name === 'big'));
      await good.close();
    } finally {
      await adminRows(`DROP USER '${user}'@'%'`);
    }
    const nodb = makeSource('my4', { host: '127.0.0.1', user: 'root', database: 'nosuch_db_xyz' });
    await expectSqlError(nodb.test(), 1049, "Unknown database 'nosuch_db_xyz' in source 'my4'");
    await nodb.close();
  });

  test('a closed port is 2003', async () => {
    const port = await closedPort();
    const bad = makeSource('my5', {
      host: '127.0.0.1',
      port,
      user: 'root',
      password: 'sekrit-pass-123',
      database,
    });
    const e = await expectSqlError(
      bad.test(),
      2003,
      new RegExp(`^Can't connect to source 'my5' \\(127\\.0\\.0\\.1:${port}\\): .*ECONNREFUSED`),
    );
    assert.doesNotMatch(e.message, /sekrit/);
    await bad.close();
  });

  test('ssl against a server without TLS is 2003', async () => {
    const tls = makeSource('my6', { host: '127.0.0.1', user: 'root', database, ssl: true });
    await expectSqlError(tls.test(), 2003, /^Can't connect to source 'my6' \(127\.0\.0\.1:3306\): /);
    await tls.close();
  });

  const sleeping = (marker: string) => async () =>
    (
      await adminRows(
        `SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE '%${marker}%' AND STATE = 'User sleep'`,
      )
    ).length > 0;
  const running = async (marker: string) =>
    (
      await adminRows(
        `SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE '%${marker}%' AND ID <> CONNECTION_ID()`,
      )
    ).length;

  test('cancel() kills a running query and the pool still works', { timeout: 30000 }, async () => {
    // Rows first (so the columns are known), then a long sleep on the server.
    const s = await src.query(
      "SELECT seq, IF(seq = 20000, SLEEP(60), 0) AS z, REPEAT('x', 100) AS pad /* cancel_me */ FROM seq_1_to_30000",
    );
    assert.deepEqual(
      s.columns.map((c) => c.name),
      ['seq', 'z', 'pad'],
    );
    const reading = collect(s);
    await waitFor(sleeping('cancel_me'));
    await s.cancel();
    const { rows } = await reading;
    assert.ok(rows.length < 20000);
    await waitFor(async () => (await running('cancel_me')) === 0);
    assert.deepEqual((await collect(await src.query('SELECT 1 AS one'))).rows, [[1]]);
  });

  test('an abort signal stops a query still waiting for its first rows', { timeout: 30000 }, async () => {
    const ac = new AbortController();
    const starting = src.query('SELECT SLEEP(60) /* abort_me */', { signal: ac.signal });
    await waitFor(sleeping('abort_me'));
    ac.abort();
    await expectSqlError(starting, 1317, "Query execution was interrupted on source 'my1'");
    await waitFor(async () => (await running('abort_me')) === 0);
  });

  test('breaking out of the batches early gives the connection back', { timeout: 30000 }, async () => {
    for (let i = 0; i < 15; i++) {
      const s = await src.query('SELECT id FROM big', { batchRows: 100 });
      for await (const b of s.batches) {
        assert.equal(b.length, 100);
        break;
      }
    }
    assert.deepEqual((await collect(await src.query('SELECT COUNT(*) AS n FROM big'))).rows, [[50000]]);
  });

  test('more concurrent queries than connections all complete', async () => {
    const results = await Promise.all(
      Array.from(
        { length: 25 },
        async (_, i) => (await collect(await src.query(`SELECT ${i} AS i`))).rows[0][0],
      ),
    );
    assert.deepEqual(
      results,
      Array.from({ length: 25 }, (_, i) => i),
    );
  });

  test('recovers after its connections are killed', async () => {
    await Promise.all([1, 2, 3].map(async () => collect(await src.query('SELECT 1'))));
    const ids = await adminRows<{ ID: number }>(
      'SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()',
      [database],
    );
    assert.ok(ids.length >= 1);
    for (const { ID } of ids) await adminRows(`KILL ${Number(ID)}`).catch(() => {});
    assert.deepEqual((await collect(await src.query('SELECT 2 AS two'))).rows, [[2]]);
    await src.test();
    assert.deepEqual(await src.execute('DO 1'), { affectedRows: 0 });
  });
});
