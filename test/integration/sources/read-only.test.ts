/**
 * Read-only in depth (SPEC §10): with api.mcp.read_only on, hostile statements through the
 * MCP tool against PostgreSQL, MariaDB, SQLite, DuckDB and the local engine all fail with a
 * clear error and change nothing (rows and files counted before and after); and each source
 * holds on its own when the engine's kind check is bypassed (statements sent straight to the
 * source in read-only mode, and sources created with read_only: true).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import sqlite from 'node-sqlite3-wasm';
import pg from 'pg';
import pino from 'pino';
import { getEngine } from '../../../src/sources/registry.js';
import { collect, type Source } from '../../../src/sources/types.js';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import {
  createMariaDatabase,
  createPgDatabase,
  MARIADB,
  mariaExec,
  PG,
  pgExec,
} from '../../helpers/services.js';
import { type Connected, connect, resultOf } from '../mcp/helpers/clients.js';

const ROWS = 3;
let dir = '';
let pgDb: { database: string; drop: () => Promise<void> };
let myDb: { database: string; drop: () => Promise<void> };
let server: TestServer;
let mcp: Connected;
const outFile = () => join(dir, 'out.txt');

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-ro-'));
  pgDb = await createPgDatabase('ro');
  myDb = await createMariaDatabase('ro');
  await pgExec(
    pgDb.database,
    `CREATE TABLE t (x int); INSERT INTO t VALUES (1),(2),(3); CREATE SEQUENCE s;
     CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'INSERT INTO t VALUES (99) RETURNING x';`,
  );
  await mariaExec(
    myDb.database,
    `CREATE TABLE t (x int); INSERT INTO t VALUES (1),(2),(3); CREATE SEQUENCE s;
     CREATE FUNCTION f() RETURNS int MODIFIES SQL DATA BEGIN INSERT INTO t VALUES (99); RETURN 1; END`,
  );
  const lite = new sqlite.Database(join(dir, 'lite.db'));
  lite.exec('CREATE TABLE t (x int); INSERT INTO t VALUES (1),(2),(3)');
  lite.close();
  const duck = await DuckDBInstance.create(join(dir, 'duck.duckdb'));
  const dc = await duck.connect();
  await dc.run('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1),(2),(3)');
  dc.closeSync();
  duck.closeSync();
  server = await startTestServer({ TRIBUTARY_MCP_READ_ONLY: 'true' });
  const create = [
    `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgDb.database)}`,
    `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(myDb.database)}`,
    `CREATE DATABASE lite WITH ENGINE = 'sqlite', PARAMETERS = ${JSON.stringify({ path: join(dir, 'lite.db') })}`,
    `CREATE DATABASE duck WITH ENGINE = 'duckdb', PARAMETERS = ${JSON.stringify({ path: join(dir, 'duck.duckdb'), read_only: false })}`,
  ];
  // HTTP is not read-only: that is how an operator sets sources up.
  for (const q of create) assert.equal((await server.sql(q)).type, 'ok', q);
  mcp = await connect('streamable', server.url);
});

after(async () => {
  await mcp?.terminate().catch(() => {});
  await server?.stop();
  await pgDb?.drop();
  await myDb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function viaMcp(query: string): Promise<{ type: string; error_code?: number; error_message?: string }> {
  return resultOf(await mcp.client.callTool({ name: 'query', arguments: { query } }));
}

/** Rows in every table the attempts aim at, and the files in the scratch dir. */
async function state(): Promise<Record<string, unknown>> {
  const p = new pg.Client({ ...PG, database: pgDb.database });
  await p.connect();
  const pgRows = (await p.query('SELECT count(*)::int AS n FROM t')).rows[0].n;
  const pgSeq = (await p.query('SELECT last_value::int AS v, is_called FROM s')).rows[0];
  await p.end();
  const m = await mysql.createConnection({ ...MARIADB, database: myDb.database });
  const [[my]] = (await m.query('SELECT count(*) AS n FROM t')) as unknown as [[{ n: number }]];
  const [[mySeq]] = (await m.query('SELECT next_not_cached_value AS v FROM s')) as unknown as [
    [{ v: number }],
  ];
  await m.end();
  const lite = (await server.sql('SELECT count(*) AS n FROM lite.t')) as { data: unknown[][] };
  const duck = (await server.sql('SELECT count(*) AS n FROM duck.t')) as { data: unknown[][] };
  return {
    pgRows,
    pgSeq,
    myRows: Number(my.n),
    mySeq: Number(mySeq.v),
    lite: lite.data[0][0],
    duck: duck.data[0][0],
    files: readdirSync(dir).sort(),
    sources: ((await server.sql('SHOW DATABASES')) as { data: unknown[][] }).data.length,
  };
}

