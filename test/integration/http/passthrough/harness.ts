import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { SourceManager } from '../../../../src/catalog/source-manager-types.js';
import type { SourceRecord } from '../../../../src/catalog/types.js';
import type { Config } from '../../../../src/config/types.js';
import type { Resolver } from '../../../../src/egress/agent.js';
import type { AppDeps } from '../../../../src/http/deps.js';
import { registerPassthroughRoutes } from '../../../../src/http/routes/passthrough.js';
import { buildHttpServer } from '../../../../src/http/server.js';
import { restApiEngine } from '../../../../src/sources/rest-api/index.js';
import type { Source } from '../../../../src/sources/types.js';

/**
 * The passthrough routes on the project's HTTP server builder, with a small in-memory source
 * manager holding real records (the catalog is not what these tests are about).
 */

export class MemorySources implements SourceManager {
  readonly records = new Map<string, SourceRecord>();

  add(name: string, engine: string, params: Record<string, unknown>): SourceRecord {
    if (engine === restApiEngine.name) restApiEngine.params.parse(params); // as CREATE DATABASE would
    const rec: SourceRecord = { id: randomUUID(), name, engine, params, createdAt: new Date().toISOString() };
    this.records.set(name.toLowerCase(), rec);
    return rec;
  }
  async getRecord(name: string): Promise<SourceRecord | null> {
    return this.records.get(name.toLowerCase()) ?? null;
  }
  async get(name: string): Promise<Source> {
    const rec = this.records.get(name.toLowerCase());
    if (!rec || rec.engine !== restApiEngine.name) throw new Error(`no source ${name}`);
    return restApiEngine.create(rec.name, restApiEngine.params.parse(rec.params), {
      storageDir: '/nonexistent',
      logger: pino({ level: 'silent' }),
    });
  }
  async names(): Promise<string[]> {
    return [...this.records.values()].map((r) => r.name);
  }
  async create(): Promise<void> {
    throw new Error('not used');
  }
  async drop(name: string): Promise<void> {
    this.records.delete(name.toLowerCase());
  }
  async close(): Promise<void> {}
}

export interface AppOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  maxRequestBytes?: number;
  maxResponseBytes?: number;
  resolver?: Resolver;
}

export interface TestApp {
  app: FastifyInstance;
  sources: MemorySources;
  /** Every log line written, as text. */
  logs: string[];
  /** POST JSON to a passthrough route through Fastify's injector (no socket). */
  call(
    name: string,
    body: unknown,
    suffix?: '' | '/test',
  ): Promise<{ status: number; json: any; text: string }>;
  close(): Promise<void>;
}

export function testConfig(o: AppOptions): Config {
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
      },
    },
    auth: { username: null, password: null, token_ttl_hours: 720, users_file: null },
    passthrough: {
      allow_private_networks: o.allowPrivate,
      timeout_ms: o.timeoutMs ?? 30_000,
      max_request_bytes: o.maxRequestBytes ?? 1_048_576,
      max_response_bytes: o.maxResponseBytes ?? 10_485_760,
    },
    kb: { allow_private_networks: false, allowed_hosts: [], max_results: 10_000 },
    files: { max_upload_bytes: 1_048_576 },
    sources: { pool_wait_timeout_ms: 30_000 },
    query: { timeout_ms: 300_000, max_fragment_rows: 10_000_000, audit_log: null },
    tracing: { endpoint: null, serviceName: 'tributary' },
  };
}

export async function startApp(o: AppOptions): Promise<TestApp> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const logger = pino({ level: 'debug' }, sink);
  const sources = new MemorySources();
  const deps = {
    config: testConfig(o),
    logger,
    catalog: undefined as never,
    sources,
    engine: undefined as never,
    version: 'test',
    startedAt: Date.now(),
  } satisfies AppDeps;
  const app = await buildHttpServer(deps, {
    routes: [(a, d) => registerPassthroughRoutes(a, d, { resolver: o.resolver })],
  });
  await app.ready();
  return {
    app,
    sources,
    logs,
    async call(name, body, suffix = '') {
      const res = await app.inject({
        method: 'POST',
        url: `/api/integrations/${encodeURIComponent(name)}/passthrough${suffix}`,
        headers: { 'content-type': 'application/json' },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });
      let json: any;
      try {
        json = res.json();
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, json, text: res.body };
    },
    async close() {
      await app.close();
    },
  };
}
