/**
 * SIGTERM with statements in flight (blocked behind a lock at the source) past api.http.drain_ms:
 * the process answers them 1053, leaves no session at the source, and exits 0 within seconds.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pgParams } from '../../helpers/server.js';
import { createPgDatabase, PG, pgExec } from '../../helpers/services.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));
const storage = mkdtempSync(join(tmpdir(), 'fault-shutdown-'));
let pgDb: { database: string; drop: () => Promise<void> };

before(async () => {
  pgDb = await createPgDatabase('fault_shutdown');
  await pgExec(pgDb.database, 'CREATE TABLE t (x int); INSERT INTO t VALUES (1)');
});
after(async () => {
  await pgDb?.drop();
  rmSync(storage, { recursive: true, force: true });
});

function startMain(): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: storage,
      TRIBUTARY_STORAGE_DIR: storage,
      TRIBUTARY_HTTP_HOST: '127.0.0.1',
      TRIBUTARY_HTTP_PORT: '0',
      TRIBUTARY_MYSQL_PORT: '0',
      TRIBUTARY_LOG_FORMAT: 'json',
      // Past the drain (drain.test.ts covers statements that finish within it).
      TRIBUTARY_HTTP_DRAIN_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      err += String(d);
      const m = /"url":"(http:\/\/[^"]+)".*tributary listening/.exec(err);
      if (m) resolve({ child, url: m[1], stderr: () => err });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err.slice(-1000)}`)));
  });
}

async function sql(url: string, query: string): Promise<{ type: string; error_code?: number }> {
  const r = await fetch(`${url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return (await r.json()) as { type: string; error_code?: number };
}

test('SIGTERM stops statements in flight (1053) and exits 0 promptly', { timeout: 60_000 }, async () => {
  const { child, url, stderr } = await startMain();
  assert.equal(
    (await sql(url, `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgDb.database)}`))
      .type,
    'ok',
  );
  const admin = new pg.Client({ ...PG, database: pgDb.database });
  await admin.connect();
  await admin.query('BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
  // Ten hold the pool's connections behind the lock; three more wait for the pool.
  const inFlight = Array.from({ length: 13 }, () => sql(url, 'SELECT COUNT(*) FROM pg.t'));
  for (let i = 0; i < 200; i++) {
    const r = await admin.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
      [pgDb.database],
    );
    if (r.rows[0].n >= 10) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const t0 = Date.now();
  child.kill('SIGTERM');
  const answers = await Promise.all(inFlight);
  const code = await exited;
  const took = Date.now() - t0;
  await admin.query('ROLLBACK');
  assert.equal(code, 0, stderr().slice(-2000));
  assert.ok(took < 10_000, `exit took ${took} ms`);
  for (const a of answers) assert.equal(a.error_code, 1053, JSON.stringify(a));
  const left = await admin.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'tributary'",
    [pgDb.database],
  );
  await admin.end();
  assert.equal(left.rows[0].n, 0, 'no session of the server is left at the source');
});