const HOSTILE: string[] = [
  // Writes and DDL by statement kind, on every source.
  ...['pg', 'my', 'lite', 'duck', 'files'].flatMap((s) => [
    `INSERT INTO ${s}.t VALUES (7)`,
    `UPDATE ${s}.t SET x = 0`,
    `DELETE FROM ${s}.t`,
    `DROP TABLE ${s}.t`,
    `CREATE TABLE ${s}.t2 (x INT)`,
    `CREATE TABLE ${s}.t3 AS SELECT 1 AS x`,
    `INSERT INTO ${s}.t SELECT x FROM ${s}.t`,
  ]),
  'DROP DATABASE pg',
  `CREATE DATABASE evil WITH ENGINE = 'sqlite', PARAMETERS = {"path": "/tmp/x.db"}`,
  // Ending the read-only transaction from inside the text.
  'SELECT x FROM pg.t; DELETE FROM pg.t',
  'COMMIT; DELETE FROM pg.t',
  'SELECT 1; SET default_transaction_read_only = off; DELETE FROM pg.t',
  'SELECT x FROM my.t; DELETE FROM my.t',
  // PostgreSQL side effects.
  "SELECT pg_read_file('/etc/hostname') FROM pg.t",
  "SELECT pg_catalog.pg_read_file('/etc/hostname') FROM pg.t",
  "SELECT lo_export(0, '/tmp/lo_out') FROM pg.t",
  "SELECT lo_import('/etc/hostname') FROM pg.t",
  "SELECT dblink_exec('dbname=postgres', 'DELETE FROM t') FROM pg.t",
  "SELECT set_config('default_transaction_read_only', 'off', false) FROM pg.t",
  'SELECT pg_sleep(30) FROM pg.t',
  "SELECT nextval('s') FROM pg.t",
  'SELECT f() FROM pg.t',
  'SELECT pg_terminate_backend(1) FROM pg.t',
  'SELECT x FROM pg.t WHERE pg_advisory_lock(1) IS NOT NULL',
  // MariaDB side effects.
  "SELECT LOAD_FILE('/etc/hostname') FROM my.t",
  `SELECT x FROM my.t INTO OUTFILE '${join(tmpdir(), 'ro_outfile.txt')}'`,
  `SELECT x FROM my.t INTO DUMPFILE '${join(tmpdir(), 'ro_dumpfile.txt')}'`,
  'SELECT SLEEP(30) FROM my.t',
  'SELECT BENCHMARK(100000000, MD5(1)) FROM my.t',
  "SELECT GET_LOCK('ro', 1) FROM my.t",
  'SELECT NEXTVAL(s) FROM my.t',
  'SELECT f() FROM my.t',
  'SELECT x FROM my.t FOR UPDATE',
  'SELECT x FROM my.t LOCK IN SHARE MODE',
  // SQLite and DuckDB side effects.
  "SELECT load_extension('/tmp/x.so') FROM lite.t",
  "SELECT writefile('/tmp/w', 'x') FROM lite.t",
  "SELECT * FROM duck.t, read_csv('/etc/passwd')",
  "SELECT read_text('/etc/hostname') FROM duck.t",
  // The local engine (cross-source statements and constants).
  "SELECT read_text('/etc/hostname')",
  "SELECT * FROM read_csv('/etc/passwd')",
  "SELECT a.x FROM pg.t a JOIN my.t b ON a.x = b.x WHERE LOAD_FILE('/etc/hostname') IS NULL",
  "SELECT a.x FROM pg.t a JOIN my.t b ON a.x = b.x WHERE pg_read_file('/etc/hostname') IS NULL",
  `COPY (SELECT 1) TO '${outFile()}'`,
  `ATTACH '${join(dir, 'attached.db')}'`,
  'INSTALL httpfs',
];

