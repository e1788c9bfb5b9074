/**
 * MCP benchmarks (issue 3), side by side in one run against the same PostgreSQL table:
 * Tributary's `query` tool over Streamable HTTP, DBHub's `execute_sql` over its HTTP
 * transport (same official SDK client, one session per concurrent worker), and the pg
 * driver directly. For `SELECT 1`, a point lookup by primary key and a 1,000-row range, at
 * concurrency 1 and 16: calls/s, p50/p99 latency, and each server's CPU per call from
 * /proc (on two cores the client costs about as much CPU as the server, so CPU per call
 * is the fair measure). Then `--mcp-stdio` start-up to the first `tools/list` answer.
 * Targets: Tributary CPU/call ≤ ½ DBHub's for every workload; calls/s ≥ DBHub's at c=16;
 * point lookup p50 at c=1 within 2 ms of the driver; stdio start-up < 500 ms. The targets take
 * turns round by round (mcp-load.ts runInterleaved).
 */
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { createPgDatabase, PG, pgExec } from '../test/helpers/services.js';
import { round, sql, startChildServer } from './lib.js';
import {
  type Call,
  callTool,
  closeClients,
  type LoadResult,
  mcpClients,
  runInterleaved,
  warmUpUntilSteady,
} from './mcp-load.js';
import { DBHUB_VERSION, startDbhub } from './mcp-procs.js';
import { benchStdio } from './mcp-stdio.js';

const ROWS = 100_000;
const COLS = 'id, name, qty, price, created_at';
/** BENCH_MCP_SCALE=0.2 for a quick look; 1 keeps the whole suite under about 3 minutes. */
const SCALE = Number(process.env.BENCH_MCP_SCALE ?? 1) || 1;
const CONCURRENCY = [1, 16] as const;

interface Workload {
  name: string;
  /** The statement for call `i`, with `table` as the target names it. */
  sql(table: string, i: number): string;
  rows: number;
  calls: Record<(typeof CONCURRENCY)[number], number>;
}

// Keys spread over the table, the same sequence for every target.
const key = (i: number, span: number) => ((i * 7919) % span) + 1;

const WORKLOADS: Workload[] = [
  { name: 'select_1', sql: () => 'SELECT 1', rows: 1, calls: { 1: 2400, 16: 3000 } },
  {
    name: 'point_lookup',
    sql: (t, i) => `SELECT ${COLS} FROM ${t} WHERE id = ${key(i, ROWS)}`,
    rows: 1,
    calls: { 1: 2400, 16: 3000 },
  },
  {
    name: 'rows_1000',
    sql: (t, i) => {
      const k = key(i, ROWS - 1000);
      return `SELECT ${COLS} FROM ${t} WHERE id BETWEEN ${k} AND ${k + 999}`;
    },
    rows: 1000,
    calls: { 1: 600, 16: 900 },
  },
];

type TargetName = 'driver' | 'tributary' | 'dbhub';

interface Target {
  name: TargetName;
  pid?: number;
  call(w: Workload): Call;
  /** One call outside the measurement: checks the row count and sizes the answer. */
  probe(w: Workload): Promise<number>;
}

function rowsOfTributary(r: any): number {
  const res = r.structuredContent?.result;
  if (res?.type !== 'table' || res.truncated)
    throw new Error(`tributary: unexpected result ${JSON.stringify(res).slice(0, 200)}`);
  return res.data.length;
}

function rowsOfDbhub(r: any): number {
  const body = JSON.parse(r.content[0].text);
  if (!body.success) throw new Error(`dbhub: ${r.content[0].text.slice(0, 200)}`);
  return body.data.statements[0].rows.length;
}

function checkRows(target: string, w: Workload, n: number): void {
  if (n !== w.rows) throw new Error(`${target} ${w.name}: ${n} rows, expected ${w.rows}`);
}

