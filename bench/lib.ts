/** Shared benchmark helpers: a real server in a child process, timing, percentiles. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface ChildServer {
  url: string;
  pid: number;
  proc: ChildProcess;
  storageDir: string;
  stop(): Promise<void>;
}

let built = false;

/** Benchmarks measure what `npm start` runs: the built server (built first when src is newer). */
export function ensureBuilt(): void {
  if (built) return;
  execFileSync(process.execPath, ['scripts/build-if-needed.mjs'], { stdio: 'inherit' });
  built = true;
}

/** Start `tributary` (the built server, as `npm start` runs it) as a child on a random loopback port. */
export async function startChildServer(
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<ChildServer> {
  const storageDir = mkdtempSync(join(tmpdir(), 'tributary-bench-'));
  // Below Linux's ephemeral range (32768+), where a client socket may hold the port.
  const port = 20000 + 2 * Math.floor(Math.random() * 6000);
  ensureBuilt();
  const proc = spawn(process.execPath, [...nodeArgs, 'dist/cli/main.js'], {
    env: {
      ...process.env,
      TRIBUTARY_STORAGE_DIR: storageDir,
      TRIBUTARY_HTTP_HOST: '127.0.0.1',
      TRIBUTARY_HTTP_PORT: String(port),
      TRIBUTARY_MYSQL_PORT: String(port + 1),
      TRIBUTARY_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30000;
  for (;;) {
    try {
      const r = await fetch(`${url}/api/status`);
      if (r.status < 500) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error('bench server did not start');
    await sleep(100);
  }
  return {
    url,
    pid: proc.pid!,
    proc,
    storageDir,
    stop: async () => {
      await pools.get(url)?.close();
      pools.delete(url);
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      rmSync(storageDir, { recursive: true, force: true });
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

const pools = new Map<string, Pool>();

/** POST /api/sql/query with a keep-alive undici pool (fetch adds ~1 ms of client overhead per call). */
/** GET a route through the same pooled client as sql(): the HTTP round trip alone. */
export async function httpGet(url: string, path: string): Promise<unknown> {
  let pool = pools.get(url);
  if (!pool) {
    pool = new Pool(url, { connections: 16, pipelining: 1 });
    pools.set(url, pool);
  }
  const r = await pool.request({ path, method: 'GET' });
  return r.body.json();
}

export async function sql(url: string, query: string, db?: string): Promise<any> {
  let pool = pools.get(url);
  if (!pool) {
    pool = new Pool(url, { connections: 16, pipelining: 1 });
    pools.set(url, pool);
  }
  const r = await pool.request({
    path: '/api/sql/query',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(db ? { query, context: { db } } : { query }),
  });
  const body: any = await r.body.json();
  if (body.type === 'error') throw new Error(`${query.slice(0, 60)}: ${body.error_message}`);
  return body;
}

export async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** Median of `runs` timed runs after `warmup` untimed ones. */
export async function median(fn: () => Promise<unknown>, runs: number, warmup = 2): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) xs.push((await time(fn)).ms);
  return percentile(xs, 50);
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return Number.NaN;
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}

/** Peak resident set (VmHWM) of a process, in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

export function round(x: number, d = 2): number {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}
