import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { SqlError } from '../../../src/core/errors.js';
import { parseEngineParams } from '../../../src/sources/params.js';
import { getEngine } from '../../../src/sources/registry.js';
import { collect, type Source } from '../../../src/sources/types.js';
import { createPgDatabase, PG, pgExec } from '../../helpers/services.js';
import { closedPort, expectSqlError, waitFor } from './helpers.js';

const logger = pino({ level: 'silent' });
const ctx = { storageDir: '/tmp', logger };

function makeSource(name: string, params: Record<string, unknown>): Source {
  const spec = getEngine('postgres');
  return spec.create(name, parseEngineParams(spec, params), ctx);
}

async function adminRows<T>(database: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ ...PG, database });
  await c.connect();
  try {
    return (await c.query(sql, values)).rows as T[];
  } finally {
    await c.end();
  }
}

describe('postgres source', () => {
  let database: string;
  let drop: () => Promise<void>;
  let src: Source;

  before(async () => {
    ({ database, drop } = await createPgDatabase('src_pg'));
    await pgExec(
      database,
      `CREATE TABLE big AS SELECT g AS id, md5(g::text) AS s FROM generate_series(1, 50000) g;
       CREATE TABLE types (
         id int PRIMARY KEY, i2 int2, i8 int8, n numeric(40,3), f4 real, f8 double precision, b bool,
         d date, ts timestamp(6), tz timestamptz, t time, j json, jb jsonb, by bytea, u uuid,
         tx text DEFAULT 'x', vc varchar(10) UNIQUE, ch char(3), arr int[], nul int);
       INSERT INTO types VALUES (1, 7, 9007199254740993, 12345678901234567890.123, 0.1, 2.5, true,
         '2024-02-29', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05+02', '13:14:15', '{"a": [1, 2]}',
         '{"b": {"c": null}}', '\\x00ff10', '00000000-0000-0000-0000-000000000001', 'héllo', 'v', 'ab',
         '{1,NULL,3}', NULL);
       CREATE VIEW v AS SELECT id FROM types;
       CREATE SCHEMA other; CREATE TABLE other.t2 (x int); INSERT INTO other.t2 VALUES (42);`,
    );
    src = makeSource('pg1', { host: '127.0.0.1', port: '5432', user: 'postgres', database });
  });

  after(async () => {
    await src?.close();
    await drop?.();
  });

  test('declares its dialect, capabilities and default schema', () => {
    assert.equal(src.dialect, 'postgres');
    assert.equal(src.engine, 'postgres');
    assert.equal(src.defaultSchema, 'public');
    assert.deepEqual(src.capabilities, {
      fullStatements: true,
      projection: true,
      filters: 'exact',
      limit: true,
    });
  });

  test('test() connects', async () => {
    await src.test();
  });

  test('lists the tables and views of its schema only', async () => {
    const tables = await src.listTables();
    assert.deepEqual(
      tables.map((t) => [t.name, t.schema, t.type]),
      [
        ['big', 'public', 'BASE TABLE'],
        ['types', 'public', 'BASE TABLE'],
        ['v', 'public', 'VIEW'],
      ],
    );
  });

  test('lists columns with MySQL types, keys, nullability and defaults', async () => {
    const cols = await src.listColumns('types');
    const by = Object.fromEntries(cols.map((c) => [c.name, c]));
    assert.deepEqual(
      cols.map((c) => c.type),
      [
        'INT',
        'SMALLINT',
        'BIGINT',
        'DECIMAL',
        'FLOAT',
        'DOUBLE',
        'BOOLEAN',
        'DATE',
        'DATETIME',
        'TIMESTAMP',
        'TIME',
      ].concat(['JSON', 'JSON', 'BLOB', 'VARCHAR', 'TEXT', 'VARCHAR', 'CHAR', 'JSON', 'INT']),
    );
    assert.equal(by.id.key, 'PRI');
    assert.equal(by.id.nullable, false);
    assert.equal(by.vc.key, 'UNI');
    assert.equal(by.n.nativeType, 'numeric(40,3)');
    assert.equal(by.vc.nativeType, 'character varying(10)');
    assert.equal(by.tx.default, "'x'::text");
    assert.equal(by.nul.nullable, true);
    assert.deepEqual(
      (await src.listColumns('t2', 'other')).map((c) => [c.name, c.type]),
      [['x', 'INT']],
    );
  });

  test('an unknown table is 1146 naming source and table', async () => {
    await expectSqlError(src.listColumns('nosuch'), 1146, "Table 'pg1.nosuch' doesn't exist");
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
        7,
        9007199254740993n,
        '12345678901234567890.123',
        0.1,
        2.5,
        true,
        '2024-02-29',
        '2024-01-02 03:04:05.123456',
        '2024-01-02 01:04:05',
        '13:14:15',
        '{"a": [1, 2]}',
        '{"b": {"c": null}}',
        Buffer.from([0, 255, 16]),
        '00000000-0000-0000-0000-000000000001',
        'héllo',
        'v',
        'ab ',
        '[1,null,3]',
        null,
      ],
    ]);
  });

  test('streams a 50k-row table in bounded batches', async () => {
    const s = await src.query('SELECT id, s FROM big ORDER BY id', { batchRows: 2000 });
    assert.deepEqual(s.columns, [
      { name: 'id', type: 'INT' },
      { name: 's', type: 'TEXT' },
    ]);
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
    assert.deepEqual(await src.execute('CREATE TABLE w (a int)'), { affectedRows: 0 });
    assert.deepEqual(await src.execute('INSERT INTO w VALUES (1), (2), (3)'), { affectedRows: 3 });
    assert.deepEqual(await src.execute('UPDATE w SET a = a + 1 WHERE a >= 2'), { affectedRows: 2 });
    assert.deepEqual(await src.execute('DELETE FROM w'), { affectedRows: 3 });
    await src.execute('DROP TABLE w');
  });

  test('errors carry MySQL codes and name the source', async () => {
    await expectSqlError(src.query('SELECT * FROM nosuch'), 1146, "Table 'pg1.nosuch' doesn't exist");
    await expectSqlError(
      src.query('SELECT nosuch FROM big'),
      1054,
      "Unknown column 'nosuch' in source 'pg1'",
    );
    await expectSqlError(
      src.query('SELEC 1'),
      1064,
      /^Source 'pg1' syntax error: syntax error at or near "SELEC"/,
    );
    // Folded at planning time, so query() itself fails; a run-time one fails in the batches.
    await expectSqlError(
      src.query('SELECT 1 / 0'),
      1365,
      "Source 'pg1' error: division by zero (SQLSTATE 22012)",
    );
    const s = await src.query('SELECT 1 / (id - id) FROM big');
    await expectSqlError(collect(s), 1365, "Source 'pg1' error: division by zero (SQLSTATE 22012)");
    await expectSqlError(
      src.execute('INSERT INTO nosuch VALUES (1)'),
      1146,
      "Table 'pg1.nosuch' doesn't exist",
    );
  });

  test('an unknown database is 1049, an unknown schema too', async () => {
    const bad = makeSource('pg2', { host: '127.0.0.1', user: 'postgres', database: 'nosuch_db_xyz' });
    await expectSqlError(bad.test(), 1049, "Unknown database 'nosuch_db_xyz' in source 'pg2'");
    await bad.close();
    const badSchema = makeSource('pg3', { host: '127.0.0.1', user: 'postgres', database, schema: 'nope' });
    await expectSqlError(badSchema.test(), 1049, "Unknown schema 'nope' in source 'pg3'");
    await badSchema.close();
  });

  test('a closed port is 2003 and the password never shows', async () => {
    const port = await closedPort();
    const bad = makeSource('pg4', {
      host: '127.0.0.1',
      port,
      user: 'postgres',
      password: 'sekrit-pass-123',
      database,
      sslmode: 'disable',
    });
    const e = await expectSqlError(
      bad.test(),
      2003,
      new RegExp(`^Can't connect to source 'pg4' \\(127\\.0\\.0\\.1:${port}\\): .*ECONNREFUSED`),
    );
    assert.doesNotMatch(e.message, /sekrit/);
    await bad.close();
  });

  test('sslmode require against a server without TLS is 2003; disable connects', async () => {
    const tls = makeSource('pg6', { host: '127.0.0.1', user: 'postgres', database, sslmode: 'require' });
    await expectSqlError(tls.test(), 2003, /^Can't connect to source 'pg6' \(127\.0\.0\.1:5432\): .*SSL/);
    await tls.close();
    const plain = makeSource('pg7', { host: '127.0.0.1', user: 'postgres', database, sslmode: 'disable' });
    await plain.test();
    await plain.close();
  });

  test('the schema parameter sets the default schema', async () => {
    const o = makeSource('pgo', { host: '127.0.0.1', user: 'postgres', database, schema: 'other' });
    assert.equal(o.defaultSchema, 'other');
    assert.deepEqual((await collect(await o.query('SELECT x FROM t2'))).rows, [[42]]);
    assert.deepEqual(
      (await o.listTables()).map((t) => [t.name, t.schema]),
      [['t2', 'other']],
    );
    await o.close();
  });

  test('cancel() stops a running query and the pool still works', { timeout: 20000 }, async () => {
    // Rows first (so the columns are known), then a long sleep on the server.
    const s = await src.query(
      "SELECT g, CASE WHEN g = 20000 THEN pg_sleep(60)::text END AS z, repeat('x', 100) AS pad /* cancel_me */ FROM generate_series(1, 30000) g",
    );
    assert.deepEqual(
      s.columns.map((c) => c.name),
      ['g', 'z', 'pad'],
    );
    const reading = collect(s);
    const active =
      "SELECT 1 FROM pg_stat_activity WHERE query LIKE '%cancel_me%' AND state = 'active' AND pid <> pg_backend_pid()";
    await waitFor(async () => (await adminRows(database, active)).length > 0);
    await s.cancel();
    const { rows } = await reading;
    assert.ok(rows.length < 20000);
    await s.cancel();
    await waitFor(async () => (await adminRows(database, active)).length === 0);
    assert.deepEqual((await collect(await src.query('SELECT 1 AS one'))).rows, [[1]]);
  });

  test('an abort signal stops a query still waiting for its first rows', { timeout: 20000 }, async () => {
    const ac = new AbortController();
    const starting = src.query('SELECT pg_sleep(60) /* abort_me */', { signal: ac.signal });
    const active =
      "SELECT 1 FROM pg_stat_activity WHERE query LIKE '%abort_me%' AND state = 'active' AND pid <> pg_backend_pid()";
    await waitFor(async () => (await adminRows(database, active)).length > 0);
    ac.abort();
    await expectSqlError(starting, 1317, "Query execution was interrupted on source 'pg1'");
    await waitFor(async () => (await adminRows(database, active)).length === 0);
    assert.deepEqual((await collect(await src.query('SELECT 1 AS one'))).rows, [[1]]);
  });

  test('an abort signal ends the batches of a streaming query with 1317', { timeout: 20000 }, async () => {
    const ac = new AbortController();
    const s = await src.query(
      "SELECT g, CASE WHEN g = 20000 THEN pg_sleep(60)::text END AS z, repeat('x', 100) AS pad /* abort_rows */ FROM generate_series(1, 30000) g",
      { signal: ac.signal },
    );
    const reading = collect(s);
    const active =
      "SELECT 1 FROM pg_stat_activity WHERE query LIKE '%abort_rows%' AND state = 'active' AND pid <> pg_backend_pid()";
    await waitFor(async () => (await adminRows(database, active)).length > 0);
    ac.abort();
    await expectSqlError(reading, 1317, "Query execution was interrupted on source 'pg1'");
    await waitFor(async () => (await adminRows(database, active)).length === 0);
  });

  test('breaking out of the batches early gives the connection back', { timeout: 20000 }, async () => {
    // More early exits than the pool has connections: a leak would hang here.
    for (let i = 0; i < 15; i++) {
      const s = await src.query('SELECT id FROM big', { batchRows: 100 });
      for await (const b of s.batches) {
        assert.equal(b.length, 100);
        break;
      }
    }
    assert.deepEqual((await collect(await src.query('SELECT count(*) AS n FROM big'))).rows, [[50000]]);
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

  test('recovers after its connections are terminated', async () => {
    // A full pool of idle clients, all to be killed: a read must get past every dead one
    // whose death notice it has not read yet.
    await Promise.all(
      Array.from({ length: 10 }, async () => collect(await src.query('SELECT pg_sleep(0.02)'))),
    );
    const killed = await adminRows<{ ok: boolean }>(
      database,
      "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND application_name = 'tributary'",
      [database],
    );
    assert.ok(killed.length >= 1);
    // pg_terminate_backend only signals: wait until the backends are gone, so the read below
    // meets dead clients (its subject) rather than a backend still dying under its statement.
    for (let i = 0; i < 200; i++) {
      const left = await adminRows<{ n: number }>(
        database,
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'tributary'",
        [database],
      );
      if (left[0]!.n === 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual((await collect(await src.query('SELECT 2 AS two'))).rows, [[2]]);
    assert.deepEqual(await src.execute('SELECT 1'), { affectedRows: 1 });
    await src.test();
  });

  test('a closed source refuses work', async () => {
    const s = makeSource('pg5', { host: '127.0.0.1', user: 'postgres', database });
    await s.test();
    await s.close();
    await s.close();
    await assert.rejects(
      s.query('SELECT 1'),
      (e: unknown) => e instanceof SqlError && /closed/.test(e.message),
    );
  });
});
