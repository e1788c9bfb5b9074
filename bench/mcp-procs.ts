/** MCP bench helpers: a process's CPU time from /proc, and DBHub installed and run as a child. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './lib.js';

let clkTck: number | undefined;

/** Clock ticks per second for /proc/<pid>/stat times (`getconf CLK_TCK`, 100 on Linux nearly always). */
export function clockTicks(): number {
  if (clkTck === undefined) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/**
 * CPU time of a process (all its threads), in milliseconds: the sum of its threads' run time
 * from /proc/<pid>/task/<tid>/schedstat (nanoseconds), else utime + stime from /proc/<pid>/stat.
 * The latter counts in clock ticks (10 ms): over a round of 1,000 calls at 0.16 ms that is
 * 16 ticks, too coarse for a 5% difference (issue 15's observe target). A thread that ends
 * within a round takes its time with it; a server's threads (V8, libuv, DuckDB) live on.
 */
export function cpuMs(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended between the listing and the read
      }
    }
    if (ns > 0) return ns / 1e6;
  } catch {
    // no schedstat here: clock ticks below
  }
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // comm (field 2) may hold spaces and parentheses: count fields from the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
  const ticks = Number(rest[11]) + Number(rest[12]);
  return (ticks * 1000) / clockTicks();
}

export const DBHUB_VERSION = '1.4.0';

/**
 * DBHub's entry script. DBHub pulls in cloud SDKs and drivers for six databases (about
 * 200 packages, 140 MB) and declares Node >= 22.5, so it is not a project dependency: it is
 * installed once, pinned, into a folder outside the repo (without its optional drivers,
 * plus `pg`), which keeps `npm run bench` working on a fresh clone. `DBHUB_BIN` overrides.
 */
export function ensureDbhub(): string {
  if (process.env.DBHUB_BIN) return process.env.DBHUB_BIN;
  const dir = process.env.DBHUB_DIR ?? join(tmpdir(), `tributary-bench-dbhub-${DBHUB_VERSION}`);
  const bin = join(dir, 'node_modules/@bytebase/dbhub/dist/index.js');
  if (existsSync(bin) && existsSync(join(dir, 'node_modules/pg/package.json'))) return bin;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  process.stderr.write(`bench mcp: installing @bytebase/dbhub@${DBHUB_VERSION} into ${dir}\n`);
  execFileSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--omit=optional',
      '--no-package-lock',
      '--loglevel=error',
      `@bytebase/dbhub@${DBHUB_VERSION}`,
      'pg@8',
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], timeout: 240_000 },
  );
  if (!existsSync(bin)) throw new Error(`DBHub install in ${dir} did not produce ${bin}`);
  return bin;
}

export interface DbhubServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** DBHub over its HTTP transport on a loopback port, for one PostgreSQL database. */
export async function startDbhub(dsn: string): Promise<DbhubServer> {
  const bin = ensureDbhub();
  const port = 20000 + Math.floor(Math.random() * 20000);
  const proc: ChildProcess = spawn(
    process.execPath,
    [bin, '--transport', 'http', '--host', '127.0.0.1', '--port', String(port), '--dsn', dsn],
    {
      // Its own folder as cwd, so no dbhub.toml or .env of the repo is picked up.
      cwd: join(bin, '../../../../..'),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'production' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || proc.exitCode !== null) {
      proc.kill('SIGKILL');
      throw new Error(`DBHub did not start on ${base}: ${stderr.slice(-800)}`);
    }
    await sleep(100);
  }
  return {
    url: `${base}/mcp`,
    pid: proc.pid!,
    stop: async () => {
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    },
  };
}
