/**
 * SIGTERM drains (SPEC §13, docs/deploy.md): /mcp/status answers 503 at once on a kept
 * connection, a new connection is refused (HTTP and MySQL), statements in flight on every face
 * finish and are answered, MCP event streams are told to reconnect, and the process exits 0
 * within api.http.drain_ms. The slow statements are real ones, blocked behind a lock at a real
 * PostgreSQL, so when they finish is the test's to decide.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { pgParams } from '../../helpers/server.js';
import { createPgDatabase, PG, pgExec } from '../../helpers/services.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));
const storage = mkdtempSync(join(tmpdir(), 'fault-drain-'));
let pgDb: { database: string; drop: () => Promise<void> };

before(async () => {
  pgDb = await createPgDatabase('i30_drain');
  await pgExec(pgDb.database, 'CREATE TABLE t (x int); INSERT INTO t VALUES (1)');
});
after(async () => {
  await pgDb?.drop();
  rmSync(storage, { recursive: true, force: true });
});

interface Child {
  child: ChildProcess;
  url: string;
  mysqlPort: number;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startMain(drainMs: number): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: storage,
      TRIBUTARY_STORAGE_DIR: storage,
      TRIBUTARY_HTTP_HOST: '127.0.0.1',
      TRIBUTARY_HTTP_PORT: '0',
      TRIBUTARY_MYSQL_PORT: '0',
      TRIBUTARY_LOG_FORMAT: 'json',
      TRIBUTARY_HTTP_DRAIN_MS: String(drainMs),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      err += String(d);
      const m = /"url":"(http:\/\/[^"]+)","mysql_port":(\d+).*tributary listening/.exec(err);
      if (m) resolve({ child, url: m[1], mysqlPort: Number(m[2]), stderr: () => err, exited });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err.slice(-1000)}`)));
  });
}

async function sql(
  url: string,
  query: string,
): Promise<{ type: string; data?: unknown[][]; error_code?: number }> {
  const r = await fetch(`${url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return (await r.json()) as { type: string; data?: unknown[][]; error_code?: number };
}

/** GET over one kept-alive connection (opened before the drain), status and body. */
function keptGet(
  agent: http.Agent,
  url: string,
): Promise<{ status: number; body: string; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, retryAfter: res.headers['retry-after'] as string }),
        );
      })
      .on('error', reject);
  });
}

/** GET over a new connection. */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

/** A 2025-era Streamable HTTP session with its GET stream open; resolves the stream's whole text once it ends. */
async function openMcpStream(url: string): Promise<{ text: Promise<string> }> {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'drain-test', version: '1' },
      },
    }),
  });
  const session = init.headers.get('mcp-session-id');
  await init.text();
  assert.ok(session, 'initialize gave a session id');
  const h = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  const note = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: h,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await note.text();
  const stream = await fetch(`${url}/mcp`, { headers: { ...h, accept: 'text/event-stream' } });
  assert.equal(stream.status, 200);
  return { text: stream.text() };
}

async function waitForLockWaiters(admin: pg.Client, n: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await admin.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
      [pgDb.database],
    );
    if (r.rows[0].n >= n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  const all = await admin.query(
    'SELECT datname, state, wait_event_type, left(query, 60) AS q FROM pg_stat_activity',
  );
  throw new Error(`fewer than ${n} statements waited for the lock: ${JSON.stringify(all.rows)}`);
}

function refused(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'answered',
    (e: Error & { cause?: { code?: string }; code?: string }) => e.cause?.code ?? e.code ?? e.message,
  );
}

