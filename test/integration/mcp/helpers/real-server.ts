/**
 * The real Tributary server (config → catalog → sources → engine, security hooks, every
 * route) on a free loopback port with a temporary storage dir, with the MCP routes
 * included whether or not cli/wiring.ts lists them yet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeDeps, createDeps } from '../../../../src/cli/start.js';
import { httpHooks, httpRoutes } from '../../../../src/cli/wiring.js';
import { loadConfig } from '../../../../src/config/load.js';
import { createLogger } from '../../../../src/core/logger.js';
import type { AppDeps } from '../../../../src/http/deps.js';
import { registerMcp } from '../../../../src/http/mcp/routes.js';
import { buildHttpServer } from '../../../../src/http/server.js';
import type { Result } from '../../../../src/sql/result.js';

export interface RealServer {
  url: string;
  deps: AppDeps;
  storageDir: string;
  sql(query: string, context?: { db?: string }): Promise<Result>;
  stop(): Promise<void>;
}

export async function startRealServer(env: Record<string, string> = {}): Promise<RealServer> {
  const storageDir = mkdtempSync(join(tmpdir(), 'tributary-mcp-'));
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
  const deps = await createDeps(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'));
  // Use the server as cli/wiring.ts builds it; add the MCP routes only if it does not list them yet.
  let app = await buildHttpServer(deps, { hooks: httpHooks, routes: httpRoutes });
  await app.ready();
  if (!app.hasRoute({ method: 'GET', url: '/mcp/status' })) {
    await app.close();
    app = await buildHttpServer(deps, { hooks: httpHooks, routes: [...httpRoutes, registerMcp] });
  }
  await app.listen({ host: '127.0.0.1', port: config.api.http.port });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const sql = async (query: string, context?: { db?: string }, token?: string): Promise<Result> => {
    const res = await fetch(`${url}/api/sql/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, context }),
    });
    return (await res.json()) as Result;
  };
  return {
    url,
    deps,
    storageDir,
    sql,
    stop: async () => {
      await app.close();
      await closeDeps(deps);
      rmSync(storageDir, { recursive: true, force: true });
    },
  };
}
