import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import proxyaddr from '@fastify/proxy-addr';
import type { z } from 'zod';
import { isLoopbackHost } from '../core/loopback.js';
import { ConfigError } from './errors.js';
import {
  ENV_BOOL_EXPECTED,
  EXPECTED,
  FIELDS,
  type Field,
  fileSchema,
  KIND_SCHEMA,
  parseEnvValue,
} from './fields.js';
import { resolveSecretKey } from './secret-key.js';
import type { Config } from './types.js';

export { ConfigError } from './errors.js';

export interface LoadConfigOptions {
  argv?: { config?: string; host?: string; port?: number; demo?: boolean };
  env?: Record<string, string | undefined>;
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 47334;
export const DEFAULT_ALLOW_ORIGIN_REGEX = '^https?://(localhost|127\\.0\\.0\\.1|\\[::1\\])(:\\d+)?$';
export const DEFAULT_ALLOW_HEADERS = [
  'Content-Type',
  'Authorization',
  'Accept',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Last-Event-ID',
];
/** Written as a regex that never matches: an empty pattern would match every origin. */
const NEVER_MATCH = '(?!)';

/** Defaults by key path (docs/reference/configuration.md). allowed_hosts is derived from the host after merging. */
const DEFAULTS: Record<string, unknown> = {
  'api.http.host': DEFAULT_HOST,
  'api.http.port': DEFAULT_PORT,
  'api.http.trust_proxy': [],
  'api.http.max_body_bytes': 16777216,
  'api.http.header_timeout_ms': 10000,
  'api.http.min_body_rate': 8192,
  'api.http.max_connections_per_ip': 1024,
  'api.http.drain_ms': 30000,
  'api.mysql.enabled': true,
  'api.mysql.port': 47335,
  'api.mysql.tls_cert': null,
  'api.mysql.tls_key': null,
  'api.mcp.cors.enabled': true,
  'api.mcp.cors.allow_origins': [],
  'api.mcp.cors.allow_origin_regex': DEFAULT_ALLOW_ORIGIN_REGEX,
  'api.mcp.cors.allow_headers': DEFAULT_ALLOW_HEADERS,
  'api.mcp.rate_limit.enabled': false,
  'api.mcp.rate_limit.requests_per_minute': 60,
  // null: on when the server binds to a loopback address (decided after merging, below).
  'api.mcp.dns_rebinding_protection': null,
  'api.mcp.allowed_hosts': null,
  'api.mcp.oauth.enabled': false,
  'api.mcp.oauth.issuer_url': null,
  'api.mcp.oauth.client_id': null,
  'api.mcp.oauth.client_secret': null,
  'api.mcp.oauth.scope': 'mcp:tools',
  'api.mcp.oauth.public_url': null,
  'api.mcp.oauth.groups_claim': 'groups',
  'api.mcp.max_rows': 10000,
  'api.mcp.max_result_bytes': 262144,
  'api.mcp.result_handles.max_bytes': 67108864,
  'api.mcp.result_handles.ttl_ms': 600000,
  'api.mcp.result_handles.per_principal': 16,
  'api.mcp.read_only': false,
  'api.mcp.session_idle_timeout_ms': 300000,
  'auth.token_ttl_hours': 720,
  'auth.users_file': null,
  'passthrough.allow_private_networks': false,
  'passthrough.timeout_ms': 30000,
  'passthrough.max_request_bytes': 1048576,
  'passthrough.max_response_bytes': 10485760,
  'kb.allow_private_networks': false,
  'kb.allowed_hosts': [],
  'files.max_upload_bytes': 1073741824,
  'sources.pool_wait_timeout_ms': 30000,
  'query.timeout_ms': 300000,
  'query.max_fragment_rows': 10000000,
  'query.audit_log': null,
  'kb.max_results': 10000,
  'policy.file': null,
  'api.metrics.enabled': true,
  log_level: 'info',
  log_format: 'auto',
};

class Problems {
  readonly list: string[] = [];
  add(path: string, what: string, origin: string): void {
    this.list.push(`Invalid configuration: ${path}: ${what} (from ${origin})`);
  }
  throwIfAny(): void {
    if (this.list.length) throw new ConfigError(this.list.join('\n'));
  }
}

function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/** Config keys as a tree, built from dotted paths. */
type Tree = { [key: string]: unknown };

/** The tree's shape once every leaf has passed its field's validation (fields.ts). */
type FileKeys = Pick<Config, 'api' | 'passthrough' | 'kb' | 'files' | 'sources' | 'query' | 'policy'> & {
  log_level: Config['logLevel'];
  log_format: Config['logFormat'];
  auth: Pick<Config['auth'], 'token_ttl_hours' | 'users_file'>;
};

function setPath(obj: Tree, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    cur[p] ??= {};
    cur = cur[p] as Tree;
  }
  cur[parts.at(-1)!] = value;
}

