/**
 * A statement that may have reached the server is never sent again: a MariaDB read whose
 * connection is killed while it runs answers 2013 and ran exactly once (a sequence counts
 * the runs). A connection that died while idle is still replaced without the caller noticing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import pino from 'pino';
import { SqlError } from '../../../src/core/errors.js';
import { parseEngineParams } from '../../../src/sources/params.js';
import { getEngine } from '../../../src/sources/registry.js';
import { collect, type Source } from '../../../src/sources/types.js';
import { createMariaDatabase, createPgDatabase, MARIADB, mariaExec, PG } from '../../helpers/services.js';

let db: { database: string; drop: () => Promise<void> };
let src: Source;
let admin: mysql.Connection;

before(async () => {
  db = await createMariaDatabase('fault_rerun');
  await mariaExec(db.database, 'CREATE SEQUENCE runs START WITH 1 INCREMENT BY 1');
  const spec = getEngine('mariadb');
  src = spec.create(
    'my',
    parseEngineParams(spec, { host: '127.0.0.1', user: 'root', database: db.database }),
    { storageDir: '/tmp', logger: pino({ level: 'silent' }) },
  );
  admin = await mysql.createConnection({ ...MARIADB, database: db.database });
});

after(async () => {
  await src?.close();
  await admin?.end();
  await db?.drop();
});

async function sourceThreads(): Promise<number[]> {
  const [rows] = await admin.query(
    "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE '%SLEEP(%' AND ID <> CONNECTION_ID()",
    [db.database],
  );
  return (rows as { ID: number }[]).map((r) => r.ID);
}

test('a read killed while it runs answers 2013 and is not run again', { timeout: 30_000 }, async () => {
  const running = src.query('SELECT NEXTVAL(runs) AS n, SLEEP(3) AS s').then(collect);
  running.catch(() => {}); // asserted below
  let ids: number[] = [];
  for (let i = 0; i < 100 && ids.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 30));
    ids = await sourceThreads();
  }
  assert.equal(ids.length, 1, 'the statement is running');
  await admin.query(`KILL CONNECTION ${ids[0]}`);
  await assert.rejects(running, (e: unknown) => {
    assert.ok(e instanceof SqlError, String(e));
    assert.equal(e.code, 2013, e.message);
    return true;
  });
  // Give a re-run (the old behaviour) time to start, then count the runs.
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(await sourceThreads(), []);
  const [rows] = await admin.query('SELECT NEXTVAL(runs) AS n');
  assert.equal(Number((rows as { n: number }[])[0].n), 2, 'the statement ran exactly once');
});

test('pooled connections killed while idle are replaced before a statement is sent', async () => {
  // Fill the pool with idle connections, kill them all, wait past the idle ping threshold.
  await Promise.all(Array.from({ length: 4 }, () => src.query('SELECT SLEEP(0.2)').then(collect)));
  const [rows] = await admin.query(
    "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID() AND COMMAND = 'Sleep'",
    [db.database],
  );
  for (const r of rows as { ID: number }[]) await admin.query(`KILL CONNECTION ${r.ID}`);
  await new Promise((r) => setTimeout(r, 1_200));
  const { rows: out } = await collect(await src.query('SELECT 42 AS x'));
  assert.equal(Number(out[0][0]), 42);
});

test('PostgreSQL: a statement whose backend is killed while it runs answers 2013 and is not run again', {
  timeout: 30_000,
}, async () => {
  const pgDb = await createPgDatabase('fault_rerun');
  const spec = getEngine('postgres');
  const pgSrc = spec.create(
    'pg',
    parseEngineParams(spec, { host: '127.0.0.1', user: 'postgres', database: pgDb.database }),
    { storageDir: '/tmp', logger: pino({ level: 'silent' }) },
  );
  const adminPg = new pg.Client({ ...PG, database: pgDb.database });
  await adminPg.connect();
  try {
    await adminPg.query('CREATE SEQUENCE runs');
    const running = pgSrc.query("SELECT nextval('runs') AS n, pg_sleep(3) AS s").then(collect);
    running.catch(() => {}); // asserted below
    let killed = 0;
    for (let i = 0; i < 100 && killed === 0; i++) {
      await new Promise((r) => setTimeout(r, 30));
      const r = await adminPg.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query LIKE '%pg_sleep(3)%' AND pid <> pg_backend_pid()",
        [pgDb.database],
      );
      killed = r.rowCount ?? 0;
    }
    assert.equal(killed, 1, 'the statement was running');
    await assert.rejects(running, (e: unknown) => e instanceof SqlError && e.code === 2013);
    await new Promise((r) => setTimeout(r, 300));
    const { rows } = await adminPg.query('SELECT last_value, is_called FROM runs');
    assert.deepEqual(rows[0], { last_value: '1', is_called: true }, 'the statement ran exactly once');
  } finally {
    await pgSrc.close();
    await adminPg.end();
    await pgDb.drop();
  }
});