describe('read-only mode through the MCP tool', () => {
  test(`${HOSTILE.length} hostile statements: each refused with a clear error, nothing changes`, {
    timeout: 120_000,
  }, async () => {
    assert.ok(HOSTILE.length >= 60, `${HOSTILE.length} attempts`);
    const before = await state();
    const started = Date.now();
    for (const q of HOSTILE) {
      const r = await viaMcp(q);
      assert.equal(r.type, 'error', `${q} was not refused: ${JSON.stringify(r)}`);
      assert.ok([1290, 1235, 1064, 1049, 1146].includes(r.error_code!), `${q}: ${JSON.stringify(r)}`);
      assert.ok((r.error_message ?? '').length > 10, `${q}: ${r.error_message}`);
    }
    // SLEEP(30), pg_sleep(30) and BENCHMARK were refused, not run.
    assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
    assert.deepEqual(await state(), before);
    assert.equal(existsSync(join(tmpdir(), 'ro_outfile.txt')), false);
    assert.equal(existsSync('/tmp/lo_out'), false);
  });

  test('side-effect functions and kinds are refused with 1290 where Tributary refuses them', async () => {
    for (const q of [
      'DELETE FROM pg.t',
      "SELECT LOAD_FILE('/etc/hostname') FROM my.t",
      'SELECT SLEEP(30) FROM my.t',
      "SELECT GET_LOCK('ro', 1) FROM my.t",
      'SELECT x FROM my.t FOR UPDATE',
    ]) {
      const r = await viaMcp(q);
      assert.equal(r.error_code, 1290, `${q}: ${JSON.stringify(r)}`);
    }
    const r = await viaMcp("SELECT LOAD_FILE('/etc/hostname') FROM my.t");
    assert.match(r.error_message!, /'my'.*read-only.*LOAD_FILE/);
  });

  test('reads still work: pushed down, cross-source and constant', async () => {
    assert.deepEqual(await viaMcp('SELECT x FROM pg.t ORDER BY x'), {
      type: 'table',
      column_names: ['x'],
      data: [[1], [2], [3]],
    });
    const cross = await viaMcp('SELECT count(*) AS n FROM pg.t a JOIN my.t b ON a.x = b.x');
    assert.deepEqual(cross, { type: 'table', column_names: ['n'], data: [[ROWS]] });
    for (const s of ['lite', 'duck'])
      assert.deepEqual(await viaMcp(`SELECT max(x) AS m FROM ${s}.t`), {
        type: 'table',
        column_names: ['m'],
        data: [[3]],
      });
    // A string holding a refused name is a value, not a call.
    const lit = await viaMcp("SELECT x FROM my.t WHERE 'sleep(1)' <> 'load_file(x)' ORDER BY x LIMIT 1");
    assert.deepEqual(lit, { type: 'table', column_names: ['x'], data: [[1]] });
  });

  test('HTTP (not read-only) still writes to the same sources afterwards', async () => {
    assert.deepEqual(await server.sql('INSERT INTO pg.t VALUES (4)'), { type: 'ok', affected_rows: 1 });
    assert.deepEqual(await server.sql('DELETE FROM pg.t WHERE x = 4'), { type: 'ok', affected_rows: 1 });
    assert.equal((await server.sql('UPDATE my.t SET x = 3 WHERE x = 3')).type, 'ok');
  });
});

/** A source made straight from the registry, as the catalog would make it. */
function make(engine: string, params: Record<string, unknown>): Source {
  const spec = getEngine(engine);
  return spec.create(`s_${engine}`, spec.params.parse(params), {
    storageDir: dir,
    logger: pino({ level: 'silent' }),
  });
}

async function refused(p: Promise<unknown>, code = 1290): Promise<string> {
  try {
    const v = await p;
    if (v && typeof v === 'object' && 'batches' in v) await collect(v as never);
  } catch (e) {
    assert.equal((e as { code?: number }).code, code, String(e));
    return (e as Error).message;
  }
  assert.fail('not refused');
}

