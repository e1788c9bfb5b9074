/**
 * SHOW [FULL] PROCESSLIST, information_schema.PROCESSLIST and KILL across faces, seen from the
 * mariadb command-line client: a statement sent over HTTP and one sent over another MySQL
 * connection are listed, and KILL QUERY from a third connection stops each at its source
 * (PostgreSQL's pg_stat_activity and MariaDB's own process list no longer show it).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { MARIADB, mariaExec, PG, pgExec } from '../../helpers/services.js';
import { startWireFixture, type WireFixture } from './helpers.js';
import { comQuery, rawLogin } from './raw-client.js';

const run = promisify(execFile);
let fx: WireFixture;

before(async () => {
  fx = await startWireFixture();
  // Views that take their time, so the statements are still running when listed.
  await pgExec(fx.pgDatabase, 'CREATE VIEW slow_pg AS SELECT pg_sleep(60)::text AS s');
  await mariaExec(fx.mariaDatabase, 'CREATE VIEW slow_my AS SELECT SLEEP(60) AS s');
  await pgExec(
    fx.pgDatabase,
    "CREATE VIEW rows_pg AS SELECT g, repeat('x', 2000) AS pad FROM generate_series(1, 50000000) g",
  );
});

after(async () => {
  await fx?.stop();
});

/** The mariadb client in batch mode: rows as tab-separated lines, the header first. */
async function cli(sql: string): Promise<string[][]> {
  const { stdout } = await run(
    'mariadb',
    ['-h127.0.0.1', `-P${fx.port}`, '-uanyone', '--protocol=TCP', '-e', sql],
    { timeout: 20_000 },
  );
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t'));
}

async function cliError(sql: string): Promise<string> {
  try {
    await cli(sql);
  } catch (e) {
    return String((e as { stderr?: string }).stderr);
  }
  throw new Error(`${sql} did not fail`);
}

/** Statements on `view` PostgreSQL is running or holding open (a cursor between fetches). */
async function pgRunning(view = 'slow_pg'): Promise<number> {
  const c = new pg.Client({ ...PG, database: fx.pgDatabase });
  await c.connect();
  try {
    const r = await c.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND state <> 'idle' AND query LIKE '%' || $2 || '%' AND pid <> pg_backend_pid()",
      [fx.pgDatabase, view],
    );
    return Number(r.rows[0].n);
  } finally {
    await c.end();
  }
}

async function mariaRunning(): Promise<number> {
  const c = await mysql.createConnection({ ...MARIADB, database: fx.mariaDatabase });
  try {
    const [rows] = await c.query<mysql.RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND COMMAND = 'Query' AND INFO LIKE '%slow_my%' AND ID <> CONNECTION_ID()",
      [fx.mariaDatabase],
    );
    return Number(rows[0].n);
  } finally {
    await c.end();
  }
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const HEADER = ['Id', 'User', 'Host', 'db', 'Command', 'Time', 'State', 'Info'];

