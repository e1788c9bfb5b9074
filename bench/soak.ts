/**
 * Soak (issue 19): MCP sessions and HTTP streams over a mixed workload for a while, with the
 * PostgreSQL source cut for 3 s in the middle (a TCP proxy between the server and PostgreSQL
 * is closed and reopened: the shared server itself is never stopped). Reports hung requests,
 * failures by error code, and the server process's RSS and open file descriptors after
 * warm-up and at the end.
 *
 *   npm run bench -- soak          (SOAK_SECONDS=60 by default)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'undici';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../test/helpers/services.js';
import { TcpProxy } from '../test/helpers/tcp-proxy.js';
import { sleep, startChildServer } from './lib.js';

const SESSIONS = 200;
const STREAMS = 20;

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : -1;
}
const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function mcpSession(url: string): Promise<string> {
  const r = await request(`${url}/mcp/streamable`, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'soak', version: '1' } },
    }),
  });
  await r.body.text();
  return String(r.headers['mcp-session-id']);
}

/** One tools/call; the error code of the answer (0 for a result), or 'transport' when the call itself failed. */
async function mcpCall(url: string, sid: string, id: number, sql: string): Promise<string> {
  const r = await request(`${url}/mcp/streamable`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'query', arguments: { query: sql } },
    }),
  });
  const text = await r.body.text();
  if (r.statusCode !== 200) return `http ${r.statusCode}`;
  const m = /"error_code":(\d+)/.exec(text);
  return m ? m[1] : '0';
}

async function streamOnce(url: string): Promise<string> {
  const r = await request(`${url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'SELECT id, s FROM pg.big' }),
  });
  const text = await r.body.text();
  const parsed = JSON.parse(text) as { type: string; error_code?: number; error?: { error_code: number } };
  if (parsed.type === 'error') return String(parsed.error_code);
  return parsed.error ? `${parsed.error.error_code} mid-stream` : '0';
}

export async function benchSoak(): Promise<unknown> {
  const seconds = Number(process.env.SOAK_SECONDS ?? 60);
  const pgDb = await createPgDatabase('bench_soak');
  const myDb = await createMariaDatabase('bench_soak');
  await pgExec(
    pgDb.database,
    'CREATE TABLE big AS SELECT g AS id, md5(g::text) AS s, g % 1000 AS k FROM generate_series(1, 200000) g; CREATE INDEX ON big (id); ANALYZE big',
  );
  await mariaExec(
    myDb.database,
    "CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(20)); INSERT INTO users SELECT seq, CONCAT('u', seq) FROM seq_1_to_1000",
  );
  const proxy = new TcpProxy(5432);
  const proxyPort = await proxy.start();
  const server = await startChildServer({ TRIBUTARY_QUERY_TIMEOUT_MS: '20000' });
  const url = server.url;
  const outcomes = new Map<string, number>();
  let phase = 'before_outage';
  const byPhase = new Map<string, Map<string, number>>();
  const count = (k: string) => {
    outcomes.set(k, (outcomes.get(k) ?? 0) + 1);
    const m = byPhase.get(phase) ?? new Map<string, number>();
    m.set(k, (m.get(k) ?? 0) + 1);
    byPhase.set(phase, m);
  };
  let pending = 0;
  const track = async (p: Promise<string>) => {
    pending++;
    try {
      count(await p);
    } catch (e) {
      count(`client ${(e as Error).message.slice(0, 40)}`);
    } finally {
      pending--;
    }
  };
  try {
    const ddl = async (q: string) =>
      (
        await request(`${url}/api/sql/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: q }),
        })
      ).body.text();
    await ddl(
      `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = {"host": "127.0.0.1", "port": ${proxyPort}, "user": "postgres", "database": "${pgDb.database}"}`,
    );
    await ddl(
      `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = {"host": "127.0.0.1", "port": 3306, "user": "root", "database": "${myDb.database}"}`,
    );
    const sessions = await Promise.all(Array.from({ length: SESSIONS }, () => mcpSession(url)));
    const queries = [
      (i: number) => `SELECT id, s FROM pg.big WHERE id = ${(i % 200000) + 1}`,
      (i: number) => `SELECT name FROM my.users WHERE id = ${(i % 1000) + 1}`,
      (i: number) =>
        `SELECT u.name, COUNT(*) FROM pg.big b JOIN my.users u ON u.id = b.k WHERE b.k = ${(i % 999) + 1} GROUP BY u.name`,
      () => 'SELECT k, COUNT(*) FROM pg.big GROUP BY k ORDER BY k LIMIT 5',
    ];
    let stop = false;
    let calls = 0;
    const sessionLoop = async (sid: string, n: number) => {
      let id = 10;
      while (!stop) {
        await track(mcpCall(url, sid, id++, queries[(n + id) % queries.length](n * 7919 + id)));
        calls++;
        await sleep(200 + (n % 50) * 10);
      }
    };
    const streamLoop = async () => {
      while (!stop) await track(streamOnce(url));
    };
    // Warm-up, then the baseline.
    const loops = [
      ...sessions.map((sid, n) => sessionLoop(sid, n)),
      ...Array.from({ length: STREAMS }, streamLoop),
    ];
    await sleep(Math.min(10_000, (seconds * 1000) / 6));
    const start = { rss_mb: rssMb(server.pid), fds: fds(server.pid) };
    await sleep((seconds * 1000) / 2);
    // PostgreSQL "goes down" for 3 s.
    phase = 'outage_3s';
    await proxy.stop();
    await sleep(3000);
    await proxy.start(proxyPort);
    // Answers that were in flight when it came back still count to the outage.
    await sleep(2000);
    phase = 'after_outage';
    await sleep((seconds * 1000) / 3);
    stop = true;
    const settled = await Promise.race([
      Promise.all(loops).then(() => true),
      sleep(60_000).then(() => false),
    ]);
    await sleep(2000);
    const end = { rss_mb: rssMb(server.pid), fds: fds(server.pid) };
    const failures = Object.fromEntries([...outcomes].filter(([k]) => k !== '0').sort());
    return {
      seconds,
      sessions: SESSIONS,
      streams: STREAMS,
      answered: [...outcomes.values()].reduce((a, b) => a + b, 0),
      ok: outcomes.get('0') ?? 0,
      failures_by_code: failures,
      outcomes_by_phase: Object.fromEntries(
        [...byPhase].map(([p, m]) => [p, Object.fromEntries([...m].sort())]),
      ),
      hung: settled ? pending : `${pending} (not settled 60 s after the end)`,
      start,
      end,
      rss_growth: `${Math.round(((end.rss_mb - start.rss_mb) / start.rss_mb) * 100)}%`,
      fd_growth: `${Math.round(((end.fds - start.fds) / start.fds) * 100)}%`,
      targets: { hung: 0, rss_growth: '<= 10%', fd_growth: '<= 10%' },
      mcp_calls: calls,
    };
  } finally {
    await server.stop();
    await proxy.stop().catch(() => {});
    await pgDb.drop();
    await myDb.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchSoak(), null, 2));
  process.exit(0);
}
