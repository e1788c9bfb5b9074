/** Start the real server on a free loopback port with a temporary storage dir. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Running, startServer } from '../../src/cli/start.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/core/logger.js';
import type { Result } from '../../src/sql/result.js';

export interface TestServer extends Running {
  storageDir: string;
  sql(query: string, context?: { db?: string }): Promise<Result>;
  stop(): Promise<void>;
}

export async function startTestServer(
  env: Record<string, string> = {},
  opts: { storageDir?: string } = {},
): Promise<TestServer> {
  const storageDir = opts.storageDir ?? mkdtempSync(join(tmpdir(), 'tributary-test-'));
  const config = await loadConfig({
    argv: {},
    env: {
      TRIBUTARY_STORAGE_DIR: storageDir,
      TRIBUTARY_HTTP_HOST: '127.0.0.1',
      TRIBUTARY_HTTP_PORT: '0',
      TRIBUTARY_MYSQL_PORT: '0',
      ...env,
    },
  });
  const running = await startServer(config, { logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent') });
  const sql = async (query: string, context?: { db?: string }): Promise<Result> => {
    const res = await fetch(`${running.url}/api/sql/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, context }),
    });
    return (await res.json()) as Result;
  };
  return {
    ...running,
    storageDir,
    sql,
    stop: async () => {
      await running.close();
      if (!opts.storageDir) rmSync(storageDir, { recursive: true, force: true });
    },
  };
}

export function pgParams(database: string): string {
  return JSON.stringify({ host: '127.0.0.1', port: 5432, user: 'postgres', password: '', database });
}

export function mariaParams(database: string): string {
  return JSON.stringify({ host: '127.0.0.1', port: 3306, user: 'root', password: '', database });
}
