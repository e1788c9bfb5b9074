/**
 * A rolling restart behind the shipped deploy/nginx.conf (round-robin, no stickiness) loses no
 * request but for rare resets at the instant a listener closes (at most 1 in 1,000 here; measured
 * 0 to 6 of 9,000 to 14,000 calls at load 8 to 10 on 2 cores, see docs/deploy.md): HTTP clients and MCP clients (the SDK over Streamable HTTP, one 2025-era session each,
 * its requests alternating between replicas) keep sending statements through nginx while each of
 * two replicas in turn gets
 * SIGTERM, drains, exits 0 and is started again on its port. A draining replica refuses new
 * connections, which nginx passes to the other replica, POST included. Everything on loopback;
 * the replicas share one PostgreSQL catalog, one secret key and one Redis, as docs/deploy.md says.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPgDatabase, ensureService, REDIS } from '../../helpers/services.js';
import { connect } from '../mcp/helpers/clients.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));
const NGINX_CONF = fileURLToPath(new URL('../../../deploy/nginx.conf', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'i30-drain-rolling-'));
// Below Linux's ephemeral range, so no client socket holds a port a replica restarts on.
const base = 20000 + 4 * Math.floor(Math.random() * 3000);
const ports = { nginx: base, a: base + 1, b: base + 2 };
let catalog: { database: string; drop: () => Promise<void> };
let nginx: ChildProcess | null = null;
const env: Record<string, string> = {};

before(async () => {
  await ensureService('redis');
  catalog = await createPgDatabase('i30_drain_rolling');
  Object.assign(env, {
    PATH: process.env.PATH ?? '',
    HOME: work,
    TRIBUTARY_CATALOG_URL: `postgres://postgres@127.0.0.1:5432/${catalog.database}`,
    TRIBUTARY_SECRET_KEY: randomBytes(32).toString('base64'),
    TRIBUTARY_REDIS_URL: `redis://${REDIS.host}:${REDIS.port}`,
    TRIBUTARY_HTTP_HOST: '127.0.0.1',
    TRIBUTARY_MYSQL_ENABLED: 'false',
    TRIBUTARY_LOG_FORMAT: 'json',
    TRIBUTARY_LOG_LEVEL: 'warn',
    TRIBUTARY_HTTP_DRAIN_MS: '5000',
  });
});

after(async () => {
  nginx?.kill('SIGQUIT');
  await catalog?.drop();
  rmSync(work, { recursive: true, force: true });
});

interface Replica {
  child: ChildProcess;
  exited: Promise<number | null>;
}

async function startReplica(name: 'a' | 'b'): Promise<Replica> {
  const storage = join(work, name);
  mkdirSync(storage, { recursive: true });
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...env, TRIBUTARY_STORAGE_DIR: storage, TRIBUTARY_HTTP_PORT: String(ports[name]) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const until = Date.now() + 30_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${ports[name]}/mcp/status`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) return { child, exited };
    if (child.exitCode !== null || Date.now() > until) throw new Error(`replica ${name} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** nginx with the shipped configuration, its upstreams and listener moved to loopback ports. */
function startNginx(): ChildProcess {
  const prefix = join(work, 'nginx');
  mkdirSync(prefix, { recursive: true });
  chmodSync(work, 0o755);
  chmodSync(prefix, 0o777);
  const conf = readFileSync(NGINX_CONF, 'utf8')
    .replace('tributary-1:47334', `127.0.0.1:${ports.a}`)
    .replace('tributary-2:47334', `127.0.0.1:${ports.b}`)
    .replace('listen 8080;', `listen 127.0.0.1:${ports.nginx};`)
    .replace(
      'http {',
      `http {\n  access_log off;\n${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
        .map((k) => `  ${k}_temp_path ${prefix}/${k};`)
        .join('\n')}`,
    );
  const file = join(prefix, 'nginx.conf');
  writeFileSync(file, conf);
  const globals = `pid ${prefix}/nginx.pid; error_log ${prefix}/error.log; daemon off;`;
  const check = spawnSync('nginx', ['-t', '-p', prefix, '-c', file, '-g', globals], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
  return spawn('nginx', ['-p', prefix, '-c', file, '-g', globals], { stdio: 'ignore' });
}

test('rolling restart of two replicas behind nginx: statements are answered, but for rare resets at close', {
  timeout: 180_000,
}, async (t) => {
  let a = await startReplica('a');
  let b = await startReplica('b');
  nginx = startNginx();
  const url = `http://127.0.0.1:${ports.nginx}`;
  for (let i = 0; (await fetch(`${url}/mcp/status`).catch(() => null))?.status !== 200; i++) {
    assert.ok(i < 100, 'nginx did not start');
    await new Promise((r) => setTimeout(r, 100));
  }

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
    replica.child.kill('SIGTERM');
    assert.equal(await replica.exited, 0, `replica ${name} exits 0 after draining`);
    const again = await startReplica(name);
    if (name === 'a') a = again;
    else b = again;
    // nginx tries a replica it saw refuse again after fail_timeout (5 s).
    await new Promise((r) => setTimeout(r, 6000));
  }
  running = false;
  await Promise.all(clients);
  a.child.kill('SIGTERM');
  b.child.kill('SIGTERM');
  await Promise.all([a.exited, b.exited]);

  t.diagnostic(
    `${ok} HTTP and ${mcpOk} MCP statements answered, ${failures.length} failed, through two rolling restarts`,
  );
  // What a SIGTERM alone cannot avoid (docs/deploy.md): connections still in the listener's
  // backlog when it closes are reset after nginx sent their request, and nginx does not replay a
  // POST. They are rare, and 502 answers, never a hang or a wrong answer; anything else fails here.
  const unexpected = failures.filter((f) => !/^(mcp .*)?502\b|502 Bad Gateway/.test(f));
  assert.deepEqual(
    unexpected.slice(0, 5),
    [],
    `${failures.length} failed of ${ok + mcpOk + failures.length}`,
  );
  assert.ok(failures.length <= (ok + mcpOk) / 1000, `${failures.length} reset at close of ${ok + mcpOk}`);
  assert.ok(ok > 100, `${ok} statements answered`);
  assert.ok(mcpOk > 100, `${mcpOk} MCP calls answered`);
});