describe('each source holds on its own (the kind check bypassed)', () => {
  test('PostgreSQL: the session is read-only; a writing function and a writing CTE fail there', async () => {
    const s = make('postgres', JSON.parse(pgParams(pgDb.database)));
    try {
      const ro = { readOnly: true };
      // No guard catches these: PostgreSQL's read-only transaction does.
      assert.match(await refused(s.query('SELECT * FROM f()', ro)), /read-only transaction/);
      assert.match(
        await refused(s.query('WITH d AS (DELETE FROM t RETURNING x) SELECT * FROM d', ro)),
        /read-only transaction/,
      );
      // And the text never ends the transaction or changes the setting.
      await refused(s.query('SELECT 1; COMMIT; DELETE FROM t', ro));
      await refused(s.query('SET default_transaction_read_only = off', ro));
      await refused(s.query('COMMIT', ro));
      await refused(s.query("SELECT set_config('default_transaction_read_only', 'off', false)", ro));
      await refused(s.query(`SELECT "pg_read_file"('/etc/hostname')`, ro));
      await refused(s.query("SELECT 'a\\', pg_sleep(5) --'", ro));
      await refused(s.execute('DELETE FROM t', ro));
      // The same pooled sessions write again once read-only mode is not asked for.
      assert.deepEqual(await s.execute('UPDATE t SET x = x WHERE x = 1'), { affectedRows: 1 });
      const again = await collect(await s.query('SELECT count(*)::int AS n FROM t', ro));
      assert.deepEqual(again.rows, [[ROWS]]);
    } finally {
      await s.close();
    }
  });

  test('PostgreSQL read_only: true: sessions start read-only, writes get 1290', async () => {
    const s = make('postgres', { ...JSON.parse(pgParams(pgDb.database)), read_only: 'true' });
    try {
      await refused(s.execute('DELETE FROM t'));
      assert.match(await refused(s.query('SELECT * FROM f()')), /read-only transaction/);
      const on = await collect(await s.query('SHOW default_transaction_read_only'));
      assert.deepEqual(on.rows, [['on']]);
    } finally {
      await s.close();
    }
  });

  test('MariaDB: every transaction of the session is READ ONLY; a writing function fails there', async () => {
    const s = make('mariadb', JSON.parse(mariaParams(myDb.database)));
    try {
      const ro = { readOnly: true };
      assert.match(await refused(s.query('SELECT f()', ro)), /READ ONLY transaction/i);
      const mode = await collect(await s.query('SELECT @@session.tx_read_only', ro));
      assert.equal(Number(mode.rows[0][0]), 1);
      await refused(s.query("SELECT LOAD_FILE('/etc/hostname')", ro));
      await refused(s.query('SELECT 1; DELETE FROM t', ro));
      await refused(s.execute('DELETE FROM t', ro));
      assert.deepEqual(await s.execute('UPDATE t SET x = x WHERE x = 1'), { affectedRows: 1 });
    } finally {
      await s.close();
    }
  });

  test('MariaDB read_only: true: writes refused, the server refuses what starts as a read', async () => {
    const s = make('mariadb', { ...JSON.parse(mariaParams(myDb.database)), read_only: true });
    try {
      await refused(s.execute('INSERT INTO t VALUES (5)'));
      assert.match(await refused(s.query('SELECT f()')), /READ ONLY transaction/i);
    } finally {
      await s.close();
    }
  });

  test('SQLite read_only: true opens the file read-only; DuckDB read_only (the default) too', async () => {
    const lite = make('sqlite', { path: join(dir, 'lite.db'), read_only: true });
    const duck = make('duckdb', { path: join(dir, 'duck.duckdb') });
    try {
      await refused(lite.execute('DELETE FROM t'));
      await refused(lite.query("SELECT writefile('/tmp/w', 'x')"));
      assert.deepEqual((await collect(await lite.query('SELECT count(*) FROM t'))).rows, [[ROWS]]);
      // DuckDB's own read-only error, mapped to 1290.
      assert.match(await refused(duck.execute('DELETE FROM t')), /read-only/);
      await refused(duck.query("SELECT * FROM read_csv('/etc/passwd')"));
    } finally {
      await lite.close();
      await duck.close();
    }
  });

  test('SHOW ENGINES lists read_only for every SQL engine', async () => {
    const r = (await server.sql('SHOW ENGINES')) as { data: string[][]; column_names: string[] };
    const params = r.column_names.indexOf('Parameters');
    for (const row of r.data.filter((x) =>
      ['postgres', 'mysql', 'mariadb', 'sqlite', 'duckdb'].includes(x[0]),
    ))
      assert.match(row[params], /read_only:/, row[0]);
  });
});
