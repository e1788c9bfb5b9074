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
import type { Running } from '../../../../src/cli/start.js';
import { loadConfig } from '../../../../src/config/load.js';
import type { Config } from '../../../../src/config/types.js';
import { createLogger } from '../../../../src/logger.js';

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
    env: { TRIBUTARY_STORAGE_DIR: storageDir, TRIBUTARY_LOG_LEVEL: 'debug', ...env },
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

/**
 * The real start-up when it is complete; until the engine's source registry lands, the
 * same HTTP server (real hooks and routes from cli/wiring.ts, real catalog, real MCP
 * routes) over a one-answer engine, since these tests are about who gets in, not SQL.
 */
export async function start(config: Config, logger: Logger): Promise<Running> {
  try {
    const { startServer } = await import('../../../../src/cli/start.js');
    return await startServer(config, { logger });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
  }
  const { openCatalog } = await import('../../../../src/catalog/index.js');
  const { buildHttpServer } = await import('../../../../src/http/server.js');
  const { httpHooks, httpRoutes } = await import('../../../../src/cli/wiring.js');
  const { createMcpServerFactory } = await import('../../../../src/mcp/server.js');
  const { registerMcpRoutes } = await import('../../../../src/mcp/transports/http.js');
  const catalog = await openCatalog(config, logger);
  const answer = { type: 'table' as const, column_names: ['one'], data: [[1]] };
  const engine = {
    execute: async () => answer,
    stream: async () => answer,
    listDatabases: async () => ['files'],
    listTables: async () => [],
    listColumns: async () => [],
    close: async () => {},
  };
  const deps = {
    config,
    logger,
    catalog,
    sources: {} as never,
    engine,
    version: '0.0.0-test',
    startedAt: Date.now(),
  } as unknown as Running['deps'];
  const mcp = (app: Parameters<(typeof httpRoutes)[number]>[0]) => {
    registerMcpRoutes(app, deps, createMcpServerFactory(deps));
  };
  const app = await buildHttpServer(deps, {
    hooks: httpHooks,
    routes: httpRoutes.filter((r) => r.name !== 'registerFileRoutes').concat(mcp),
  });
  await app.listen({ host: config.api.http.host, port: config.api.http.port });
  const port = (app.server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    app,
    close: async () => {
      await app.close();
      await catalog.close();
    },
  };
}
