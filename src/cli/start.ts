import { mkdirSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { openCatalog } from '../catalog/index.js';
import { sealStoredSecrets } from '../catalog/seal-on-start.js';
import { CatalogSourceManager } from '../catalog/source-manager.js';
import { ConfigError } from '../config/errors.js';
import type { Config } from '../config/types.js';
import { createLogger } from '../core/logger.js';
import type { AppDeps } from '../http/deps.js';
import { securityRuntime } from '../http/hooks/runtime.js';
import { buildHttpServer } from '../http/server.js';
import { KbService } from '../kb/service.js';
import { Observer, type PoolUse, Tracing } from '../observe/index.js';
import { FilesSource } from '../sources/files/index.js';
import type { Source } from '../sources/types.js';
import { Engine } from '../sql/engine.js';
import { LocalEngine } from '../sql/execute/local.js';
import { ProcessList } from '../sql/execute/processlist.js';
import { PolicyHolder } from '../sql/policy/holder.js';
import { startWireServer, type WireServer } from '../wire/server.js';
import '../sources/rest-api/register.js';
import { closeEgressAgents } from '../egress/agent.js';
import { normalizeAllowedHosts } from '../egress/safe-url.js';
import type { EgressSettings } from '../kb/embed/index.js';
import { builtinSources } from './builtins.js';
import { VERSION } from './version.js';
import { httpHooks, httpRoutes } from './wiring.js';

export interface Running {
  url: string;
  deps: AppDeps;
  app: FastifyInstance | null;
  /** The MySQL wire protocol listener (null when api.mysql.enabled is false). */
  mysql: WireServer | null;
  close(): Promise<void>;
}

/** Build everything a face needs: config → catalog → sources → engine. */
export async function createDeps(config: Config, logger?: Logger): Promise<AppDeps> {
  const log = logger ?? createLogger(config.logLevel, 2, config.logFormat);
  mkdirSync(config.storageDir, { recursive: true, mode: 0o700 });
  await warnIfStorageFull(config.storageDir, log);
  // A bad policy file fails start-up, naming the rule, before anything else opens.
  const policy = openPolicy(config, log);
  const catalog = await openCatalog(config, log);
  await sealStoredSecrets(catalog, log);
  const ctx = { storageDir: config.storageDir, logger: log, poolWaitMs: config.sources.pool_wait_timeout_ms };
  const builtins: Map<string, Source> = await builtinSources(config, ctx, catalog);
  const sources = new CatalogSourceManager(catalog, ctx, log, builtins);
  // DuckDB's own default (80% of memory) is what a runaway join fills; a quarter leaves room.
  const local = await LocalEngine.create({
    tempDir: join(config.storageDir, 'tmp'),
    memoryLimit: localMemoryLimit(),
  });
  const sourceNames = () => sources.names();
  // The OpenTelemetry SDK is loaded only when an endpoint is set.
  const tracing = config.tracing.endpoint
    ? await Tracing.start({
        url: config.tracing.endpoint,
        serviceName: config.tracing.serviceName,
        version: VERSION,
        sourceNames,
      })
    : null;
  const observer = new Observer({
    metrics: config.api.metrics.enabled,
    auditLog: config.query.audit_log ?? undefined,
    sourceNames,
    pools: () => poolUse(sources),
    tracing,
  });
  const engine = new Engine({
    sources,
    local,
    logger: log,
    timeoutMs: config.query.timeout_ms,
    maxFragmentRows: config.query.max_fragment_rows,
    observe: observer.active ? observer : undefined,
    // The admin sees and may KILL every face's statements; others only their own.
    processes: new ProcessList(config.auth.username && config.auth.password ? config.auth.username : null),
    policy,
  });
  const kb = new KbService({
    catalog,
    engine,
    storageDir: config.storageDir,
    logger: log,
    sources,
    catalogUrl: config.catalogUrl,
    maxResults: config.kb.max_results,
    egress: kbEgress(config),
    meter: observer.metrics?.kb,
    onChanged: () => engine.schemaChanged(),
  });
  await kb.init();
  engine.attachKnowledgeBases(kb);
  // A file another replica uploaded, replaced or dropped: plans and columns cached here are stale.
  const files = builtins.get('files');
  if (files instanceof FilesSource)
    files.onChanged(() => {
      engine.forgetColumns();
      engine.schemaChanged();
    });
  // Sources another replica created, altered or dropped (MCP announces schema changes).
  catalog.onSourcesChanged(() => engine.schemaChanged());
  return {
    config,
    logger: log,
    catalog,
    sources,
    engine,
    observer,
    version: VERSION,
    startedAt: Date.now(),
  };
}

/**
 * The KB providers' egress settings (SPEC §8 "Providers' addresses"): their own keys, not
 * passthrough's. `kb.allowed_hosts` is normalised as the allowlists of rest_api sources are;
 * an entry that is not a host name fails start-up naming the key.
 */
export function kbEgress(config: Config): EgressSettings {
  let allowedHosts: string[];
  try {
    allowedHosts = normalizeAllowedHosts(config.kb.allowed_hosts).filter((h) => h !== '*');
  } catch (e) {
    throw new ConfigError(
      `Invalid configuration: kb.allowed_hosts: ${(e as Error).message} (TRIBUTARY_KB_ALLOWED_HOSTS)`,
    );
  }
  return {
    allowPrivate: config.kb.allow_private_networks,
    allowedHosts,
    timeoutMs: config.passthrough.timeout_ms,
  };
}

/** The access policy of policy.file (docs/reference/policy.md), or none. */
function openPolicy(config: Config, log: Logger): PolicyHolder | undefined {
  const file = config.policy?.file;
  if (!file) return undefined;
  try {
    const holder = new PolicyHolder(file, log);
    log.info({ path: file }, 'access policy loaded');
    return holder;
  } catch (e) {
    throw new ConfigError(`Invalid configuration: ${(e as Error).message}`);
  }
}

/** Below this much free space the storage dir counts as full (a catalog write takes a page or two). */
const FULL_BELOW_BYTES = 64 * 1024;

/**
 * A full storage disk does not stop the server: it starts, reads everything, and each write
 * that needs the disk answers 507 / 1021 (core/storage-full.ts) until space is freed.
 */
async function warnIfStorageFull(dir: string, log: Logger): Promise<void> {
  const st = await statfs(dir).catch(() => null);
  if (st && st.bavail * st.bsize < FULL_BELOW_BYTES)
    log.warn(
      { dir, free_bytes: st.bavail * st.bsize },
      'the storage dir is full: starting read-only for it; uploads, new sources and logins answer 507 until space is freed',
    );
}

/** Start the HTTP server (API + MCP). */
export async function startServer(config: Config, opts: { logger?: Logger } = {}): Promise<Running> {
  const deps = await createDeps(config, opts.logger);
  const { host, port } = config.api.http;
  let app: FastifyInstance;
  let mysql: WireServer | null = null;
  try {
    app = await buildHttpServer(deps, { hooks: httpHooks, routes: httpRoutes });
    try {
      await app.listen({ host, port });
      mysql = await startMysql(deps, app);
    } catch (e) {
      await app.close().catch(() => {});
      throw e;
    }
  } catch (e) {
    // Pools, the catalog and DuckDB must not outlive a server that never started.
    await closeDeps(deps).catch(() => {});
    throw e;
  }
  const addr = app.server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost}:${actualPort}`;
  deps.logger.info({ url, mysql_port: mysql?.port, version: VERSION }, 'tributary listening');
  return {
    url,
    deps,
    app,
    mysql,
    close: async () => {
      await mysql?.close();
      await app.close();
      await closeDeps(deps);
    },
  };
}

/** The MySQL listener on the HTTP host, sharing the failed-login limiter of /api/login. */
async function startMysql(deps: AppDeps, app: FastifyInstance): Promise<WireServer | null> {
  const { config } = deps;
  const m = config.api.mysql;
  if (!m.enabled) return null;
  const auth = securityRuntime(app, deps).auth.users;
  return startWireServer({
    host: config.api.http.host,
    port: m.port,
    engine: deps.engine,
    logger: deps.logger,
    auth,
    loginLimiter: auth ? securityRuntime(app, deps).loginLimiter : null,
    readOnly: config.api.mcp.read_only,
    tlsCert: m.tls_cert,
    tlsKey: m.tls_key,
    version: VERSION,
  });
}

export async function closeDeps(deps: AppDeps): Promise<void> {
  await closeEgressAgents();
  await deps.resultHandles?.close().catch(() => {});
  await deps.engine.close();
  await deps.catalog.close();
  await deps.observer?.close();
}

/** The pools of the sources open now (metrics); sources are not opened for it. */
async function poolUse(sources: CatalogSourceManager): Promise<PoolUse[]> {
  const out: PoolUse[] = [];
  for (const name of await sources.names()) {
    const stats = sources.peek(name)?.poolStats?.();
    if (stats) out.push({ source: name, ...stats });
  }
  return out;
}

/** A quarter of the memory this process may use (its cgroup limit, else the machine's), at least 256 MiB. */
function localMemoryLimit(): string {
  const available = process.constrainedMemory?.() || totalmem();
  return `${Math.max(256, Math.floor(available / 4 / 1024 / 1024))}MB`;
}
