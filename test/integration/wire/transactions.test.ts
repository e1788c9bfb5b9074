/**
 * Transactions over the MySQL listener (docs/reference/wire.md "Transactions"), with the
 * clients people have: PyMySQL and mysqlclient (both autocommit off by default), the mariadb
 * CLI, MariaDB Connector/J and mysql2, on a PostgreSQL, a MariaDB, a SQLite and a DuckDB source. Rolled back, closed
 * and committed transactions; a bystander that must not see uncommitted rows; a second
 * source's write refused with 1235; @@autocommit and the status flags telling the truth.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import sqlite from 'node-sqlite3-wasm';
import { ensureJavaClients, ensurePythonClients, runPythonJob } from '../../helpers/debian-clients.js';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../helpers/services.js';

const SCRIPT = new URL('./python/transactions.py', import.meta.url).pathname;
const JDBC_SOURCE = new URL('./jdbc/TxnClient.java', import.meta.url).pathname;
const TABLE = 'CREATE TABLE t (id int PRIMARY KEY, v varchar(40))';

let server: TestServer;
let port = 0;
let python = '';
let dir = '';
const drops: (() => Promise<void>)[] = [];

/** mysqlclient (MySQLdb) importable by Debian's python, installed when missing. */
function ensureMysqlclient(py: string): void {
  const has = () => {
    try {
      execFileSync(py, ['-c', 'import MySQLdb'], { stdio: 'ignore', timeout: 60_000 });
      return true;
    } catch {
      return false;
    }
  };
  if (has()) return;
  execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-mysqldb', {
    stdio: 'ignore',
    shell: '/bin/bash',
    timeout: 600_000,
  });
  if (!has()) throw new Error(`${py} cannot import MySQLdb even after apt-get install python3-mysqldb`);
}

before(async () => {
  python = ensurePythonClients();
  ensureMysqlclient(python);
  dir = mkdtempSync(join(tmpdir(), 'tributary-txn-'));
  const pg = await createPgDatabase('txn');
  const maria = await createMariaDatabase('txn');
  drops.push(pg.drop, maria.drop);
  await pgExec(pg.database, TABLE);
  await mariaExec(maria.database, `${TABLE} ENGINE=InnoDB`);
  const lite = new sqlite.Database(join(dir, 'lite.db'));
  lite.exec(TABLE);
  lite.close();
  const duck = await DuckDBInstance.create(join(dir, 'duck.duckdb'));
  const dc = await duck.connect();
  await dc.run(TABLE);
  dc.closeSync();
  duck.closeSync();
  server = await startTestServer();
  for (const q of [
    `CREATE DATABASE pgs WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pg.database)}`,
    `CREATE DATABASE mys WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(maria.database)}`,
    `CREATE DATABASE lite WITH ENGINE = 'sqlite', PARAMETERS = ${JSON.stringify({ path: join(dir, 'lite.db') })}`,
    `CREATE DATABASE duck WITH ENGINE = 'duckdb', PARAMETERS = ${JSON.stringify({ path: join(dir, 'duck.duckdb'), read_only: false })}`,
  ])
    assert.equal((await server.sql(q)).type, 'ok', q);
  assert.ok(server.mysql, 'the MySQL listener started');
  port = server.mysql.port;
});