export async function benchMcp(): Promise<Record<string, unknown>> {
  const db = await createPgDatabase('bench_mcp');
  const cleanups: (() => Promise<unknown>)[] = [db.drop];
  try {
    await pgExec(
      db.database,
      `CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL, qty int NOT NULL, price numeric(10,2) NOT NULL,
                       created_at timestamptz NOT NULL);
       INSERT INTO t SELECT g, 'item-' || g, g % 97, round((g % 10000) / 7.0, 2),
                            timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute'
         FROM generate_series(1, ${ROWS}) g;
       ANALYZE t;`,
    );

    const server = await startChildServer();
    cleanups.unshift(() => server.stop());
    const status = await fetch(`${server.url}/mcp/status`);
    if (status.status !== 200)
      throw new Error(`GET /mcp/status is ${status.status}: MCP routes are not wired`);
    await sql(
      server.url,
      `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = {"host":"127.0.0.1","port":5432,"user":"postgres","database":"${db.database}"}`,
    );
    const dbhub = await startDbhub(`postgres://postgres@127.0.0.1:5432/${db.database}?sslmode=disable`);
    cleanups.unshift(() => dbhub.stop());

    const maxC = Math.max(...CONCURRENCY);
    // Same pool size as Tributary's postgres source and DBHub's (pg's default): 10.
    const pool = new pg.Pool({ ...PG, database: db.database, max: 10 });
    cleanups.unshift(() => pool.end());
    const tribClients = await mcpClients(`${server.url}/mcp/streamable`, maxC);
    cleanups.unshift(() => closeClients(tribClients));
    const hubClients = await mcpClients(dbhub.url, maxC);
    cleanups.unshift(() => closeClients(hubClients));

    const targets: Target[] = [
      {
        name: 'driver',
        call: (w) => (_c, i) => pool.query(w.sql('t', i)),
        probe: async (w) => {
          const r = await pool.query(w.sql('t', 7));
          checkRows('driver', w, r.rows.length);
          return 0;
        },
      },
      {
        name: 'tributary',
        pid: server.pid,
        call: (w) => (c, i) => callTool(tribClients[c], 'query', { query: w.sql('pg.t', i) }),
        probe: async (w) => {
          const r = await callTool(tribClients[0], 'query', { query: w.sql('pg.t', 7) });
          checkRows('tributary', w, rowsOfTributary(r));
          return JSON.stringify(r).length;
        },
      },
      {
        name: 'dbhub',
        pid: dbhub.pid,
        call: (w) => (c, i) => callTool(hubClients[c], 'execute_sql', { sql: w.sql('t', i) }),
        probe: async (w) => {
          const r = await callTool(hubClients[0], 'execute_sql', { sql: w.sql('t', 7) });
          checkRows('dbhub', w, rowsOfDbhub(r));
          return JSON.stringify(r).length;
        },
      },
    ];

    // JIT warm-up of every target on every workload before anything is measured, until its
    // CPU per call is steady (the same rule for every target; mcp-load.ts warmUpUntilSteady).
    const load0 = loadavg()[0];
    const warmupCalls: Record<string, Record<string, number>> = {};
    for (const t of targets) {
      warmupCalls[t.name] = {};
      for (const w of WORKLOADS) {
        await t.probe(w);
        warmupCalls[t.name][w.name] = await warmUpUntilSteady(t.call(w), {
          concurrency: maxC,
          perRound: Math.max(20, Math.round((w.rows > 1 ? 150 : 600) * SCALE)),
          serverPid: t.pid,
        });
      }
    }
    process.stderr.write(`bench mcp: warm-up calls until steady ${JSON.stringify(warmupCalls)}\n`);

    const results: Record<string, Record<TargetName, LoadResult & { result_bytes?: number }>> = {};
    for (const w of WORKLOADS) {
      for (const c of CONCURRENCY) {
        const bytes = new Map<TargetName, number>();
        for (const t of targets) bytes.set(t.name, await t.probe(w));
        const calls = Math.max(20, Math.round(w.calls[c] * SCALE));
        // The targets take turns round by round, so a disturbance hits all of them alike.
        const measured = await runInterleaved(
          targets.map((t) => ({ call: t.call(w), serverPid: t.pid })),
          { concurrency: c, calls, warmup: Math.max(10, Math.round(calls / 20)), rounds: 3 },
        );
        const row = {} as Record<TargetName, LoadResult & { result_bytes?: number }>;
        targets.forEach((t, i) => {
          const r = measured[i];
          const b = bytes.get(t.name);
          row[t.name] = b ? { ...r, result_bytes: b } : r;
          process.stderr.write(
            `bench mcp: ${w.name} c=${c} ${t.name}: ${r.calls_per_s}/s p50 ${r.p50_ms} ms cpu ${r.server_cpu_ms_per_call ?? '-'} ms\n`,
          );
        });
        results[`${w.name} c=${c}`] = row;
      }
    }

    // Stop the HTTP servers first so the start-up timing has the machine to itself.
    for (const f of cleanups.splice(0, cleanups.length - 1)) await f().catch(() => {});
    const stdio = await benchStdio();

    const targetsMet = checkTargets(results);
    process.stderr.write(formatTable(results, targetsMet, stdio));
    return {
      rows_in_table: ROWS,
      // Other work on the machine inflates every figure; CPU per call suffers least.
      load_average: { start: round(load0, 2), end: round(loadavg()[0], 2), cores: cpus().length },
      dbhub_version: DBHUB_VERSION,
      warmup_calls_until_steady: warmupCalls,
      client: '@modelcontextprotocol/sdk Client + StreamableHTTPClientTransport, one session per worker',
      results,
      targets: targetsMet,
      stdio,
    };
  } finally {
    for (const f of cleanups) await f().catch(() => {});
  }
}

