import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import pino from 'pino';
import { parseEngineParams } from '../../../src/sources/params.js';
import { getEngine } from '../../../src/sources/registry.js';
import { collect, type Source } from '../../../src/sources/types.js';
import { expectSqlError } from './helpers.js';

const ctx = { storageDir: '/tmp', logger: pino({ level: 'silent' }) };

function makeSource(name: string, params: Record<string, unknown>): Source {
  const spec = getEngine('duckdb');
  return spec.create(name, parseEngineParams(spec, params), ctx);
}

describe('duckdb source', () => {
  let dir: string;
  let path: string;
  let src: Source;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trib-duckdb-'));
    path = join(dir, 'data.duckdb');
    const inst = await DuckDBInstance.create(path);
    const c = await inst.connect();
    await c.run(`
      CREATE TABLE big AS SELECT range AS id, 'row ' || range AS s FROM range(1, 50001);
      CREATE TABLE types (
        id INTEGER PRIMARY KEY, bi BIGINT, hi HUGEINT, n DECIMAL(38,3), f FLOAT, d DOUBLE, b BOOLEAN, dt DATE,
        ts TIMESTAMP, tz TIMESTAMPTZ, t TIME, j JSON, bl BLOB, tx VARCHAR UNIQUE, l INTEGER[], st STRUCT(x DECIMAL(4,2), y VARCHAR),
        m MAP(VARCHAR, BIGINT), u UUID, nul INTEGER DEFAULT 5);
      INSERT INTO types VALUES (1, 9007199254740993, 170141183460469231731687303715884105727, 12345678901234567890.123,
        0.1, 2.5, true, '2024-02-29', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05+02', '13:14:15', '{"a": [1, 2]}',
        '\\x00\\xFF\\x10'::BLOB, 'héllo', [1, NULL, 3], {'x': 1.5, 'y': 'q'}, MAP {'k': 9007199254740993},
        '00000000-0000-0000-0000-000000000001', NULL);
      CREATE VIEW v AS SELECT id FROM types;
    `);
    c.closeSync();
    inst.closeSync();
    src = makeSource('duck', { path });
  });

  after(async () => {
    await src?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('declares its dialect, capabilities and default schema', () => {
    assert.equal(src.dialect, 'duckdb');
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
    const missing = join(dir, 'missing.duckdb');
    for (const read_only of ['true', 'false']) {
      const bad = makeSource('duck2', { path: missing, read_only });
      await expectSqlError(
        bad.test(),
        2003,
        `Can't connect to source 'duck2' (${missing}): the file does not exist`,
      );
      await bad.close();
    }
    assert.equal(existsSync(missing), false);
  });

  test('lists tables and views', async () => {
    assert.deepEqual(
      (await src.listTables()).map((t) => [t.name, t.schema, t.type]),
      [
        ['big', 'main', 'BASE TABLE'],
        ['types', 'main', 'BASE TABLE'],
        ['v', 'main', 'VIEW'],
      ],
    );
  });

  test('lists columns with MySQL types, keys, nullability and defaults', async () => {
    const cols = await src.listColumns('types');
    assert.deepEqual(
      cols.map((c) => c.type),
      [
        'INT',
        'BIGINT',
        'BIGINT',
        'DECIMAL',
        'FLOAT',
        'DOUBLE',
        'BOOLEAN',
        'DATE',
        'DATETIME',
        'TIMESTAMP',
        'TIME',
      ].concat(['JSON', 'BLOB', 'VARCHAR', 'JSON', 'JSON', 'JSON', 'VARCHAR', 'INT']),
    );
    const by = Object.fromEntries(cols.map((c) => [c.name, c]));
    assert.equal(by.id.key, 'PRI');
    assert.equal(by.id.nullable, false);
    assert.equal(by.tx.key, 'UNI');
    assert.equal(by.n.nativeType, 'DECIMAL(38,3)');
    assert.equal(by.nul.default, '5');
    await expectSqlError(src.listColumns('nosuch'), 1146, "Table 'duck.nosuch' doesn't exist");
  });

  test('every value type comes out canonical', async () => {
    const s = await src.query('SELECT * FROM types');
    assert.deepEqual(
      s.columns.map((c) => c.type),
      (await src.listColumns('types')).map((c) => c.type),
    );
    const { rows } = await collect(s);
    assert.deepEqual(rows, [
      [
        1,
        9007199254740993n,
        170141183460469231731687303715884105727n,
        '12345678901234567890.123',
        0.1,
        2.5,
        true,
        '2024-02-29',
        '2024-01-02 03:04:05.123456',
        '2024-01-02 01:04:05',
        '13:14:15',
        '{"a": [1, 2]}',
        Buffer.from([0, 255, 16]),
        'héllo',
        '[1,null,3]',
        '{"x":1.50,"y":"q"}',
        '{"k":9007199254740993}',
        '00000000-0000-0000-0000-000000000001',
        null,
      ],
    ]);
  });

  test('streams a 50k-row table in batches', async () => {
    const s = await src.query('SELECT id, s FROM big ORDER BY id');
    assert.deepEqual(s.columns, [
      { name: 'id', type: 'BIGINT' },
      { name: 's', type: 'VARCHAR' },
    ]);
    let count = 0;
    let batches = 0;
    let last = 0;
    for await (const b of s.batches) {
      batches++;
      count += b.length;
      last = b[b.length - 1][0] as number;
    }
    assert.equal(count, 50000);
    assert.equal(last, 50000);
    assert.ok(batches > 10);
  });

  test('cancel() interrupts a running query', { timeout: 30000 }, async () => {
    const s = await src.query('SELECT count(*) AS n FROM range(100000000000) t(x) WHERE x % 7 = 3');
    assert.deepEqual(s.columns, [{ name: 'n', type: 'BIGINT' }]);
    const reading = collect(s);
    // Give the query a moment to start; cancel() must work whether or not it has.
    await new Promise((r) => setImmediate(r));
    await s.cancel();
    assert.deepEqual((await reading).rows, []);
    assert.deepEqual((await collect(await src.query('SELECT 1 AS one'))).rows, [[1]]);
  });

  test('an abort signal ends the batches with 1317', { timeout: 30000 }, async () => {
    const ac = new AbortController();
    const s = await src.query('SELECT count(*) FROM range(100000000000) t(x) WHERE x % 7 = 3', {
      signal: ac.signal,
    });
    const reading = collect(s);
    setImmediate(() => ac.abort());
    await expectSqlError(reading, 1317, "Query execution was interrupted on source 'duck'");
  });

  test('read-only by default: writes are refused with the source named', async () => {
    await expectSqlError(
      src.execute('CREATE TABLE w (a INT)'),
      1290,
      /^Source 'duck' is in read-only mode: .*read-only/,
    );
  });

  test('read_only false allows writes and reports affected rows', async () => {
    await src.close();
    const rw = makeSource('duckrw', { path, read_only: false });
    try {
      assert.deepEqual(await rw.execute('CREATE TABLE w (a INT)'), { affectedRows: 0 });
      assert.deepEqual(await rw.execute('INSERT INTO w VALUES (1), (2), (3)'), { affectedRows: 3 });
      assert.deepEqual(await rw.execute('UPDATE w SET a = a + 1 WHERE a >= 2'), { affectedRows: 2 });
      assert.deepEqual(await rw.execute('DELETE FROM w'), { affectedRows: 3 });
      await rw.execute('DROP TABLE w');
      // Several statements through query(): the last one's rows.
      assert.deepEqual((await collect(await rw.query('SELECT 1; SELECT 2 AS two'))).rows, [[2]]);
    } finally {
      await rw.close();
      src = makeSource('duck', { path });
    }
  });

  test('errors carry MySQL codes and name the source', async () => {
    await expectSqlError(src.query('SELECT * FROM nosuch'), 1146, "Table 'duck.nosuch' doesn't exist");
    await expectSqlError(
      src.query('SELECT nosuch FROM big'),
      1054,
      "Unknown column 'nosuch' in source 'duck'",
    );
    await expectSqlError(
      src.query('SELECT 1 +'),
      1064,
      /^Source 'duck' syntax error: syntax error at end of input/,
    );
    // A read-only source sends nothing but reads: other text is refused before it leaves.
    await expectSqlError(
      src.query('SELEC 1'),
      1290,
      "Source 'duck' is in read-only mode: a statement starting with selec refused",
    );
    await expectSqlError(
      (async () => collect(await src.query('SELECT CAST(s AS INTEGER) FROM big')))(),
      1105,
      /^Source 'duck' error: Conversion Error: Could not convert string 'row 1' to INT32/,
    );
  });
});
