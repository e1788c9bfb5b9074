/**
 * SPEC §10: the audit log (one JSON line per statement, literals masked, secrets never in
 * it) and GET /metrics (Prometheus text, behind a token when auth is on), through the real
 * server with token auth, over HTTP and MCP, against a real PostgreSQL source.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import mysql from 'mysql2/promise';
import { pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createPgDatabase, pgExec } from '../../helpers/services.js';
import { connect, resultOf } from '../mcp/helpers/clients.js';

const USER = 'auditor';
const PASSWORD = 'pw-0123456789-audit';
let dir = '';
let logPath = '';
let server: TestServer;
let db: { database: string; drop: () => Promise<void> };
let token = '';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-audit-'));
  logPath = join(dir, 'audit.jsonl');
  db = await createPgDatabase('audit');
  await pgExec(
    db.database,
    "CREATE TABLE people (id int, email text); INSERT INTO people VALUES (1, 'ann@example.com')",
  );
  server = await startTestServer({
    TRIBUTARY_AUDIT_LOG: logPath,
    TRIBUTARY_USERNAME: USER,
    TRIBUTARY_PASSWORD: PASSWORD,
  });
  const login = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: USER, password: PASSWORD }),
  });
  token = ((await login.json()) as { token: string }).token;
});

after(async () => {
  await server?.stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function sql(query: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as Record<string, unknown>;
}

async function auditLines(n: number): Promise<Record<string, unknown>[]> {
  for (let i = 0; i < 100; i++) {
    const lines = readFileSync(logPath, 'utf8').split('\n').filter(Boolean);
    if (lines.length >= n) return lines.map((l) => JSON.parse(l));
    await sleep(20);
  }
  assert.fail(`fewer than ${n} audit lines`);
}

test('one JSON line per statement: who, how, where, what (masked), rows, duration, error', async () => {
  const secretDb = `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(db.database).replace('"password":""', '"password":"s3cret-in-params"')}`;
  // The password is wrong for nothing: PostgreSQL trusts local connections.
  assert.equal((await sql(secretDb)).type, 'ok');
  assert.equal((await sql("SELECT id FROM pg.people WHERE email = 'ann@example.com'")).type, 'table');
  assert.equal((await sql('SELECT nope FROM pg.people')).type, 'error');
  const mcp = await connect('streamable', server.url, { authorization: `Bearer ${token}` });
  try {
    const r = resultOf(
      await mcp.client.callTool({
        name: 'query',
        arguments: { query: 'SELECT count(*) AS n FROM pg.people' },
      }),
    );
    assert.deepEqual(r, { type: 'table', column_names: ['n'], data: [[1]] });
  } finally {
    await mcp.terminate();
  }
  const wire = await mysql.createConnection({
    host: '127.0.0.1',
    port: server.mysql!.port,
    user: USER,
    password: PASSWORD,
  });
  try {
    const [rows] = await wire.query("SELECT id FROM pg.people WHERE email = 'ann@example.com'");
    assert.equal((rows as unknown[]).length, 1);
  } finally {
    await wire.end();
  }
  const lines = (await auditLines(5)).filter((l) => l.transport !== 'mysql' || l.kind === 'SELECT');
  const text = readFileSync(logPath, 'utf8');
  assert.doesNotMatch(text, /s3cret-in-params|ann@example\.com|pw-0123456789/);
  assert.equal(statSync(logPath).mode & 0o777, 0o600);
  const [create, select, failed, viaMcp] = lines;
  const viaWire = lines.find((l) => l.transport === 'mysql');
  assert.deepEqual(Object.keys(select).sort(), [
    'affected_rows',
    'duration_ms',
    'error_code',
    'kind',
    'principal',
    'rows',
    'sources',
    'sql',
    'time',
    'transport',
    'truncated',
  ]);
  assert.equal(create.kind, 'CREATE');
  assert.match(String(create.sql), /PARAMETERS = \{\?:\?/);
  assert.deepEqual(
    { ...select, time: undefined, duration_ms: undefined },
    {
      time: undefined,
      duration_ms: undefined,
      principal: USER,
      transport: 'http',
      sources: ['pg'],
      kind: 'SELECT',
      sql: 'SELECT id FROM pg.people WHERE email = ?',
      rows: 1,
      affected_rows: null,
      truncated: false,
      error_code: null,
    },
  );
  assert.ok(typeof select.duration_ms === 'number' && select.duration_ms >= 0);
  assert.ok(!Number.isNaN(Date.parse(String(select.time))));
  assert.equal(failed.error_code, 1054);
  assert.equal(viaMcp.transport, 'mcp');
  assert.equal(viaMcp.principal, USER);
  assert.equal(viaMcp.rows, 1);
  // The MySQL listener is a face like the others: its statements are audited too.
  assert.deepEqual(
    { ...viaWire, time: undefined, duration_ms: undefined },
    { ...select, time: undefined, duration_ms: undefined, transport: 'mysql' },
  );
});

test('GET /metrics: Prometheus text behind the token, with statements, latency, rows, bytes and pools', async () => {
  const anonymous = await fetch(`${server.url}/metrics`);
  assert.equal(anonymous.status, 401);
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? Number.NaN);
  assert.ok(value(/tributary_statements_total\{kind="SELECT",outcome="ok",transport="http"\} (\d+)/) >= 1);
  assert.ok(value(/tributary_statements_total\{kind="SELECT",outcome="error",transport="http"\} (\d+)/) >= 1);
  assert.ok(value(/tributary_statements_total\{kind="SELECT",outcome="ok",transport="mcp"\} (\d+)/) >= 1);
  assert.ok(value(/tributary_statements_total\{kind="SELECT",outcome="ok",transport="mysql"\} (\d+)/) >= 1);
  assert.ok(value(/tributary_statement_duration_seconds_count\{kind="SELECT",transport="http"\} (\d+)/) >= 2);
  assert.ok(value(/tributary_rows_total\{transport="http"\} (\d+)/) >= 1);
  assert.ok(value(/tributary_result_bytes_total\{transport="mcp"\} (\d+)/) > 10);
  assert.ok(value(/tributary_result_bytes_total\{transport="http"\} (\d+)/) > 10);
  assert.equal(value(/tributary_source_pool_connections_max\{source="pg"\} (\d+)/), 10);
  assert.equal(value(/tributary_source_pool_connections_in_use\{source="pg"\} (\d+)/), 0);
  assert.ok(
    value(/tributary_http_requests_total\{method="POST",route="\/api\/sql\/query",status="200"\} (\d+)/) >= 3,
  );
  assert.match(text, /tributary_process_cpu_seconds_total/);
});
