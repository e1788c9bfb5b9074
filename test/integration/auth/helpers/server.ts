/**
 * Starts the real Tributary HTTP server for auth tests: config from the real loader
 * (environment variables as a user would set them), a temp storage dir, port 0, and the
 * logs captured in memory through the real logger (with its redaction) so tests can grep
 * them for secrets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { type Running, startServer } from '../../../../src/cli/start.js';
import { loadConfig } from '../../../../src/config/load.js';
import type { Config } from '../../../../src/config/types.js';
import { createLogger } from '../../../../src/core/logger.js';

export interface TestServer {
  url: string;
  port: number;
  config: Config;
  running: Running;
  storageDir: string;
  /** Every log line so far, raw JSON text. */
  logs: string[];
  close(): Promise<void>;
}

export function captureLogger(level = 'debug'): { logger: Logger; logs: string[] } {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l.trim()) logs.push(l);
      cb();
    },
  });
  return { logger: createLogger(level, sink), logs };
}

export function tempStorage(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-auth-it-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startTestServer(
  env: Record<string, string> = {},
  opts: { storageDir?: string } = {},
): Promise<TestServer> {
  const own = opts.storageDir ? null : tempStorage();
  const storageDir = opts.storageDir ?? own!.dir;
  const config = await loadConfig({
    argv: { port: 0 },
    env: {
      TRIBUTARY_STORAGE_DIR: storageDir,
      TRIBUTARY_LOG_LEVEL: 'debug',
      TRIBUTARY_MYSQL_PORT: '0',
      ...env,
    },
  });
  const { logger, logs } = captureLogger();
  const running = await start(config, logger);
  const port = Number(new URL(running.url).port);
  return {
    url: running.url,
    port,
    config,
    running,
    storageDir,
    logs,
    close: async () => {
      await running.close();
      own?.remove();
    },
  };
}

/** A personal access token from POST /api/login (the login must succeed). */
export async function loginToken(url: string, username: string, password: string): Promise<string> {
  const r = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { token: string }).token;
}

/** The real start-up (cli/start.ts), with the captured logger. */
export async function start(config: Config, logger: Logger): Promise<Running> {
  return startServer(config, { logger });
}
