/**
 * Replicas in child processes behind the shipped deploy/nginx.conf (round-robin, no stickiness),
 * on one PostgreSQL catalog, one secret key and one Redis, as docs/deploy.md says; everything on
 * loopback. Used by the rolling-restart, kill and replica contract tests and `bench replicas`.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPgDatabase, ensureService, REDIS } from './services.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
/** What `npm start` runs (benchmarks measure it; bench/lib.ts builds it first). */
const BUILT = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const NGINX_CONF = fileURLToPath(new URL('../../deploy/nginx.conf', import.meta.url));

export type ReplicaName = 'a' | 'b';

export interface Replica {
  child: ChildProcess;
  exited: Promise<number | null>;
  url: string;
}

export interface ReplicaCluster {
  /** nginx's address (after startNginx). */
  url: string;
  ports: { nginx: number; a: number; b: number };
  catalog: string;
  env: Record<string, string>;
  startReplica(name: ReplicaName): Promise<Replica>;
  /**
   * nginx with the shipped configuration; resolves once it answers /mcp/status with 200. Already
   * running: reloaded with these options. `clientKeepAlive: false` adds `keepalive_timeout 0`
   * (docs/deploy.md: what a reload needs to cost no request).
   */
  startNginx(o?: { clientKeepAlive?: boolean }): Promise<void>;
  /**
   * Mark one replica `down` in nginx's configuration (null: none) and reload nginx gracefully
   * (SIGHUP): new requests go to the others, requests already sent finish. Resolves when the
   * new workers run (the old ones' error-log line, polled).
   */
  markDown(name: ReplicaName | null): Promise<void>;
  stop(): Promise<void>;
}

async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const answers = (url: string) =>
  fetch(`${url}/mcp/status`, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => r.status === 200,
    () => false,
  );

/**
 * A catalog database named after `name` (made here, dropped by stop()), ports below Linux's
 * ephemeral range (no client socket holds a port a replica restarts on).
 */
export async function replicaCluster(
  name: string,
  extraEnv: Record<string, string> = {},
  o: { built?: boolean } = {},
): Promise<ReplicaCluster> {
  await ensureService('redis');
  const work = mkdtempSync(join(tmpdir(), `${name}-`));
  const base = 20000 + 4 * Math.floor(Math.random() * 3000);
  const ports = { nginx: base, a: base + 1, b: base + 2 };
  const catalog = await createPgDatabase(name);
  const env: Record<string, string> = {
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
    ...extraEnv,
  };
  const prefix = join(work, 'nginx');
  mkdirSync(prefix, { recursive: true });
  chmodSync(work, 0o755);
  chmodSync(prefix, 0o777);
  const confFile = join(prefix, 'nginx.conf');
  // notice level: a reload's "reconfiguring" line tells markDown() it happened.
  const globals = `pid ${prefix}/nginx.pid; error_log ${prefix}/error.log notice; daemon off;`;
  let down: ReplicaName | null = null;
  let keepAlive = true;
  /** The shipped configuration, its upstreams and listener moved to loopback ports. */
  const nginxConf = () =>
    readFileSync(NGINX_CONF, 'utf8')
      .replace('tributary-1:47334', `127.0.0.1:${ports.a}${down === 'a' ? ' down' : ''}`)
      .replace('tributary-2:47334', `127.0.0.1:${ports.b}${down === 'b' ? ' down' : ''}`)
      .replace(
        'listen 8080;',
        `listen 127.0.0.1:${ports.nginx};${keepAlive ? '' : '\n    keepalive_timeout 0;'}`,
      )
      .replace(
        'http {',
        `http {\n  access_log off;\n${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
          .map((k) => `  ${k}_temp_path ${prefix}/${k};`)
          .join('\n')}`,
      );
  const children = new Set<ChildProcess>();
  let nginx: ChildProcess | null = null;
  /** Write the configuration with `r` marked down and reload nginx gracefully (SIGHUP). */
  const reload = async (r: ReplicaName | null) => {
    assert.ok(nginx, 'nginx is running');
    down = r;
    writeFileSync(confFile, nginxConf());
    const log = join(prefix, 'error.log');
    // The old worker logs this when the master has told it to stop taking connections; from then
    // on every new connection is the new workers', with the new configuration.
    const count = () =>
      existsSync(log) ? readFileSync(log, 'utf8').split('gracefully shutting down').length : 1;
    const before = count();
    nginx.kill('SIGHUP');
    await until('nginx reloaded', 10_000, async () => count() > before);
  };

  const cluster: ReplicaCluster = {
    url: `http://127.0.0.1:${ports.nginx}`,
    ports,
    catalog: catalog.database,
    env,
    async startReplica(r) {
      const storage = join(work, r);
      mkdirSync(storage, { recursive: true });
      const child = spawn(process.execPath, o.built ? [BUILT] : ['--import', 'tsx', MAIN], {
        env: { ...env, TRIBUTARY_STORAGE_DIR: storage, TRIBUTARY_HTTP_PORT: String(ports[r]) },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.add(child);
      const exited = new Promise<number | null>((resolve) =>
        child.once('exit', (code) => {
          children.delete(child);
          resolve(code);
        }),
      );
      const url = `http://127.0.0.1:${ports[r]}`;
      await until(`replica ${r} answering`, 30_000, async () => {
        if (child.exitCode !== null) throw new Error(`replica ${r} exited ${child.exitCode}`);
        return answers(url);
      });
      return { child, exited, url };
    },
    async startNginx(o = {}) {
      keepAlive = o.clientKeepAlive ?? true;
      if (nginx && nginx.exitCode === null) return reload(down);
      // Another program on this shared machine may hold the port: then another one is tried.
      for (let attempt = 0; ; attempt++) {
        writeFileSync(confFile, nginxConf());
        const check = spawnSync('nginx', ['-t', '-p', prefix, '-c', confFile, '-g', globals], {
          encoding: 'utf8',
        });
        assert.equal(check.status, 0, check.stderr);
        const proc = spawn('nginx', ['-p', prefix, '-c', confFile, '-g', globals], { stdio: 'ignore' });
        nginx = proc;
        try {
          await until('nginx answering', 10_000, async () => {
            if (proc.exitCode !== null) throw new Error(`nginx exited ${proc.exitCode}`);
            return answers(cluster.url);
          });
          return;
        } catch (e) {
          proc.kill('SIGQUIT');
          if (attempt >= 2) throw e;
          ports.nginx = 20000 + 4 * Math.floor(Math.random() * 3000) + 3;
          cluster.url = `http://127.0.0.1:${ports.nginx}`;
        }
      }
    },
    markDown: (r) => reload(r),
    async stop() {
      nginx?.kill('SIGQUIT');
      const left = [...children];
      for (const c of left) c.kill('SIGTERM');
      await Promise.all(
        left.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
      );
      await catalog.drop();
      rmSync(work, { recursive: true, force: true });
    },
  };
  return cluster;
}
