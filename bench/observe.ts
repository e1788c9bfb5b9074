/**
 * What the audit log and the metrics cost on the point-lookup MCP workload (issue 15): two
 * servers from one build against the same PostgreSQL table, one with nothing observed
 * (TRIBUTARY_METRICS_ENABLED=false, no audit log), one with both on (the audit log to a
 * file), measured in one run with the targets taking turns (mcp-load.ts runInterleaved).
 * Target: server CPU per call with both on at most 5% above the one with both off.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
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
    const servers = {
      off: await startChildServer({ TRIBUTARY_METRICS_ENABLED: 'false' }),
      on: await startChildServer({ TRIBUTARY_AUDIT_LOG: auditPath }),
    };
    cleanups.unshift(
      () => servers.off.stop(),
      () => servers.on.stop(),
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
      const [off, on] = await runInterleaved(targets, {
        concurrency: c,
        calls,
        warmup: Math.max(10, Math.round(calls / 20)),
        rounds: 3,
      });
      const overhead =
        off.server_cpu_ms_per_call && on.server_cpu_ms_per_call
          ? round(
              ((on.server_cpu_ms_per_call - off.server_cpu_ms_per_call) / off.server_cpu_ms_per_call) * 100,
              1,
            )
          : null;
      out[`point_lookup c=${c}`] = { observe_off: off, observe_on: on, cpu_overhead_pct: overhead };
      process.stderr.write(
        `bench observe: c=${c} off ${off.server_cpu_ms_per_call} ms/call, on ${on.server_cpu_ms_per_call} ms/call (${overhead}%)\n`,
      );
    }
    out.audit_log_bytes = statSync(auditPath).size;
    out.target = 'cpu_overhead_pct <= 5';
    return out;
  } finally {
    for (const c of cleanups) await c().catch(() => {});
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchObserve().then((r) => console.log(JSON.stringify(r, null, 2)));
}