test('the mariadb client lists an HTTP statement and another connection, and KILL QUERY stops each at its source', async () => {
  const httpSql = 'SELECT s FROM pgs.slow_pg';
  const http = fetch(`${fx.server.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: httpSql }),
  }).then((r) => r.json() as Promise<{ type: string; error_code?: number }>);
  const victim = await mysql.createConnection({ host: '127.0.0.1', port: fx.port, user: 'anyone' });
  const idle = await mysql.createConnection({
    host: '127.0.0.1',
    port: fx.port,
    user: 'sleeper',
    database: 'pgs',
  });
  // Longer than SHOW PROCESSLIST's 100 characters of Info.
  const wireSql = `SELECT s, '${'x'.repeat(120)}' AS pad FROM mys.slow_my`;
  const wire = victim.query(wireSql).then(
    () => null,
    (e: { errno?: number }) => e,
  );
  await waitFor(async () => (await pgRunning()) > 0, 'the HTTP statement reaches PostgreSQL');
  await waitFor(async () => (await mariaRunning()) > 0, 'the MySQL statement reaches MariaDB');

  const list = await cli('SHOW PROCESSLIST');
  assert.deepEqual(list[0], HEADER);
  const httpRow = list.find((r) => r[7] === httpSql);
  assert.ok(httpRow, `the HTTP statement is listed: ${JSON.stringify(list)}`);
  assert.deepEqual(
    [httpRow[1], httpRow[3], httpRow[4], httpRow[6]],
    ['local', 'NULL', 'Query', 'executing (http)'],
  );
  assert.match(httpRow[2], /^127\.0\.0\.1:\d+$/);
  const wireRow = list.find((r) => Number(r[0]) === victim.threadId);
  assert.ok(wireRow, `the other connection is listed under its id: ${JSON.stringify(list)}`);
  assert.deepEqual(wireRow.slice(1, 2).concat(wireRow.slice(4, 5)), ['anyone', 'Query']);
  assert.equal(wireRow[7], wireSql.slice(0, 100), 'Info is cut at 100 characters');
  const idleRow = list.find((r) => Number(r[0]) === idle.threadId);
  assert.deepEqual(idleRow && [idleRow[1], idleRow[3], idleRow[4], idleRow[7]], [
    'sleeper',
    'pgs',
    'Sleep',
    'NULL',
  ]);
  const self = list.find((r) => r[7] === 'SHOW PROCESSLIST');
  assert.ok(self, 'the asking connection sees its own statement');
  assert.notEqual(Number(httpRow[0]), victim.threadId, 'HTTP statement ids and connection ids differ');

  const full = await cli('SHOW FULL PROCESSLIST');
  assert.deepEqual(full[0], HEADER);
  assert.ok(
    full.some((r) => r[7] === wireSql),
    'FULL gives the whole statement',
  );
  const info = await cli(
    'SELECT ID, USER, HOST, DB, COMMAND, TIME, STATE, INFO FROM information_schema.PROCESSLIST ORDER BY ID',
  );
  assert.deepEqual(info[0], ['ID', 'USER', 'HOST', 'DB', 'COMMAND', 'TIME', 'STATE', 'INFO']);
  assert.ok(info.some((r) => Number(r[0]) === Number(httpRow[0]) && r[7] === httpSql));
  assert.ok(info.some((r) => Number(r[0]) === victim.threadId && r[7] === wireSql));
  const star = await cli('SELECT * FROM information_schema.PROCESSLIST');
  assert.deepEqual(star[0], ['ID', 'USER', 'HOST', 'DB', 'COMMAND', 'TIME', 'STATE', 'INFO']);

  // KILL QUERY from a third connection: the HTTP statement first.
  await cli(`KILL QUERY ${httpRow[0]}`);
  const answer = await http;
  assert.equal(answer.type, 'error');
  assert.equal(answer.error_code, 1317);
  await waitFor(async () => (await pgRunning()) === 0, 'PostgreSQL no longer runs the killed statement');

  await cli(`KILL QUERY ${victim.threadId}`);
  const failed = await wire;
  assert.equal(failed?.errno, 1317);
  await waitFor(async () => (await mariaRunning()) === 0, 'MariaDB no longer runs the killed statement');
  // KILL QUERY leaves the connection open and usable.
  const [one] = await victim.query<mysql.RowDataPacket[]>('SELECT 1 AS x');
  assert.equal(one[0].x, 1);

  // KILL CONNECTION closes it.
  await cli(`KILL CONNECTION ${idle.threadId}`);
  await assert.rejects(idle.query('SELECT 1'));
  const after = await cli('SHOW PROCESSLIST');
  assert.ok(!after.some((r) => Number(r[0]) === idle.threadId), 'a killed connection leaves the list');

  assert.match(await cliError('KILL QUERY 4000000000'), /ERROR 1094 .*Unknown thread id: 4000000000/);
  await victim.end();
  idle.destroy();
});

test('SHOW PROCESSLIST and KILL answer over HTTP too', async () => {
  const sql = async (query: string) => fx.server.sql(query);
  const shown = (await sql('SHOW FULL PROCESSLIST')) as {
    type: string;
    column_names: string[];
    data: unknown[][];
  };
  assert.equal(shown.type, 'table');
  assert.deepEqual(shown.column_names, HEADER);
  assert.ok(shown.data.some((r) => r[7] === 'SHOW FULL PROCESSLIST' && r[6] === 'executing (http)'));
  assert.deepEqual(await sql('KILL 4000000000'), {
    type: 'error',
    error_code: 1094,
    error_message: 'Unknown thread id: 4000000000',
  });
});

test('a client that half-closes its socket while its statement runs cancels it at PostgreSQL', async () => {
  const c = await mysql.createConnection({ host: '127.0.0.1', port: fx.port, user: 'anyone' });
  c.query('SELECT s FROM pgs.slow_pg').catch(() => {});
  await waitFor(async () => (await pgRunning()) > 0, 'the statement reaches PostgreSQL');
  // FIN only: the client could still read, but it has said it will send nothing more.
  (c as unknown as { connection: { stream: import('node:net').Socket } }).connection.stream.end();
  await waitFor(
    async () => (await pgRunning()) === 0,
    'PostgreSQL stops the half-closed client’s statement',
    5000,
  );
  c.destroy();
});

test('a client that half-closes its socket while its statement runs cancels it at MariaDB', async () => {
  const c = await mysql.createConnection({ host: '127.0.0.1', port: fx.port, user: 'anyone' });
  c.query('SELECT s FROM mys.slow_my').catch(() => {});
  await waitFor(async () => (await mariaRunning()) > 0, 'the statement reaches MariaDB');
  (c as unknown as { connection: { stream: import('node:net').Socket } }).connection.stream.end();
  await waitFor(
    async () => (await mariaRunning()) === 0,
    'MariaDB stops the half-closed client’s statement',
    5000,
  );
  c.destroy();
});

test('a client that stops reading and half-closes cancels its statement at PostgreSQL', async () => {
  const c = await rawLogin(fx.port);
  // Not read: the server's writes back up until it waits on the socket.
  c.socket.pause();
  c.socket.write(comQuery('SELECT * FROM pgs.rows_pg'));
  await waitFor(async () => (await pgRunning('rows_pg')) > 0, 'the statement reaches PostgreSQL');
  await new Promise((r) => setTimeout(r, 1000));
  c.socket.end();
  await waitFor(async () => (await pgRunning('rows_pg')) === 0, 'PostgreSQL stops the statement', 5000);
  c.socket.destroy();
});