const FIELD_BY_PATH = new Map(FIELDS.map((f) => [f.path, f]));

function readConfigFile(path: string, problems: Problems, values: Map<string, unknown>): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`Cannot read config file ${path}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`Config file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  const r = (fileSchema() as z.ZodType).safeParse(json);
  if (!r.success) {
    for (const issue of r.error.issues) {
      const at = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        for (const k of issue.keys) problems.add(at ? `${at}.${k}` : k, 'unknown key', path);
        continue;
      }
      const f = FIELD_BY_PATH.get(at);
      problems.add(at || '(top level)', f ? EXPECTED[f.kind] : 'expected an object', path);
    }
    return;
  }
  for (const f of FIELDS) {
    const v = getPath(r.data, f.path);
    if (v !== undefined) values.set(f.path, v);
  }
}

function describeRaw(f: Field, raw: string): string {
  return f.secret ? '' : `, got '${raw.length > 60 ? `${raw.slice(0, 60)}...` : raw}'`;
}

function readEnvField(f: Field, raw: string, problems: Problems, values: Map<string, unknown>): void {
  const parsed = parseEnvValue(f.kind, raw);
  const r = parsed === undefined ? null : KIND_SCHEMA[f.kind].safeParse(parsed);
  if (!r?.success) {
    const what = f.kind === 'bool' ? ENV_BOOL_EXPECTED : EXPECTED[f.kind];
    problems.add(f.path, `${what}${describeRaw(f, raw)}`, f.env!);
    return;
  }
  values.set(f.path, r.data);
}

function envString(env: Record<string, string | undefined>, name: string): string | undefined {
  const v = env[name];
  // Empty counts as unset: compose files and shells often pass `VAR=` for "not given".
  return v === undefined || v.trim() === '' ? undefined : v;
}

function expandHome(p: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return join(homedir(), p.slice(2));
  return p;
}

/** Addresses, CIDR ranges or proxy-addr's keywords (loopback, linklocal, uniquelocal). */
function checkTrustProxy(list: string[], problems: Problems): void {
  for (const entry of list) {
    try {
      proxyaddr.compile(entry);
    } catch {
      problems.list.push(
        `Invalid configuration: api.http.trust_proxy: '${entry}' is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal (TRIBUTARY_TRUST_PROXY)`,
      );
    }
  }
}

function checkUrl(name: string, value: string, protocols: string[], problems: Problems): string {
  let ok = false;
  try {
    ok = protocols.includes(new URL(value).protocol);
  } catch {
    ok = false;
  }
  if (!ok) {
    // The URL may hold a password: name the variable, never echo the value.
    problems.list.push(
      `Invalid configuration: ${name}: expected a ${protocols.map((p) => `${p}//`).join(' or ')} URL`,
    );
  }
  return value;
}

function defaultAllowedHosts(host: string): string[] {
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return [...new Set(['localhost', '127.0.0.1', '[::1]', shown])];
}

/**
 * Build the one Config (docs/reference/configuration.md). Precedence: defaults < config file (--config or
 * TRIBUTARY_CONFIG_PATH) < environment < CLI flags. Every problem found is reported
 * at once, each naming the key and where its value came from.
 */
