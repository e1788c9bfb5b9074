/**
 * Profile Tributary's MCP `query` path: the real server as a child under `--cpu-prof`, a
 * fixed number of tool calls from the official SDK client, then the top functions by
 * self time (and by file) from the profile. Also times the same statement through
 * /api/sql/query, so the MCP layer's share is visible.
 *   node --import tsx bench/mcp-profile.ts [select_1|point_lookup|rows_1000] [calls] [concurrency]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgDatabase, pgExec } from '../test/helpers/services.js';
import { round, sleep, sql, startChildServer } from './lib.js';
import { callTool, closeClients, type LoadResult, mcpClients, runLoad } from './mcp-load.js';

const STATEMENTS: Record<string, (i: number) => string> = {
  select_1: () => 'SELECT 1',
  point_lookup: (i) =>
    `SELECT id, name, qty, price, created_at FROM pg.t WHERE id = ${((i * 7919) % 100000) + 1}`,
  rows_1000: (i) => {
    const k = ((i * 7919) % 99000) + 1;
    return `SELECT id, name, qty, price, created_at FROM pg.t WHERE id BETWEEN ${k} AND ${k + 999}`;
  },
};

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The package or src/ folder (two levels) a frame belongs to; undefined for node internals and the VM. */
function area(url: string): string | undefined {
  const u = url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '');
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(u);
  if (pkg) return pkg[1];
  if (u.startsWith('src/')) return u.split('/').slice(0, 3).join('/');
  return undefined;
}

/**
 * Busy time after `sinceUs` (V8's profile clock and process.hrtime are both
 * CLOCK_MONOTONIC on Linux, so start-up and warm-up are left out), by the function it was
 * spent in, and by owner: each sample goes to the nearest package or src/ frame on its
 * stack, so the node internals a caller drives (socket writes, streams) count as its cost.
 */
function summarize(path: string, top: number, sinceUs: number) {
  const prof = JSON.parse(readFileSync(path, 'utf8')) as {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
    startTime: number;
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const owners = new Map<string, number>();
  const ownerFns = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  const where = (f: Node['callFrame']) =>
    `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  let total = 0;
  let at = prof.startTime;
  prof.samples.forEach((id, i) => {
    const dt = prof.timeDeltas[i] ?? 0;
    at += dt;
    const leaf = byId.get(id)!.callFrame;
    if (at < sinceUs || leaf.functionName === '(idle)') return;
    total += dt;
    add(self, where(leaf), dt);
    let owner = `(${leaf.functionName || 'node internals'})`;
    let ownerFn = owner;
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      const a = area(f.url);
      if (a) {
        owner = a;
        ownerFn = where(f);
        break;
      }
    }
    add(owners, owner, dt);
    add(ownerFns, ownerFn, dt);
  });
  const fmt = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  return { functions: fmt(self), owners: fmt(owners), ownerFunctions: fmt(ownerFns) };
}

/** Like lib.ts startChildServer, with --cpu-prof (not allowed in NODE_OPTIONS, so on the command line). */
async function startProfiledServer(profDir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const storageDir = mkdtempSync(join(tmpdir(), 'tributary-bench-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const proc = spawn(
    process.execPath,
    ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--import', 'tsx', 'src/cli/main.ts'],
    {
      env: {
        ...process.env,
        TRIBUTARY_STORAGE_DIR: storageDir,
        TRIBUTARY_HTTP_HOST: '127.0.0.1',
        TRIBUTARY_HTTP_PORT: String(port),
        TRIBUTARY_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/api/status`)).status < 500) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error('profiled server did not start');
    await sleep(100);
  }
  return {
    url,
    stop: async () => {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000)]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
      rmSync(storageDir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const workload = process.argv[2] ?? 'point_lookup';
  const calls = Number(process.argv[3] ?? 2000);
  const concurrency = Number(process.argv[4] ?? 16);
  const stmt = STATEMENTS[workload];
  if (!stmt) throw new Error(`unknown workload ${workload}: ${Object.keys(STATEMENTS).join(', ')}`);
  const db = await createPgDatabase('bench_mcp_prof');
  const profDir = mkdtempSync(join(tmpdir(), 'tributary-mcp-prof-'));
  try {
    await pgExec(
      db.database,
      `CREATE TABLE t (id int PRIMARY KEY, name text, qty int, price numeric(10,2), created_at timestamptz);
       INSERT INTO t SELECT g, 'item-' || g, g % 97, round((g % 10000) / 7.0, 2),
         timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute' FROM generate_series(1, 100000) g;
       ANALYZE t;`,
    );
    const create = `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = {"host":"127.0.0.1","user":"postgres","database":"${db.database}"}`;
    // JIT warm-up matters: the first few hundred calls cost twice the steady state.
    const opts = { concurrency, calls, warmup: Math.max(300, Math.round(calls / 5)) };
    // Unprofiled: the same statement through /api/sql/query and through MCP, CPU per call of each.
    const plain = await startChildServer();
    let api: LoadResult;
    let mcp: LoadResult;
    try {
      await sql(plain.url, create);
      api = await runLoad((_w, i) => sql(plain.url, stmt(i)), { ...opts, serverPid: plain.pid });
      const clients = await mcpClients(`${plain.url}/mcp/streamable`, concurrency);
      mcp = await runLoad((w, i) => callTool(clients[w], 'query', { query: stmt(i) }), {
        ...opts,
        serverPid: plain.pid,
      });
      await closeClients(clients);
    } finally {
      await plain.stop();
    }
    console.log(JSON.stringify({ workload, calls, concurrency, api, mcp }, null, 1));
    console.log(
      `MCP layer server CPU per call: ${round(mcp.server_cpu_ms_per_call! - api.server_cpu_ms_per_call!, 3)} ms`,
    );
    // Profiled: MCP calls only (the profile is written when the server exits).
    const server = await startProfiledServer(profDir);
    let sinceUs = 0;
    try {
      await sql(server.url, create);
      const clients = await mcpClients(`${server.url}/mcp/streamable`, concurrency);
      // Warm-up first, so the summary covers steady state only.
      await runLoad((w, i) => callTool(clients[w], 'query', { query: stmt(i) }), {
        ...opts,
        calls: opts.warmup,
      });
      sinceUs = Number(process.hrtime.bigint() / 1000n);
      await runLoad((w, i) => callTool(clients[w], 'query', { query: stmt(i) }), opts);
      await closeClients(clients);
    } finally {
      await server.stop();
    }
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread.
    const file = readdirSync(profDir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
    if (!file) throw new Error(`no profile written in ${profDir}`);
    const s = summarize(join(profDir, file), 30, sinceUs);
    console.log(`profile: ${join(profDir, file)} (busy time after warm-up)`);
    console.log(`top functions (self time):\n${s.functions.join('\n')}`);
    console.log(`by owner (nearest package or src/ folder on the stack):\n${s.owners.join('\n')}`);
    console.log(`by owning function:\n${s.ownerFunctions.join('\n')}`);
  } finally {
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
