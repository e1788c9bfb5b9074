import { z } from 'zod';

/**
 * Every settable configuration key (docs/reference/configuration.md), once: its value schema, its environment
 * variable, and the words used when a value is wrong. The config-file schema and the
 * environment parsing are both derived from this table so they cannot drift apart.
 */
export type Kind =
  | 'bool'
  | 'port'
  | 'posInt'
  | 'posNumber'
  | 'host'
  | 'string'
  | 'optString'
  | 'list'
  | 'regex'
  | 'optUrl'
  | 'logLevel'
  | 'logFormat';

export interface Field {
  /** Dotted key path in the config file and the Config object. */
  path: string;
  kind: Kind;
  env?: string;
  /** Never echo the value in errors. */
  secret?: boolean;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

export const FIELDS: readonly Field[] = [
  { path: 'api.http.host', kind: 'host', env: 'TRIBUTARY_HTTP_HOST' },
  { path: 'api.http.port', kind: 'port', env: 'TRIBUTARY_HTTP_PORT' },
  { path: 'api.http.trust_proxy', kind: 'list', env: 'TRIBUTARY_TRUST_PROXY' },
  { path: 'api.http.max_body_bytes', kind: 'posInt', env: 'TRIBUTARY_HTTP_MAX_BODY_BYTES' },
  { path: 'api.http.header_timeout_ms', kind: 'posInt', env: 'TRIBUTARY_HTTP_HEADER_TIMEOUT_MS' },
  { path: 'api.http.min_body_rate', kind: 'posInt', env: 'TRIBUTARY_HTTP_MIN_BODY_RATE' },
  { path: 'api.http.max_connections_per_ip', kind: 'posInt', env: 'TRIBUTARY_HTTP_MAX_CONNECTIONS_PER_IP' },
  { path: 'api.http.drain_ms', kind: 'posInt', env: 'TRIBUTARY_HTTP_DRAIN_MS' },
  { path: 'api.mysql.enabled', kind: 'bool', env: 'TRIBUTARY_MYSQL_ENABLED' },
  { path: 'api.mysql.port', kind: 'port', env: 'TRIBUTARY_MYSQL_PORT' },
  { path: 'api.mysql.tls_cert', kind: 'optString', env: 'TRIBUTARY_MYSQL_TLS_CERT' },
  { path: 'api.mysql.tls_key', kind: 'optString', env: 'TRIBUTARY_MYSQL_TLS_KEY' },
  { path: 'api.mcp.cors.enabled', kind: 'bool', env: 'TRIBUTARY_MCP_CORS_ENABLED' },
  { path: 'api.mcp.cors.allow_origins', kind: 'list', env: 'TRIBUTARY_MCP_ALLOW_ORIGINS' },
  { path: 'api.mcp.cors.allow_origin_regex', kind: 'regex', env: 'TRIBUTARY_MCP_ALLOW_ORIGIN_REGEXP' },
  { path: 'api.mcp.cors.allow_headers', kind: 'list', env: 'TRIBUTARY_MCP_ALLOW_HEADERS' },
  { path: 'api.mcp.rate_limit.enabled', kind: 'bool', env: 'TRIBUTARY_MCP_RATE_LIMIT_ENABLED' },
  { path: 'api.mcp.rate_limit.requests_per_minute', kind: 'posInt', env: 'TRIBUTARY_MCP_RATE_LIMIT_RPM' },
  { path: 'api.mcp.dns_rebinding_protection', kind: 'bool', env: 'TRIBUTARY_MCP_DNS_REBINDING_PROTECTION' },
  { path: 'api.mcp.allowed_hosts', kind: 'list', env: 'TRIBUTARY_MCP_ALLOWED_HOSTS' },
  { path: 'api.mcp.oauth.enabled', kind: 'bool', env: 'TRIBUTARY_MCP_OAUTH_ENABLED' },
  { path: 'api.mcp.oauth.issuer_url', kind: 'optUrl', env: 'TRIBUTARY_MCP_OAUTH_ISSUER_URL' },
  { path: 'api.mcp.oauth.client_id', kind: 'optString', env: 'TRIBUTARY_MCP_OAUTH_CLIENT_ID' },
  {
    path: 'api.mcp.oauth.client_secret',
    kind: 'optString',
    env: 'TRIBUTARY_MCP_OAUTH_CLIENT_SECRET',
    secret: true,
  },
  { path: 'api.mcp.oauth.scope', kind: 'string', env: 'TRIBUTARY_MCP_OAUTH_SCOPE' },
  { path: 'api.mcp.oauth.public_url', kind: 'optUrl', env: 'TRIBUTARY_MCP_OAUTH_PUBLIC_URL' },
  { path: 'api.mcp.oauth.groups_claim', kind: 'string', env: 'TRIBUTARY_MCP_OAUTH_GROUPS_CLAIM' },
  { path: 'api.mcp.max_rows', kind: 'posInt', env: 'TRIBUTARY_MCP_MAX_ROWS' },
  { path: 'api.mcp.max_result_bytes', kind: 'posInt', env: 'TRIBUTARY_MCP_MAX_RESULT_BYTES' },
  { path: 'api.mcp.result_handles.max_bytes', kind: 'posInt', env: 'TRIBUTARY_MCP_RESULT_HANDLES_MAX_BYTES' },
  { path: 'api.mcp.result_handles.ttl_ms', kind: 'posInt', env: 'TRIBUTARY_MCP_RESULT_HANDLES_TTL_MS' },
  {
    path: 'api.mcp.result_handles.per_principal',
    kind: 'posInt',
    env: 'TRIBUTARY_MCP_RESULT_HANDLES_PER_PRINCIPAL',
  },
  { path: 'api.mcp.read_only', kind: 'bool', env: 'TRIBUTARY_MCP_READ_ONLY' },
  { path: 'api.mcp.session_idle_timeout_ms', kind: 'posInt', env: 'TRIBUTARY_MCP_SESSION_IDLE_TIMEOUT_MS' },
  { path: 'auth.token_ttl_hours', kind: 'posNumber', env: 'TRIBUTARY_TOKEN_TTL_HOURS' },
  { path: 'auth.users_file', kind: 'optString', env: 'TRIBUTARY_USERS_FILE' },
  {
    path: 'passthrough.allow_private_networks',
    kind: 'bool',
    env: 'TRIBUTARY_PASSTHROUGH_ALLOW_PRIVATE_NETWORKS',
  },
  { path: 'passthrough.timeout_ms', kind: 'posInt', env: 'TRIBUTARY_PASSTHROUGH_TIMEOUT_MS' },
  { path: 'passthrough.max_request_bytes', kind: 'posInt', env: 'TRIBUTARY_PASSTHROUGH_MAX_REQUEST_BYTES' },
  { path: 'passthrough.max_response_bytes', kind: 'posInt', env: 'TRIBUTARY_PASSTHROUGH_MAX_RESPONSE_BYTES' },
  { path: 'kb.allow_private_networks', kind: 'bool', env: 'TRIBUTARY_KB_ALLOW_PRIVATE_NETWORKS' },
  { path: 'kb.allowed_hosts', kind: 'list', env: 'TRIBUTARY_KB_ALLOWED_HOSTS' },
  { path: 'files.max_upload_bytes', kind: 'posInt', env: 'TRIBUTARY_MAX_UPLOAD_BYTES' },
  { path: 'sources.pool_wait_timeout_ms', kind: 'posInt', env: 'TRIBUTARY_SOURCE_POOL_WAIT_MS' },
  { path: 'query.timeout_ms', kind: 'posInt', env: 'TRIBUTARY_QUERY_TIMEOUT_MS' },
  { path: 'query.max_fragment_rows', kind: 'posInt', env: 'TRIBUTARY_QUERY_MAX_FRAGMENT_ROWS' },
  { path: 'query.audit_log', kind: 'optString', env: 'TRIBUTARY_AUDIT_LOG' },
  { path: 'kb.max_results', kind: 'posInt', env: 'TRIBUTARY_KB_MAX_RESULTS' },
  { path: 'policy.file', kind: 'optString', env: 'TRIBUTARY_POLICY_FILE' },
  { path: 'api.metrics.enabled', kind: 'bool', env: 'TRIBUTARY_METRICS_ENABLED' },
  { path: 'log_level', kind: 'logLevel', env: 'TRIBUTARY_LOG_LEVEL' },
  { path: 'log_format', kind: 'logFormat', env: 'TRIBUTARY_LOG_FORMAT' },
];

export const EXPECTED: Record<Kind, string> = {
  bool: 'expected true or false',
  port: 'expected an integer from 0 to 65535',
  posInt: 'expected a positive integer',
  posNumber: 'expected a positive number',
  host: 'expected a host name or IP address',
  string: 'expected a non-empty string',
  optString: 'expected a non-empty string or null',
  list: 'expected a list of non-empty strings',
  regex: 'expected a valid regular expression',
  optUrl: 'expected an http(s) URL or null',
  logLevel: `expected one of ${LOG_LEVELS.join(', ')}`,
  logFormat: `expected one of ${LOG_FORMATS.join(', ')}`,
};

function compiles(s: string): boolean {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

const nonEmpty = z.string().trim().min(1);

export const KIND_SCHEMA: Record<Kind, z.ZodType> = {
  bool: z.boolean(),
  port: z.number().int().min(0).max(65535),
  posInt: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  posNumber: z.number().positive().finite(),
  host: nonEmpty.regex(/^[^\s/]+$/),
  string: nonEmpty,
  optString: nonEmpty.nullable(),
  list: z.array(nonEmpty),
  regex: z.string().refine(compiles),
  optUrl: nonEmpty.refine(isHttpUrl).nullable(),
  logLevel: z.enum(LOG_LEVELS),
  logFormat: z.enum(LOG_FORMATS),
};

/** The config file schema: nested strict objects built from FIELDS, every key optional. */
export function fileSchema(): z.ZodType {
  interface Node {
    [k: string]: Node | z.ZodType;
  }
  const tree: Node = {};
  for (const f of FIELDS) {
    const parts = f.path.split('.');
    let node = tree;
    for (const p of parts.slice(0, -1)) {
      node[p] ??= {};
      node = node[p] as Node;
    }
    node[parts.at(-1)!] = KIND_SCHEMA[f.kind].optional();
  }
  const build = (n: Node): z.ZodType =>
    z.strictObject(
      Object.fromEntries(
        Object.entries(n).map(([k, v]) => [k, v instanceof z.ZodType ? v : build(v).optional()]),
      ),
    );
  return build(tree);
}

const TRUE = new Set(['1', 'true', 'on', 'yes', 'y']);
const FALSE = new Set(['0', 'false', 'off', 'no', 'n']);

/** Turn an environment string into the value type of its kind; undefined when it cannot be read as one. */
export function parseEnvValue(kind: Kind, raw: string): unknown {
  const s = raw.trim();
  switch (kind) {
    case 'bool': {
      const l = s.toLowerCase();
      if (TRUE.has(l)) return true;
      if (FALSE.has(l)) return false;
      return undefined;
    }
    case 'port':
    case 'posInt':
      return /^[0-9]+$/.test(s) ? Number(s) : undefined;
    case 'posNumber':
      return /^[0-9]+(\.[0-9]+)?$/.test(s) ? Number(s) : undefined;
    case 'list':
      return s
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '');
    case 'logLevel':
    case 'logFormat':
      return s.toLowerCase();
    default:
      return s;
  }
}

export const ENV_BOOL_EXPECTED = 'expected one of 1/true/on/yes/y or 0/false/off/no/n';