export async function loadConfig(opts: LoadConfigOptions = {}): Promise<Config> {
  const argv = opts.argv ?? {};
  const env = opts.env ?? process.env;
  const problems = new Problems();
  const values = new Map<string, unknown>(Object.entries(DEFAULTS));

  const configPath = argv.config ?? envString(env, 'TRIBUTARY_CONFIG_PATH');
  if (configPath) readConfigFile(resolve(configPath), problems, values);

  for (const f of FIELDS) {
    const raw = f.env ? envString(env, f.env) : undefined;
    if (raw !== undefined) readEnvField(f, raw, problems, values);
  }

  if (argv.host !== undefined) {
    const r = KIND_SCHEMA.host.safeParse(argv.host);
    if (r.success) values.set('api.http.host', r.data);
    else problems.add('api.http.host', EXPECTED.host, '--host');
  }
  if (argv.port !== undefined) {
    const r = KIND_SCHEMA.port.safeParse(argv.port);
    if (r.success) values.set('api.http.port', r.data);
    else problems.add('api.http.port', EXPECTED.port, '--port');
  }

  const username = envString(env, 'TRIBUTARY_USERNAME');
  const password = envString(env, 'TRIBUTARY_PASSWORD');
  if (username !== undefined && password === undefined) {
    problems.list.push(
      'Invalid configuration: TRIBUTARY_USERNAME is set but TRIBUTARY_PASSWORD is missing (set both or neither)',
    );
  }
  if (password !== undefined && username === undefined) {
    problems.list.push(
      'Invalid configuration: TRIBUTARY_PASSWORD is set but TRIBUTARY_USERNAME is missing (set both or neither)',
    );
  }

  const catalogRaw = envString(env, 'TRIBUTARY_CATALOG_URL');
  const catalogUrl = catalogRaw
    ? checkUrl('TRIBUTARY_CATALOG_URL', catalogRaw.trim(), ['postgres:', 'postgresql:'], problems)
    : null;
  const redisRaw = envString(env, 'TRIBUTARY_REDIS_URL');
  const redisUrl = redisRaw
    ? checkUrl('TRIBUTARY_REDIS_URL', redisRaw.trim(), ['redis:', 'rediss:'], problems)
    : null;

  const tracing = tracingConfig(env, problems);

  if (values.get('api.mcp.oauth.enabled') === true && !values.get('api.mcp.oauth.issuer_url')) {
    problems.list.push(
      'Invalid configuration: api.mcp.oauth.issuer_url: required when api.mcp.oauth.enabled is true (TRIBUTARY_MCP_OAUTH_ISSUER_URL)',
    );
  }
  checkTrustProxy(values.get('api.http.trust_proxy') as string[], problems);
  if (!values.get('api.mysql.tls_cert') !== !values.get('api.mysql.tls_key')) {
    problems.list.push(
      'Invalid configuration: api.mysql.tls_cert and api.mysql.tls_key go together (TRIBUTARY_MYSQL_TLS_CERT, TRIBUTARY_MYSQL_TLS_KEY): set both or neither',
    );
  }
  problems.throwIfAny();

  if (values.get('api.mcp.cors.allow_origin_regex') === '') {
    values.set('api.mcp.cors.allow_origin_regex', NEVER_MATCH);
  }
  if (values.get('api.mcp.dns_rebinding_protection') === null) {
    values.set('api.mcp.dns_rebinding_protection', isLoopbackHost(values.get('api.http.host') as string));
  }
  if (values.get('api.mcp.allowed_hosts') === null) {
    values.set('api.mcp.allowed_hosts', defaultAllowedHosts(values.get('api.http.host') as string));
  }

  const storageRaw = expandHome(
    envString(env, 'TRIBUTARY_STORAGE_DIR')?.trim() ?? join(homedir(), '.tributary'),
  );
  const storageDir = isAbsolute(storageRaw) ? storageRaw : resolve(storageRaw);
  const secretKey = resolveSecretKey(env, storageDir);

  const tree: Tree = {};
  for (const [path, v] of values) setPath(tree, path, structuredClone(v));
  const { log_level, log_format, ...rest } = tree as unknown as FileKeys;
  return {
    storageDir,
    catalogUrl,
    secretKey,
    redisUrl,
    demo: argv.demo ?? false,
    logLevel: log_level,
    logFormat: log_format,
    api: rest.api,
    auth: {
      username: username ?? null,
      password: password ?? null,
      token_ttl_hours: rest.auth.token_ttl_hours,
      users_file: rest.auth.users_file ? resolve(expandHome(rest.auth.users_file)) : null,
    },
    passthrough: rest.passthrough,
    kb: rest.kb,
    files: rest.files,
    sources: rest.sources,
    query: rest.query,
    policy: rest.policy,
    tracing,
  };
}

/**
 * OpenTelemetry's own variables (docs/reference/configuration.md#traces): the traces endpoint
 * is OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces.
 */
function tracingConfig(env: Record<string, string | undefined>, problems: Problems): Config['tracing'] {
  const serviceName = envString(env, 'OTEL_SERVICE_NAME')?.trim() ?? 'tributary';
  const signal = envString(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')?.trim();
  const base = envString(env, 'OTEL_EXPORTER_OTLP_ENDPOINT')?.trim();
  if (signal)
    return { endpoint: checkUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', signal, HTTP, problems), serviceName };
  if (!base) return { endpoint: null, serviceName };
  const url = `${checkUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base, HTTP, problems).replace(/\/+$/, '')}/v1/traces`;
  return { endpoint: url, serviceName };
}

const HTTP = ['http:', 'https:'];