function checkTargets(results: Record<string, Record<TargetName, LoadResult>>): Record<string, unknown> {
  const cpu: Record<string, unknown> = {};
  const throughput: Record<string, unknown> = {};
  for (const [k, r] of Object.entries(results)) {
    const ratio = r.tributary.server_cpu_ms_per_call! / r.dbhub.server_cpu_ms_per_call!;
    cpu[k] = { ratio: round(ratio, 2), ok: ratio <= 0.5 };
    if (k.endsWith('c=16')) {
      const x = r.tributary.calls_per_s / r.dbhub.calls_per_s;
      throughput[k] = { ratio: round(x, 2), ok: x >= 1 };
    }
  }
  const point = results['point_lookup c=1'];
  const added = point.tributary.p50_ms - point.driver.p50_ms;
  return {
    cpu_per_call_vs_dbhub: { target: '<= 0.5', ...cpu },
    calls_per_s_vs_dbhub_c16: { target: '>= 1', ...throughput },
    point_lookup_c1_p50_added_ms: { target: '<= 2', value: round(added, 3), ok: added <= 2 },
  };
}

function formatTable(
  results: Record<string, Record<TargetName, LoadResult & { result_bytes?: number }>>,
  targets: Record<string, any>,
  stdio: Record<string, unknown>,
): string {
  const head = [
    'workload',
    'target',
    'calls/s',
    'p50 ms',
    'p99 ms',
    'srv cpu ms/call',
    'client cpu ms/call',
    'bytes',
  ];
  const lines: string[][] = [head];
  for (const [k, row] of Object.entries(results)) {
    for (const t of ['driver', 'tributary', 'dbhub'] as const) {
      const r = row[t];
      lines.push([
        k,
        t,
        String(r.calls_per_s),
        r.p50_ms.toFixed(2),
        r.p99_ms.toFixed(2),
        r.server_cpu_ms_per_call === undefined ? '-' : r.server_cpu_ms_per_call.toFixed(3),
        r.client_cpu_ms_per_call.toFixed(3),
        r.result_bytes === undefined ? '-' : String(r.result_bytes),
      ]);
    }
    const cpu = targets.cpu_per_call_vs_dbhub[k];
    const tp = targets.calls_per_s_vs_dbhub_c16[k];
    lines.push([
      '',
      'target',
      tp ? `${tp.ratio}x ${tp.ok ? 'ok' : 'MISS'} (>=1x)` : '',
      '',
      '',
      `${cpu.ratio}x ${cpu.ok ? 'ok' : 'MISS'} (<=0.5x)`,
      '',
      '',
    ]);
  }
  const widths = head.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  const out = lines.map((l) =>
    l
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
  const p = targets.point_lookup_c1_p50_added_ms;
  out.push(`point lookup c=1: tributary p50 - driver p50 = ${p.value} ms ${p.ok ? 'ok' : 'MISS'} (<= 2 ms)`);
  out.push(
    `stdio spawn -> tools/list (median of ${stdio.runs}): built ${stdio.built_ms ?? '-'} ms, tsx ${stdio.tsx_ms} ms ${stdio.meets_target ? 'ok' : 'MISS'} (< 500 ms)`,
  );
  return `${out.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchMcp().then(
    (r) => {
      console.log(JSON.stringify(r, null, 2));
      process.exit(0);
    },
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