test('SIGTERM drains: 503 status at once, new connections refused, statements in flight finish, exit 0', {
  timeout: 60_000,
}, async () => {
  const drainMs = 15_000;
  const s = await startMain(drainMs);
  const created = await sql(
    s.url,
    `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgDb.database)}`,
  );
  assert.equal(created.type, 'ok');
  // Warm: the source's pool and the table's columns are known before the lock is taken.
  assert.equal((await sql(s.url, 'SELECT x FROM pg.t')).type, 'table');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  assert.equal((await keptGet(agent, `${s.url}/mcp/status`)).status, 200);
  const stream = await openMcpStream(s.url);
  const legacy = await fetch(`${s.url}/mcp/sse`, { headers: { accept: 'text/event-stream' } });
  assert.equal(legacy.status, 200);
  const legacyText = legacy.text();
  const my = await mysql.createConnection({ host: '127.0.0.1', port: s.mysqlPort, user: 'root' });
  const idleMy = await mysql.createConnection({ host: '127.0.0.1', port: s.mysqlPort, user: 'root' });
  const admin = new pg.Client({ ...PG, database: pgDb.database });
  await admin.connect();
  await admin.query('BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
  try {
    const overHttp = sql(s.url, 'SELECT x FROM pg.t WHERE x > 0');
    const overMysql = my.query('SELECT x AS n FROM pg.t WHERE x > 0');
    await waitForLockWaiters(admin, 2);

    const t0 = Date.now();
    s.child.kill('SIGTERM');
    // At once: the kept connection's health check says the replica is going.
    let status = await keptGet(agent, `${s.url}/mcp/status`);
    for (let i = 0; i < 50 && status.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 10));
      status = await keptGet(agent, `${s.url}/mcp/status`);
    }
    assert.equal(status.status, 503, status.body);
    assert.ok(Date.now() - t0 < 1000, `503 after ${Date.now() - t0} ms`);
    assert.equal(JSON.parse(status.body).status, 'draining');
    // New connections are refused (a proxy passes the request to another replica).
    assert.equal(await refused(freshGet(`${s.url}/mcp/status`)), 'ECONNREFUSED');
    assert.equal(
      await refused(mysql.createConnection({ host: '127.0.0.1', port: s.mysqlPort, user: 'root' })),
      'ECONNREFUSED',
    );
    // The MCP GET stream was told to reconnect and ended cleanly.
    const streamText = await stream.text;
    assert.match(streamText, /retry: \d+/);
    // The idle MySQL connection was ended; the busy one is still waiting for its answer.
    assert.notEqual(await refused(idleMy.query('SELECT 1')), 'answered');

    // The lock goes: the statements in flight finish and are answered.
    await new Promise((r) => setTimeout(r, 500));
    await admin.query('ROLLBACK');
    const h = await overHttp;
    assert.equal(h.type, 'table', JSON.stringify(h));
    assert.deepEqual(h.data, [[1]]);
    const [rows] = (await overMysql) as [{ n: number | string }[], unknown];
    assert.equal(Number(rows[0].n), 1);

    const code = await s.exited;
    const took = Date.now() - t0;
    assert.equal(code, 0, s.stderr().slice(-2000));
    assert.ok(took < drainMs, `exit took ${took} ms (drain_ms ${drainMs})`);
    // The legacy SSE stream (its answers travel on it) ended last, told to reconnect too.
    const lt = await legacyText;
    assert.match(lt, /event: endpoint/);
    assert.match(lt, /retry: \d+\n\n$/);
  } finally {
    await admin.query('ROLLBACK').catch(() => {});
    await admin.end();
    agent.destroy();
    my.destroy();
    idleMy.destroy();
    if (s.child.exitCode === null) s.child.kill('SIGKILL');
  }
});

test('a statement longer than drain_ms is cancelled cleanly (1053) and the process still exits 0', {
  timeout: 60_000,
}, async () => {
  const drainMs = 1_500;
  const s = await startMain(drainMs);
  await sql(s.url, `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgDb.database)}`);
  // Warm: the source's pool and the table's columns are known before the lock is taken.
  assert.equal((await sql(s.url, 'SELECT x FROM pg.t')).type, 'table');
  const admin = new pg.Client({ ...PG, database: pgDb.database });
  await admin.connect();
  await admin.query('BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE');
  try {
    const slow = sql(s.url, 'SELECT x FROM pg.t WHERE x > 0');
    await waitForLockWaiters(admin, 1);
    const t0 = Date.now();
    s.child.kill('SIGTERM');
    const answer = await slow;
    const code = await s.exited;
    const took = Date.now() - t0;
    assert.equal(answer.error_code, 1053, JSON.stringify(answer));
    assert.equal(code, 0, s.stderr().slice(-2000));
    assert.ok(took >= drainMs - 50, `cancelled after ${took} ms, before drain_ms`);
    assert.ok(took < drainMs + 5_000, `exit took ${took} ms`);
    await admin.query('ROLLBACK');
    // The backends of the closed pool go as PostgreSQL notices the sockets close.
    let left = -1;
    for (let i = 0; i < 60 && left !== 0; i++) {
      if (i) await new Promise((r) => setTimeout(r, 50));
      const r = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'tributary'",
        [pgDb.database],
      );
      left = r.rows[0].n;
    }
    const rows = await admin.query(
      "SELECT state, wait_event_type, left(query, 80) AS q FROM pg_stat_activity WHERE datname = $1 AND application_name = 'tributary'",
      [pgDb.database],
    );
    assert.equal(left, 0, `no session of the server is left at the source: ${JSON.stringify(rows.rows)}`);
  } finally {
    await admin.query('ROLLBACK').catch(() => {});
    await admin.end();
    if (s.child.exitCode === null) s.child.kill('SIGKILL');
  }
});
