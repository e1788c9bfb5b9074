/** The one validated, typed configuration (docs/reference/configuration.md). Built by config/load.ts; passed down, never re-read. */
export interface Config {
  storageDir: string;
  catalogUrl: string | null;
  secretKey: Buffer; // 32 bytes
  redisUrl: string | null;
  demo: boolean;
  logLevel: string;
  /** `auto`: pretty on a terminal, JSON lines otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  api: {
    /**
     * trust_proxy: proxies whose X-Forwarded-For is believed; empty: none (the socket's address).
     * The rest bound what one client can hold (http/limits.ts).
     */
    http: {
      host: string;
      port: number;
      trust_proxy: string[];
      /** The largest POST /api/sql/query body. */
      max_body_bytes: number;
      /** Headers must arrive within this; an unauthenticated request's body too. */
      header_timeout_ms: number;
      /** Bytes a second a request body must keep up after header_timeout_ms. */
      min_body_rate: number;
      /** Open connections one client address may hold (a trusted proxy's are not counted). */
      max_connections_per_ip: number;
      /** After SIGTERM: how long requests and statements in flight may take to finish (cli/drain.ts). */
      drain_ms: number;
    };
    /** GET /metrics and the counting behind it. */
    metrics: { enabled: boolean };
    /** The MySQL wire protocol listener (docs/reference/wire.md); its host is api.http.host. */
    mysql: { enabled: boolean; port: number; tls_cert: string | null; tls_key: string | null };
    mcp: {
      cors: {
        enabled: boolean;
        allow_origins: string[];
        allow_origin_regex: string;
        allow_headers: string[];
      };
      rate_limit: { enabled: boolean; requests_per_minute: number };
      dns_rebinding_protection: boolean;
      allowed_hosts: string[];
      oauth: {
        enabled: boolean;
        issuer_url: string | null;
        client_id: string | null;
        client_secret: string | null;
        scope: string;
        public_url: string | null;
        /** The claim that holds the caller's groups (an array of strings, or one space-separated string). */
        groups_claim: string;
      };
      max_rows: number;
      /** An MCP answer's JSON never passes this many bytes; rows past it are cut (and kept under a handle). */
      max_result_bytes: number;
      /** The rows of cut MCP answers, kept for paging (src/mcp/result-handles.ts). */
      result_handles: { max_bytes: number; ttl_ms: number; per_principal: number };
      read_only: boolean;
      /** A Streamable HTTP session with no request for this long is closed (clients often leave without DELETE). */
      session_idle_timeout_ms: number;
    };
  };
  auth: {
    username: string | null;
    password: string | null;
    token_ttl_hours: number;
    /** More token-auth users (docs/reference/http.md#more-users); an absolute path. */
    users_file: string | null;
  };
  passthrough: {
    allow_private_networks: boolean;
    timeout_ms: number;
    max_request_bytes: number;
    max_response_bytes: number;
  };
  /** Knowledge bases: where their embedding and reranking providers may be reached, and how many hits a search may return (SPEC §8). */
  kb: {
    /** Admit private ranges (loopback is always admitted; link-local and metadata never). */
    allow_private_networks: boolean;
    /** Host names providers may be reached at; empty: any host the address policy admits. */
    allowed_hosts: string[];
    /** The most hits one knowledge-base search may return (a larger LIMIT or answer is 1210). */
    max_results: number;
  };
  files: {
    max_upload_bytes: number;
  };
  sources: {
    /** How long a statement waits for one of a source's pooled connections before 1040. */
    pool_wait_timeout_ms: number;
  };
  query: {
    /** A statement still running after this long is cancelled at its sources and answered 3024. */
    timeout_ms: number;
    /** Rows one source may load into the local engine for one statement (1104 beyond). */
    max_fragment_rows: number;
    /** The audit log: a file path, `stderr`, or null (off). */
    audit_log: string | null;
  };
  /** Absent in configurations built by hand (tests): off. */
  policy?: {
    /** The access policy file (docs/reference/policy.md); null: off, every principal may do everything. */
    file: string | null;
  };
  /** OpenTelemetry traces (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, OTEL_SERVICE_NAME); endpoint null: off. */
  tracing: { endpoint: string | null; serviceName: string };
}
