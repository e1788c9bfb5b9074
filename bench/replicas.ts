/**
 * `npm run bench -- replicas` (SPEC §13): what running replicas costs.
 * - Shared stores: the same server (one PostgreSQL catalog) with and without TRIBUTARY_REDIS_URL,
 *   interleaved, one MCP client at a time: the extra latency and server CPU of a plain `query`
 *   call (target: at most +0.3 ms) and of a cut answer, whose rows go to the result-handle store.
 * - Throughput: MCP calls/s of one server (direct) against two replicas behind the shipped nginx
 *   configuration (round-robin), 8 SDK clients. On a 2-core machine shared with the load
 *   generator, no gain is expected: it shows what nginx and the second process cost.
 */
import { randomBytes } from 'node:crypto';
import { replicaCluster } from '../test/helpers/replica-cluster.js';
import { createPgDatabase, ensureService, REDIS } from '../test/helpers/services.js';
import { ensureBuilt, round, startChildServer } from './lib.js';
import { type Call, callTool, closeClients, mcpClients, runInterleaved } from './mcp-load.js';

const MAX_ROWS = '10';

async function mcpCall(
  url: string,
  n: number,
  query: string,
): Promise<{ call: Call; close: () => Promise<void> }> {
  const clients = await mcpClients(`${url}/mcp`, n);
  return {
    call: (w) => callTool(clients[w], 'query', { query }),
    close: () => closeClients(clients),
  };
}

async function sharedStoreOverhead() {
  const catalog = await createPgDatabase('i30_bench_replicas');
  const env = {
    TRIBUTARY_CATALOG_URL: `postgres://postgres@127.0.0.1:5432/${catalog.database}`,
    TRIBUTARY_SECRET_KEY: randomBytes(32).toString('base64'),
    TRIBUTARY_MCP_MAX_ROWS: MAX_ROWS,
  };
  const local = await startChildServer(env);
  const shared = await startChildServer({
    ...env,
    TRIBUTARY_REDIS_URL: `redis://${REDIS.host}:${REDIS.port}`,
  });
  try {
    const csv = `n\n${Array.from({ length: 40 }, (_, i) => i).join('\n')}\n`;
    const up = await fetch(`${local.url}/api/files/nums`, {
      method: 'PUT',
      body: csv,
      headers: { 'content-type': 'text/csv' },
    });
    if (up.status !== 201) throw new Error(`upload failed: ${up.status} ${await up.text()}`);
    const out: Record<string, unknown> = {};
    for (const [label, query] of [
      ['plain_call', 'SELECT 1 AS one'],
      ['cut_answer_with_handle', 'SELECT n FROM files.nums'],
    ] as const) {
      const a = await mcpCall(local.url, 1, query);
      const b = await mcpCall(shared.url, 1, query);
      try {
        const [mem, red] = await runInterleaved(
          [
            { call: a.call, serverPid: local.pid },
            { call: b.call, serverPid: shared.pid },
          ],
          { concurrency: 1, calls: 3000, warmup: 1500, rounds: 5 },
        );
        out[label] = {
          in_memory: mem,
          redis: red,
          added_p50_ms: round(red.p50_ms - mem.p50_ms, 3),
          added_server_cpu_ms: round(
            (red.server_cpu_ms_per_call ?? 0) - (mem.server_cpu_ms_per_call ?? 0),
            3,
          ),
        };
      } finally {
        await a.close();
        await b.close();
      }
    }
    return out;
  } finally {
    await local.stop();
    await shared.stop();
    await catalog.drop();
  }
}

async function throughput() {
  const cluster = await replicaCluster('i30_bench_cluster', { TRIBUTARY_LOG_LEVEL: 'warn' }, { built: true });
  try {
    const a = await cluster.startReplica('a');
    await cluster.startReplica('b');
    await cluster.startNginx();
    const one = await mcpCall(a.url, 8, 'SELECT 1 AS one');
    const two = await mcpCall(cluster.url, 8, 'SELECT 1 AS one');
    try {
      const [single, pair] = await runInterleaved([{ call: one.call }, { call: two.call }], {
        concurrency: 8,
        calls: 6000,
        warmup: 3000,
        rounds: 3,
      });
      return { one_server_direct: single, two_replicas_behind_nginx: pair };
    } finally {
      await one.close();
      await two.close();
    }
  } finally {
    await cluster.stop();
  }
}

export async function benchReplicas() {
  await ensureService('redis');
  ensureBuilt();
  const overhead = await sharedStoreOverhead();
  const calls = await throughput();
  const plain = overhead.plain_call as { added_p50_ms: number };
  return {
    shared_store_overhead: overhead,
    throughput_mcp_8_clients: calls,
    targets: {
      added_ms_per_mcp_call: { target: 0.3, measured: plain.added_p50_ms, met: plain.added_p50_ms <= 0.3 },
    },
  };
}
