/**
 * What the audit log and the metrics cost on the point-lookup MCP workload (issue 15): two
 * servers from one build against the same PostgreSQL table, one with nothing observed
 * (TRIBUTARY_METRICS_ENABLED=false, no audit log), one with both on (the audit log to a
 * file), measured in one run with the targets taking turns (mcp-load.ts runInterleaved) in
 * nine short rounds each: on this shared machine a disturbance often spans a whole round
 * (c=16 throughput of one target halved in one of three), and the median of nine is the
 * figure such a round moves least.
 * Target: server CPU per call with both on at most 5% above the one with both off.
 *
 * A third server has traces on as well (OTEL_EXPORTER_OTLP_ENDPOINT), exporting to a collector
 * stand-in in this process on 127.0.0.1 that reads and drops what it gets: what a span per
 * statement and per fragment costs on top (no target; traces are opt-in).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgDatabase, pgExec } from '../test/helpers/services.js';
import { round, sql, startChildServer } from './lib.js';
import { callTool, closeClients, mcpClients, runInterleaved, warmUpUntilSteady } from './mcp-load.js';

const ROWS = 100_000;
const SCALE = Number(process.env.BENCH_MCP_SCALE ?? 1) || 1;

export async function benchObserve(): Promise<Record<string, unknown>> {
  const db = await createPgDatabase('bench_observe');
  const dir = mkdtempSync(join(tmpdir(), 'tributary-bench-audit-'));
  const cleanups: (() => Promise<unknown>)[] = [
    db.drop,
    async () => rmSync(dir, { recursive: true, force: true }),
  ];
  try {
    await pgExec(
      db.database,
      `CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL, qty int NOT NULL);
       INSERT INTO t SELECT g, 'item-' || g, g % 97 FROM generate_series(1, ${ROWS}) g; ANALYZE t;`,
    );
    const auditPath = join(dir, 'audit.jsonl');
    let traceBytes = 0;
    let tracePosts = 0;
    const collector = createServer((req, res) => {
      req.on('data', (c: Buffer) => {
        traceBytes += c.length;
      });
      req.on('end', () => {
        tracePosts++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => collector.close(r)));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    // Empty counts as unset: an OTEL_ variable of the bench's own environment must not leak in.
    const noTraces = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };
    const servers = {
      off: await startChildServer({ ...noTraces, TRIBUTARY_METRICS_ENABLED: 'false' }),
      on: await startChildServer({ ...noTraces, TRIBUTARY_AUDIT_LOG: auditPath }),
      traced: await startChildServer({
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
        TRIBUTARY_AUDIT_LOG: join(dir, 'audit-traced.jsonl'),
      }),
    };
    cleanups.unshift(
      () => servers.off.stop(),
      () => servers.on.stop(),
      () => servers.traced.stop(),
    );
    const targets = [];
    for (const [name, s] of Object.entries(servers)) {
      await sql(
        s.url,
        `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = {"host":"127.0.0.1","port":5432,"user":"postgres","database":"${db.database}"}`,
      );
      const clients = await mcpClients(`${s.url}/mcp/streamable`, 16);
      cleanups.unshift(() => closeClients(clients));
      const call = (c: number, i: number) =>
        callTool(clients[c], 'query', {
          query: `SELECT id, name, qty FROM pg.t WHERE id = ${((i * 7919) % ROWS) + 1}`,
        });
      await warmUpUntilSteady(call, { concurrency: 16, perRound: Math.round(600 * SCALE), serverPid: s.pid });
      targets.push({ name, call, serverPid: s.pid });
    }
    const out: Record<string, unknown> = {};
    for (const c of [1, 16]) {
      const calls = Math.max(20, Math.round((c === 1 ? 2400 : 3000) * SCALE));
      const [off, on, traced] = await runInterleaved(targets, {
        concurrency: c,
        calls,
        warmup: Math.max(10, Math.round(calls / 20)),
        rounds: 9,
      });
      const overhead = pctAbove(on.server_cpu_ms_per_call, off.server_cpu_ms_per_call);
      const tracedOverhead = pctAbove(traced.server_cpu_ms_per_call, off.server_cpu_ms_per_call);
      out[`point_lookup c=${c}`] = {
        observe_off: off,
        observe_on: on,
        observe_on_traced: traced,
        cpu_overhead_pct: overhead,
        traced_cpu_overhead_pct: tracedOverhead,
        traces_over_audit_metrics_pct: pctAbove(traced.server_cpu_ms_per_call, on.server_cpu_ms_per_call),
      };
      process.stderr.write(
        `bench observe: c=${c} off ${off.server_cpu_ms_per_call} ms/call, on ${on.server_cpu_ms_per_call} ms/call (${overhead}%), traced ${traced.server_cpu_ms_per_call} ms/call (${tracedOverhead}%)\n`,
      );
    }
    out.audit_log_bytes = statSync(auditPath).size;
    out.trace_export = { posts: tracePosts, bytes: traceBytes };
    out.target = 'cpu_overhead_pct <= 5 (audit + metrics); traces: reported only';
    return out;
  } finally {
    for (const c of cleanups) await c().catch(() => {});
  }
}

/** How far `x` is above `base`, in percent (null when either is unknown). */
function pctAbove(x: number | null | undefined, base: number | null | undefined): number | null {
  return x && base ? round(((x - base) / base) * 100, 1) : null;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchObserve().then((r) => console.log(JSON.stringify(r, null, 2)));
}
