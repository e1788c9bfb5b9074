/**
 * A rolling restart behind the shipped deploy/nginx.conf (round-robin, no stickiness) loses no
 * request but for rare resets at the instant a listener closes (at most 1 in 1,000 here; measured
 * 0 to 6 of 9,000 to 14,000 calls at load 8 to 10 on 2 cores, see docs/deploy.md): HTTP clients and MCP clients (the SDK over Streamable HTTP, one 2025-era session each,
 * its requests alternating between replicas) keep sending statements through nginx while each of
 * two replicas in turn gets
 * SIGTERM, drains, exits 0 and is started again on its port. A draining replica refuses new
 * connections, which nginx passes to the other replica, POST included. Everything on loopback;
 * the replicas share one PostgreSQL catalog, one secret key and one Redis, as docs/deploy.md says.
 * Then the zero-loss procedure of docs/deploy.md: nginx with `keepalive_timeout 0`, each replica
 * marked `down` and nginx reloaded before its SIGTERM: nothing fails.
 */
import assert from 'node:assert/strict';
import { after, before, type TestContext, test } from 'node:test';
import { type ReplicaCluster, replicaCluster } from '../../helpers/replica-cluster.js';
import { connect } from '../mcp/helpers/clients.js';

let cluster: ReplicaCluster;

before(async () => {
  cluster = await replicaCluster('i30_drain_rolling');
});

after(async () => {
  await cluster?.stop();
});

async function rollingRestart(
  t: TestContext,
  markDown: boolean,
): Promise<{ answered: number; failures: string[] }> {
  let a = await cluster.startReplica('a');
  let b = await cluster.startReplica('b');
  await cluster.startNginx({ clientKeepAlive: !markDown });
  const url = cluster.url;

  let running = true;
  let ok = 0;
  const failures: string[] = [];
  const client = async () => {
    while (running) {
      try {
        const r = await fetch(`${url}/api/sql/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'SELECT 1 AS one' }),
        });
        const text = await r.text();
        const body = r.status === 200 ? (JSON.parse(text) as { type: string; data?: unknown[][] }) : null;
        if (body?.type === 'table' && body.data?.[0]?.[0] === 1) ok++;
        else failures.push(`${r.status} ${text.slice(0, 200)}`);
      } catch (e) {
        failures.push(String((e as Error)?.cause ?? e));
      }
    }
  };
  let mcpOk = 0;
  const mcpClient = async () => {
    const c = await connect('streamable', url);
    try {
      while (running) {
        try {
          const r = await c.client.callTool({ name: 'query', arguments: { query: 'SELECT 2 AS two' } });
          const result = JSON.parse(r.content[0].text as string);
          if (result.type === 'table' && result.data[0][0] === 2) mcpOk++;
          else failures.push(`mcp ${JSON.stringify(result).slice(0, 200)}`);
        } catch (e) {
          failures.push(`mcp ${String((e as Error)?.message ?? e)}`);
        }
      }
    } finally {
      await c.terminate().catch(() => {});
    }
  };
  const clients = [...Array.from({ length: 6 }, client), ...Array.from({ length: 2 }, mcpClient)];

  await new Promise((r) => setTimeout(r, 1000));
  for (const name of ['a', 'b'] as const) {
    const replica = name === 'a' ? a : b;
    if (markDown) await cluster.markDown(name);
    replica.child.kill('SIGTERM');
    assert.equal(await replica.exited, 0, `replica ${name} exits 0 after draining`);
    const again = await cluster.startReplica(name);
    if (name === 'a') a = again;
    else b = again;
    if (markDown) await cluster.markDown(null);
    // nginx tries a replica it saw refuse again after fail_timeout (5 s).
    await new Promise((r) => setTimeout(r, markDown ? 2000 : 6000));
  }
  running = false;
  await Promise.all(clients);
  a.child.kill('SIGTERM');
  b.child.kill('SIGTERM');
  await Promise.all([a.exited, b.exited]);

  t.diagnostic(
    `${ok} HTTP and ${mcpOk} MCP statements answered, ${failures.length} failed, through two rolling restarts`,
  );
  assert.ok(ok > 100, `${ok} statements answered`);
  assert.ok(mcpOk > 100, `${mcpOk} MCP calls answered`);
  return { answered: ok + mcpOk, failures };
}

test('rolling restart with SIGTERM alone: statements are answered, but for rare resets at close', {
  timeout: 180_000,
}, async (t) => {
  const { answered, failures } = await rollingRestart(t, false);
  // What a SIGTERM alone cannot avoid (docs/deploy.md): connections still in the listener's
  // backlog when it closes are reset after nginx sent their request, and nginx does not replay a
  // POST. They are rare, and 502 answers, never a hang or a wrong answer; anything else fails here.
  const unexpected = failures.filter((f) => !/^(mcp .*)?502\b|502 Bad Gateway/.test(f));
  assert.deepEqual(unexpected.slice(0, 5), [], `${failures.length} failed of ${answered + failures.length}`);
  assert.ok(failures.length <= answered / 1000, `${failures.length} reset at close of ${answered}`);
});

test('rolling restart with the replica marked down in nginx first: nothing fails', {
  timeout: 180_000,
}, async (t) => {
  // docs/deploy.md: mark it `down` and reload nginx, then SIGTERM; back in service once started.
  const { failures } = await rollingRestart(t, true);
  assert.deepEqual(failures.slice(0, 5), []);
});