after(async () => {
  await server?.stop();
  for (const d of drops) await d();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Seen {
  autocommit_default: number;
  session_autocommit: number;
  driver_autocommit: boolean;
  insert_rowcount: number;
  in_trans_after_insert: boolean | null;
  own_write_seen: number;
  bystander_sees?: number;
  in_trans_after_rollback: boolean | null;
  after_rollback: number;
  after_rollback_elsewhere: number;
  after_commit_elsewhere: number;
  after_close: number;
  autocommit_on: number;
  in_trans_autocommit: boolean | null;
  after_autocommit_rollback: number;
  second_source?: { error: number | null; message?: string; class?: string };
  second_source_rows?: number;
  first_source_rows?: number;
}

function runPython(job: Record<string, unknown>): Promise<Seen> {
  return runPythonJob<Seen>(python, SCRIPT, { port, ...job }, 120_000);
}

/** Rows of `sql` through POST /api/sql/query (each statement commits on its own there). */
async function httpCount(sql: string): Promise<number> {
  const r = await server.sql(sql);
  assert.equal(r.type, 'table', JSON.stringify(r));
  return r.type === 'table' ? Number(r.data[0][0]) : -1;
}

const SOURCES: { db: string; other: [string, string]; bystander: boolean; name: string }[] = [
  { db: 'pgs', other: ['mys', 't'], bystander: true, name: 'PostgreSQL' },
  { db: 'mys', other: ['pgs', 't'], bystander: true, name: 'MariaDB' },
  // SQLite locks the file while a transaction writes: another connection's read answers
  // "database is locked" rather than seeing the row, so no bystander read here.
  { db: 'lite', other: ['duck', 't'], bystander: false, name: 'SQLite' },
  { db: 'duck', other: ['lite', 't'], bystander: true, name: 'DuckDB' },
];

let base = 100;
for (const client of ['pymysql', 'mysqldb'] as const) {
  for (const src of SOURCES) {
    const first = base;
    base += 10;
    test(`${client} on a ${src.name} source: rollback, close and a second source undo; commit and autocommit keep`, async () => {
      const seen = await runPython({
        client,
        db: src.db,
        table: 't',
        other: src.other,
        base: first,
        bystander: src.bystander,
      });
      // The driver's default (autocommit off) is what the server reports, by flag and by variable.
      assert.equal(seen.driver_autocommit, false);
      assert.equal(seen.autocommit_default, 0);
      assert.equal(seen.session_autocommit, 0);
      assert.equal(seen.insert_rowcount, 1);
      assert.equal(seen.own_write_seen, 1, 'the transaction reads its own write');
      if (src.bystander) assert.equal(seen.bystander_sees, 0, 'another connection does not see it');
      assert.equal(seen.after_rollback, 0);
      assert.equal(seen.after_rollback_elsewhere, 0);
      assert.equal(seen.after_commit_elsewhere, 1);
      assert.equal(seen.after_close, 0, 'closing inside a transaction rolls it back');
      assert.equal(seen.autocommit_on, 1);
      assert.equal(seen.after_autocommit_rollback, 1, 'with autocommit on each statement commits');
      if (client === 'pymysql') {
        assert.equal(seen.in_trans_after_insert, true);
        assert.equal(seen.in_trans_after_rollback, false);
        assert.equal(seen.in_trans_autocommit, false);
      }
      assert.equal(seen.second_source?.error, 1235, JSON.stringify(seen.second_source));
      assert.match(seen.second_source?.message ?? '', new RegExp(`'${src.db}'.*'${src.other[0]}'`));
      assert.equal(seen.second_source_rows, 0, 'nothing written to the second source');
      assert.equal(seen.first_source_rows, 0, 'the first source rolled back');
      // HTTP statements see the same committed state.
      assert.equal(
        await httpCount(`SELECT COUNT(*) FROM ${src.db}.t WHERE id BETWEEN ${first} AND ${first + 9}`),
        2,
      );
    });
  }
}

/**
 * The mariadb CLI in batch mode, the statements on its standard input; `force`: go on after
 * an error (--force), resolving with the output anyway.
 */
function mariadbCli(sql: string, force = false): Promise<string> {
  const args = [
    '-h',
    '127.0.0.1',
    '-P',
    String(port),
    '-u',
    'root',
    '--skip-ssl',
    '--batch',
    '--skip-column-names',
  ];
  if (force) args.push('--force');
  return new Promise((resolve, reject) => {
    const child = execFile('mariadb', args, { timeout: 60_000 }, (err, out, errText) => {
      if (err && !force) reject(new Error(`mariadb: ${err.message}\n${errText}`));
      else resolve(out);
    });
    child.stdin?.end(sql);
  });
}

test('mariadb CLI: START TRANSACTION ... ROLLBACK leaves nothing, ... COMMIT keeps, on each source', async () => {
  for (const src of SOURCES) {
    const id = base++;
    const out = await mariadbCli(
      `SELECT @@autocommit; START TRANSACTION; INSERT INTO ${src.db}.t VALUES (${id}, 'cli'); ` +
        `SELECT COUNT(*) FROM ${src.db}.t WHERE id = ${id}; ROLLBACK; SELECT COUNT(*) FROM ${src.db}.t WHERE id = ${id}; ` +
        `BEGIN; INSERT INTO ${src.db}.t VALUES (${id}, 'cli'); COMMIT; SELECT COUNT(*) FROM ${src.db}.t WHERE id = ${id};`,
    );
    assert.deepEqual(out.trim().split('\n'), ['1', '1', '0', '1'], src.name);
  }
});

test('mariadb CLI: SET autocommit = 0 holds writes until COMMIT; SAVEPOINT and ROLLBACK TO undo part', async () => {
  for (const db of ['pgs', 'mys']) {
    const id = base;
    base += 3;
    const out = await mariadbCli(
      `SET autocommit = 0; SELECT @@autocommit, @@session.autocommit; INSERT INTO ${db}.t VALUES (${id}, 'a'); SAVEPOINT s1; ` +
        `INSERT INTO ${db}.t VALUES (${id + 1}, 'b'); ROLLBACK TO SAVEPOINT s1; RELEASE SAVEPOINT s1; COMMIT; ` +
        `SELECT COUNT(*) FROM ${db}.t WHERE id IN (${id}, ${id + 1}); SET autocommit = 1; SELECT @@autocommit;`,
    );
    assert.deepEqual(out.trim().split('\n'), ['0\t0', '1', '1'], db);
  }
});

test('a failed write inside a transaction is undone alone and COMMIT keeps the rest (PostgreSQL, MariaDB, DuckDB)', async () => {
  for (const db of ['pgs', 'mys', 'duck']) {
    const id = base;
    base += 2;
    await mariadbCli(`INSERT INTO ${db}.t VALUES (${id}, 'before')`);
    // The duplicate key fails; the session goes on (--force) and COMMIT keeps the other row.
    const out = await mariadbCli(
      `START TRANSACTION; INSERT INTO ${db}.t VALUES (${id}, 'dup'); INSERT INTO ${db}.t VALUES (${id + 1}, 'after'); COMMIT; ` +
        `SELECT COUNT(*) FROM ${db}.t WHERE id IN (${id}, ${id + 1});`,
      true,
    );
    assert.equal(out.trim(), '2', db);
  }
});

async function connectWire(): Promise<mysql.Connection> {
  return mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
}

async function until(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

test('KILL CONNECTION of a connection inside a transaction rolls it back', async () => {
  const id = base++;
  const a = await connectWire();
  a.on('error', () => {});
  const b = await connectWire();
  try {
    await a.query('START TRANSACTION');
    await a.query(`INSERT INTO pgs.t VALUES (${id}, 'killed')`);
    const [[row]] = (await a.query('SELECT CONNECTION_ID() AS id')) as unknown as [{ id: number }[]];
    await b.query(`KILL CONNECTION ${row.id}`);
    // The rollback reaches PostgreSQL just after the connection is gone.
    assert.ok(
      await until(async () => (await httpCount(`SELECT COUNT(*) FROM pgs.t WHERE id = ${id}`)) === 0),
    );
    await assert.rejects(a.query('SELECT 1'));
  } finally {
    a.destroy();
    await b.end();
  }
});

test('KILL QUERY stops a write on the held connection; the transaction goes on (MariaDB)', async () => {
  const id = base++;
  const a = await connectWire();
  const b = await connectWire();
  try {
    await a.query('START TRANSACTION');
    await a.query(`INSERT INTO mys.t VALUES (${id}, 'kept')`);
    const [[row]] = (await a.query('SELECT CONNECTION_ID() AS id')) as unknown as [{ id: number }[]];
    const slow = a.query(`UPDATE mys.t SET v = CAST(SLEEP(5) AS CHAR) WHERE id = ${id}`);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    await b.query(`KILL QUERY ${row.id}`);
    await assert.rejects(slow, (e: { errno?: number }) => e.errno === 1317);
    assert.ok(Date.now() - started < 3000, 'stopped, not waited for');
    const [[seen]] = (await a.query(`SELECT v FROM mys.t WHERE id = ${id}`)) as unknown as [{ v: string }[]];
    assert.equal(seen.v, 'kept');
    await a.query('COMMIT');
    assert.equal(await httpCount(`SELECT COUNT(*) FROM mys.t WHERE id = ${id}`), 1);
  } finally {
    await a.end();
    await b.end();
  }
});

test('KILL QUERY stops a write waiting for a lock on the held connection; the transaction goes on (PostgreSQL)', async () => {
  const id = base;
  base += 2;
  await mariadbCli(`INSERT INTO pgs.t VALUES (${id + 1}, 'locked')`);
  const a = await connectWire();
  const b = await connectWire();
  try {
    // b's transaction locks the row a will wait for.
    await b.query('START TRANSACTION');
    await b.query(`UPDATE pgs.t SET v = 'b' WHERE id = ${id + 1}`);
    await a.query('START TRANSACTION');
    await a.query(`INSERT INTO pgs.t VALUES (${id}, 'kept')`);
    const [[row]] = (await a.query('SELECT CONNECTION_ID() AS id')) as unknown as [{ id: number }[]];
    const waiting = a.query(`UPDATE pgs.t SET v = 'a' WHERE id = ${id + 1}`);
    await new Promise((r) => setTimeout(r, 300));
    const killer = await connectWire();
    await killer.query(`KILL QUERY ${row.id}`);
    await killer.end();
    await assert.rejects(waiting, (e: { errno?: number }) => e.errno === 1317);
    const [[seen]] = (await a.query(`SELECT v FROM pgs.t WHERE id = ${id}`)) as unknown as [{ v: string }[]];
    assert.equal(seen.v, 'kept');
    await a.query('COMMIT');
    await b.query('ROLLBACK');
    assert.equal(await httpCount(`SELECT COUNT(*) FROM pgs.t WHERE id = ${id}`), 1);
    assert.equal(await httpCount(`SELECT COUNT(*) FROM pgs.t WHERE id = ${id + 1} AND v = 'locked'`), 1);
  } finally {
    await a.end();
    await b.end();
  }
});

test('KILL QUERY stops a read on the held connection; the transaction goes on (MariaDB)', async () => {
  const id = base++;
  const a = await connectWire();
  const b = await connectWire();
  try {
    await a.query('START TRANSACTION');
    await a.query(`INSERT INTO mys.t VALUES (${id}, 'kept')`);
    const [[row]] = (await a.query('SELECT CONNECTION_ID() AS id')) as unknown as [{ id: number }[]];
    const slow = a.query(`SELECT id, SLEEP(5) AS s FROM mys.t WHERE id = ${id}`);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    await b.query(`KILL QUERY ${row.id}`);
    await assert.rejects(slow, (e: { errno?: number }) => e.errno === 1317);
    assert.ok(Date.now() - started < 3000, 'stopped, not waited for');
    const [[seen]] = (await a.query(`SELECT v FROM mys.t WHERE id = ${id}`)) as unknown as [{ v: string }[]];
    assert.equal(seen.v, 'kept');
    await a.query('COMMIT');
    assert.equal(await httpCount(`SELECT COUNT(*) FROM mys.t WHERE id = ${id}`), 1);
  } finally {
    await a.end();
    await b.end();
  }
});

test('a transaction whose first write failed may write to another source', async () => {
  const id = base++;
  await mariadbCli(`INSERT INTO mys.t VALUES (${id}, 'there')`);
  const a = await connectWire();
  try {
    await a.query('SET autocommit = 0');
    await assert.rejects(
      a.query(`INSERT INTO mys.t VALUES (${id}, 'dup')`),
      (e: { errno?: number }) => e.errno === 1062,
    );
    await a.query(`INSERT INTO pgs.t VALUES (${id}, 'other source')`);
    await assert.rejects(
      a.query(`INSERT INTO mys.t VALUES (${id + 1000}, 'second')`),
      (e: { errno?: number }) => e.errno === 1235,
    );
    await a.query('COMMIT');
    assert.equal(await httpCount(`SELECT COUNT(*) FROM pgs.t WHERE id = ${id}`), 1);
    assert.equal(await httpCount(`SELECT COUNT(*) FROM mys.t WHERE id = ${id + 1000}`), 0);
  } finally {
    await a.end();
  }
});

test('SELECT ... FOR UPDATE in a transaction locks the rows until COMMIT (PostgreSQL, MariaDB)', async () => {
  for (const db of ['pgs', 'mys']) {
    const id = base++;
    await mariadbCli(`INSERT INTO ${db}.t VALUES (${id}, 'free')`);
    const a = await connectWire();
    try {
      await a.query('START TRANSACTION');
      const [[row]] = (await a.query(`SELECT v FROM ${db}.t WHERE id = ${id} FOR UPDATE`)) as unknown as [
        { v: string }[],
      ];
      assert.equal(row.v, 'free');
      // Another connection's write to the locked row waits for the transaction.
      let done = false;
      const other = server.sql(`UPDATE ${db}.t SET v = 'other' WHERE id = ${id}`).then((r) => {
        done = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(done, false, `${db}: the row is locked`);
      await a.query(`UPDATE ${db}.t SET v = 'mine' WHERE id = ${id}`);
      await a.query('COMMIT');
      assert.equal((await other).type, 'ok');
      const r = await server.sql(`SELECT v FROM ${db}.t WHERE id = ${id}`);
      assert.deepEqual(r.type === 'table' ? r.data : r, [['other']]);
    } finally {
      await a.end();
    }
  }
});

test('a failed or stopped read inside a PostgreSQL transaction leaves it open', async () => {
  const id = base;
  base += 3;
  await mariadbCli(`INSERT INTO pgs.t VALUES (${id + 2}, 'locked')`);
  const a = await connectWire();
  const b = await connectWire();
  try {
    await a.query('START TRANSACTION');
    await a.query(`INSERT INTO pgs.t VALUES (${id}, 'one')`);
    await assert.rejects(
      a.query('SELECT no_such_column FROM pgs.t'),
      (e: { errno?: number }) => e.errno === 1054,
    );
    // b locks a row; a's locking read of it waits and is stopped.
    await b.query('START TRANSACTION');
    await b.query(`UPDATE pgs.t SET v = 'b' WHERE id = ${id + 2}`);
    const [[row]] = (await a.query('SELECT CONNECTION_ID() AS id')) as unknown as [{ id: number }[]];
    const waiting = a.query(`SELECT v FROM pgs.t WHERE id = ${id + 2} FOR UPDATE`);
    await new Promise((r) => setTimeout(r, 300));
    const killer = await connectWire();
    await killer.query(`KILL QUERY ${row.id}`);
    await killer.end();
    await assert.rejects(waiting, (e: { errno?: number }) => e.errno === 1317);
    await b.query('ROLLBACK');
    await a.query(`INSERT INTO pgs.t VALUES (${id + 1}, 'two')`);
    await a.query('COMMIT');
    assert.equal(await httpCount(`SELECT COUNT(*) FROM pgs.t WHERE id IN (${id}, ${id + 1})`), 2);
  } finally {
    await a.end();
    await b.end();
  }
});

test('JDBC (MariaDB Connector/J): setAutoCommit(false), rollback, commit and close', async () => {
  const java = ensureJavaClients();
  const classes = mkdtempSync(join(tmpdir(), 'tributary-jdbc-txn-'));
  try {
    execFileSync(java.javac, ['-d', classes, '-cp', java.jar, JDBC_SOURCE], {
      stdio: 'pipe',
      timeout: 120_000,
    });
    for (const db of ['pgs', 'mys']) {
      const id = base;
      base += 4;
      const out = await new Promise<Record<string, number>>((resolve, reject) => {
        execFile(
          java.java,
          [
            '-cp',
            `${java.jar}:${classes}`,
            'TxnClient',
            `jdbc:mariadb://127.0.0.1:${port}/${db}?user=root`,
            `${db}.t`,
            String(id),
          ],
          { timeout: 60_000 },
          (err, stdout, stderr) =>
            err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
        );
      });
      assert.deepEqual(
        out,
        { own: 1, bystander: 0, after_rollback: 0, after_commit: 1, autocommitted: 1, after_close: 0 },
        db,
      );
    }
  } finally {
    rmSync(classes, { recursive: true, force: true });
  }
});

test('HTTP statements keep committing one by one', async () => {
  const id = base++;
  const r = await server.sql(`INSERT INTO pgs.t VALUES (${id}, 'http')`);
  assert.equal(r.type, 'ok', JSON.stringify(r));
  assert.equal(await httpCount(`SELECT COUNT(*) FROM pgs.t WHERE id = ${id}`), 1);
});
