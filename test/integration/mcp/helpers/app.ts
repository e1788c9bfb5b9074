/**
 * An MCP test server: a Fastify app carrying only the MCP routes, over a real MariaDB
 * through MariaEngine, on a free loopback port. Used until (and beside) the full server.
 */
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Config } from '../../../../src/config/types.js';
import type { AppDeps } from '../../../../src/http/deps.js';
import {
  type McpHttpHandle,
  type McpHttpOptions,
  registerMcpRoutes,
} from '../../../../src/http/mcp/routes.js';
import { createMcpServerFactory, type McpServerFactoryOptions } from '../../../../src/mcp/server.js';
import type { SqlEngine } from '../../../../src/sql/engine-types.js';

export function testConfig(mcp: Partial<Config['api']['mcp']> = {}): Config {
  return {
    storageDir: '/nonexistent',
    catalogUrl: null,
    secretKey: Buffer.alloc(32),
    redisUrl: null,
    demo: false,
    logLevel: 'info',
    logFormat: 'json',
    api: {
      http: {
        host: '127.0.0.1',
        port: 0,
        trust_proxy: [],
        max_body_bytes: 16777216,
        header_timeout_ms: 10000,
        min_body_rate: 8192,
        max_connections_per_ip: 1024,
        drain_ms: 30000,
      },
      metrics: { enabled: false },
      mysql: { enabled: false, port: 0, tls_cert: null, tls_key: null },
      mcp: {
        cors: { enabled: true, allow_origins: [], allow_origin_regex: '', allow_headers: [] },
        rate_limit: { enabled: false, requests_per_minute: 60 },
        dns_rebinding_protection: false,
        allowed_hosts: [],
        oauth: {
          enabled: false,
          issuer_url: null,
          client_id: null,
          client_secret: null,
          scope: 'mcp:tools',
          public_url: null,
          groups_claim: 'groups',
        },
        max_rows: 10000,
        max_result_bytes: 262144,
        result_handles: { max_bytes: 67108864, ttl_ms: 600_000, per_principal: 16 },
        read_only: false,
        session_idle_timeout_ms: 300_000,
        ...mcp,
      },
    },
    auth: { username: null, password: null, token_ttl_hours: 720, users_file: null },
    passthrough: {
      allow_private_networks: false,
      timeout_ms: 30000,
      max_request_bytes: 1048576,
      max_response_bytes: 10485760,
    },
    kb: { allow_private_networks: false, allowed_hosts: [], max_results: 10_000 },
    files: { max_upload_bytes: 104857600 },
    sources: { pool_wait_timeout_ms: 30_000 },
    query: { timeout_ms: 300_000, max_fragment_rows: 10_000_000, audit_log: null },
    tracing: { endpoint: null, serviceName: 'tributary' },
  };
}

/** Log lines captured in memory (JSON objects) so tests can check what is logged. */
export function memoryLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

export function testDeps(engine: SqlEngine, config: Config, logger: pino.Logger): AppDeps {
  return {
    config,
    logger,
    catalog: {} as AppDeps['catalog'],
    sources: {} as AppDeps['sources'],
    engine,
    version: '0.0.0-test',
    startedAt: Date.now(),
  };
}

export interface McpTestApp {
  url: string;
  app: FastifyInstance;
  mcp: McpHttpHandle;
  deps: AppDeps;
  lines: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startMcpApp(
  engine: SqlEngine,
  o: {
    mcp?: Partial<Config['api']['mcp']>;
    http?: McpHttpOptions;
    factory?: McpServerFactoryOptions;
    /** App-wide hooks added before the MCP routes, as the real server's middleware is. */
    hooks?: (app: FastifyInstance) => void;
  } = {},
  port = 0,
): Promise<McpTestApp> {
  const { logger, lines } = memoryLogger();
  const deps = testDeps(engine, testConfig(o.mcp), logger);
  const app = Fastify({ logger: false, forceCloseConnections: true });
  o.hooks?.(app);
  const mcp = registerMcpRoutes(
    app,
    deps,
    createMcpServerFactory(deps, o.factory ?? { progressIntervalMs: 0 }),
    o.http,
  );
  await app.listen({ host: '127.0.0.1', port });
  const addr = app.server.address();
  const actual = typeof addr === 'object' && addr ? addr.port : port;
  return { url: `http://127.0.0.1:${actual}`, app, mcp, deps, lines, close: () => app.close() };
}
