import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { parseEngineParams } from '../../../src/sources/params.js';
import { getEngine } from '../../../src/sources/registry.js';
import { Database } from '../../../src/sources/sqlite/driver.js';
import { collect, type Source } from '../../../src/sources/types.js';
import { expectSqlError } from './helpers.js';

const ctx = { storageDir: '/tmp', logger: pino({ level: 'silent' }) };

function makeSource(name: string, params: Record<string, unknown>): Source {
  const spec = getEngine('sqlite');
  return spec.create(name, parseEngineParams(spec, params), ctx);
}

describe('sqlite source', () => {
  let dir: string;
  let path: string;
  let src: Source;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'trib-sqlite-'));
    path = join(dir, 'data.db');
    const db = new Database(path);
    db.exec(`
      CREATE TABLE big (id INTEGER PRIMARY KEY, s TEXT);
      WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 50000)
        INSERT INTO big SELECT n, 'row ' || n FROM g;
      CREATE TABLE types (
        id INTEGER PRIMARY KEY, i INT, bi BIGINT, n DECIMAL(10,2), f REAL, b BOOLEAN, d DATE, ts DATETIME,
        j JSON, bl BLOB, tx TEXT DEFAULT 'x', vc VARCHAR(10) UNIQUE, untyped, nul INT);
      CREATE INDEX types_i ON types (i, bi);
      INSERT INTO types VALUES (1, 7, 9007199254740993, 123.45, 2.5, 1, '2024-02-29', '2024-01-02T03:04:05.123Z',
        '{"a": [1, 2]}', x'00ff10', 'héllo', 'v', 'free', NULL);
      CREATE VIEW v AS SELECT id FROM types;
      CREATE TABLE other (id INTEGER PRIMARY KEY, id2 INT);
      INSERT INTO other VALUES (1, 10);
    `);
    db.close();
    src = makeSource('lite', { path });
  });

  after(async () => {
    await src?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('declares its dialect, capabilities and default schema', () => {
    assert.equal(src.dialect, 'sqlite');
    assert.equal(src.defaultSchema, 'main');
    assert.deepEqual(src.capabilities, {
      fullStatements: true,
      projection: true,
      filters: 'exact',
      limit: true,
    });
  });

  test('test() opens the file; a missing file fails naming the path and is not created', async () => {
    await src.test();
    const missing = join(dir, 'missing.db');
    const bad = makeSource('lite2', { path: missing });
    await expectSqlError(
      bad.test(),
      2003,
      `Can't connect to source 'lite2' (${missing}): the file does not exist`,
    );
    assert.equal(existsSync(missing), false);
    await bad.close();
  });

  test('a file that is not a database fails test()', async () => {
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'this is not sqlite, just text that is long enough to have a header '.repeat(20));
    const bad = makeSource('lite3', { path: junk });
    await expectSqlError(bad.test(), 2003, /^Can't connect to source 'lite3' .*not a database/);
    await bad.close();
  });

  test('lists tables and views', async () => {
    assert.deepEqual(
      (await src.listTables()).map((t) => [t.name, t.schema, t.type]),
      [
        ['big', 'main', 'BASE TABLE'],
        ['other', 'main', 'BASE TABLE'],
        ['types', 'main', 'BASE TABLE'],
        ['v', 'main', 'VIEW'],
      ],
    );
  });

  test('lists columns with types mapped from their declared types', async () => {
    const cols = await src.listColumns('types');
    assert.deepEqual(
      cols.map((c) => [c.name, c.type, c.nativeType, c.key]),
      [
        ['id', 'BIGINT', 'INTEGER', 'PRI'],
        ['i', 'INT', 'INT', 'MUL'],
        ['bi', 'BIGINT', 'BIGINT', ''],
        ['n', 'DECIMAL', 'DECIMAL(10,2)', ''],
        ['f', 'DOUBLE', 'REAL', ''],
        ['b', 'BOOLEAN', 'BOOLEAN', ''],
        ['d', 'DATE', 'DATE', ''],
        ['ts', 'DATETIME', 'DATETIME', ''],
        ['j', 'JSON', 'JSON', ''],
        ['bl', 'BLOB', 'BLOB', ''],
        ['tx', 'TEXT', 'TEXT', ''],
        ['vc', 'VARCHAR', 'VARCHAR(10)', 'UNI'],
        ['untyped', 'BLOB', '', ''],
        ['nul', 'INT', 'INT', ''],
      ],
    );
    assert.equal(cols[10].default, "'x'");
    assert.equal(cols[0].nullable, false);
    assert.equal(cols[1].nullable, true);
    await expectSqlError(src.listColumns('nosuch'), 1146, "Table 'lite.nosuch' doesn't exist");
  });

  test('values come out canonical, typed by the column they come from', async () => {
    const s = await src.query('SELECT * FROM types');
    assert.deepEqual(
      s.columns.map((c) => c.type),
      [
        'BIGINT',
        'INT',
        'BIGINT',
        'DECIMAL',
        'DOUBLE',
        'BOOLEAN',
        'DATE',
        'DATETIME',
        'JSON',
        'BLOB',
        'TEXT',
      ].concat(['VARCHAR', 'TEXT', 'INT']),
    );
    const { rows } = await collect(s);
    assert.deepEqual(rows, [
      [
        1,
        7,
        9007199254740993n,
        '123.45',
        2.5,
        true,
        '2024-02-29',
        '2024-01-02 03:04:05.123',
        '{"a": [1, 2]}',
        new Uint8Array([0, 255, 16]),
        'héllo',
        'v',
        'free',
        null,
      ],
    ]);
  });

  test('keeps columns that share a name and types expressions by their values', async () => {
    const s = await src.query(
      'SELECT t.id, o.id, o.id2 * 2 AS x, 1.5 AS y, ts AS when_ FROM types t JOIN other o ON o.id = t.id',
    );
    assert.deepEqual(
      s.columns.map((c) => [c.name, c.type]),
      [
        ['id', 'BIGINT'],
        ['id', 'BIGINT'],
        ['x', 'BIGINT'],
        ['y', 'DOUBLE'],
        ['when_', 'TEXT'],
      ],
    );
    assert.deepEqual((await collect(s)).rows, [[1, 1, 20, 1.5, '2024-01-02T03:04:05.123Z']]);
  });

  test('streams a 50k-row table in bounded batches', async () => {
    const s = await src.query('SELECT id, s FROM big ORDER BY id', { batchRows: 2000 });
    let count = 0;
    let batches = 0;
    for await (const b of s.batches) {
      assert.ok(b.length <= 2000);
      batches++;
      count += b.length;
    }
    assert.equal(count, 50000);
    assert.ok(batches >= 25);
  });

  test('breaking out early finalizes the statement so writes proceed', async () => {
    const s = await src.query('SELECT id FROM big', { batchRows: 100 });
    for await (const b of s.batches) {
      assert.equal(b.length, 100);
      break;
    }
    assert.deepEqual(await src.execute('CREATE TABLE w (a INT)'), { affectedRows: 0 });
    assert.deepEqual(await src.execute('DROP TABLE w'), { affectedRows: 0 });
  });

  test('cancel() ends the batches', async () => {
    const s = await src.query('SELECT id FROM big', { batchRows: 100 });
    const it = s.batches[Symbol.asyncIterator]();
    assert.equal((await it.next()).value?.length, 100);
    await s.cancel();
    assert.equal((await it.next()).done, true);
  });

  test('statements without rows report affected rows', async () => {
    assert.deepEqual(await src.execute('CREATE TABLE w (a INT)'), { affectedRows: 0 });
    assert.deepEqual(await src.execute('INSERT INTO w VALUES (1), (2), (3)'), { affectedRows: 3 });
    assert.deepEqual(await src.execute('UPDATE w SET a = a + 1 WHERE a >= 2'), { affectedRows: 2 });
    assert.deepEqual(await src.execute('CREATE INDEX w_a ON w (a)'), { affectedRows: 0 });
    assert.deepEqual(await src.execute('DELETE FROM w'), { affectedRows: 3 });
    await src.execute('DROP TABLE w');
  });

  test('errors carry MySQL codes and name the source', async () => {
    await expectSqlError(src.query('SELECT * FROM nosuch'), 1146, "Table 'lite.nosuch' doesn't exist");
    await expectSqlError(
      src.query('SELECT nosuch FROM big'),
      1054,
      "Unknown column 'nosuch' in source 'lite'",
    );
    await expectSqlError(
      src.query('SELEC 1'),
      1064,
      `Source 'lite' syntax error: near "SELEC": syntax error`,
    );
    await expectSqlError(
      src.execute('INSERT INTO big VALUES (1, NULL)'),
      1062,
      "Source 'lite' error: UNIQUE constraint failed: big.id",
    );
  });
});
