import type { McpServer } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { openRedis } from '../../core/redis.js';
import { callPrincipal, callQueryTool, type SessionState } from '../../mcp/query-tool.js';
import { SchemaAnnouncer } from '../../mcp/schema-announcer.js';
import { createMcpServerFactory } from '../../mcp/server.js';
import { attachAuth, principalKey } from '../../mcp/transports/auth-info.js';
import {
  hijack,
  isJsonContentType,
  jsonRpcError,
  MCP_BODY_LIMIT,
  UNPARSABLE,
  useJsonRpcBodyParser,
} from '../../mcp/transports/http-util.js';
import { RedisEventStores } from '../../mcp/transports/redis-events.js';
import { RedisSessions } from '../../mcp/transports/shared-sessions.js';
import { SseEndpoint } from '../../mcp/transports/sse.js';
import { RETRY_MS, StreamableEndpoint, type StreamableOptions } from '../../mcp/transports/streamable.js';
import type { AppDeps } from '../deps.js';
import { installedGate } from '../hooks/index.js';
import { addEarlyHandler, httpDrain } from '../server.js';
import { sessionPosts } from './session-posts.js';

export interface McpHttpOptions extends Partial<StreamableOptions> {}

export interface McpHttpHandle {
  /** Live sessions per transport (for tests and status). */
  sessions(): { streamable: number; sse: number };
  /** Close idle Streamable HTTP sessions now instead of at the next sweep. */
  sweep(): void;
}

const DEFAULTS: StreamableOptions = {
  sessionIdleMs: 5 * 60_000,
  sweepIntervalMs: 30_000,
  maxSessions: 2_000,
  keepAliveMs: 20_000,
};

/**
 * The MCP HTTP face on the main Fastify app: `/mcp/status`, Streamable HTTP at
 * `/mcp/streamable` and `/mcp` (2025 sessions and 2026 stateless), legacy SSE at `/mcp/sse` +
 * `/mcp/messages`. App-wide hooks (Host/Origin, CORS, auth, rate limits) run before
 * these handlers; the handlers then give the raw request and response to the SDK.
 */
export function registerMcpRoutes(
  app: FastifyInstance,
  deps: AppDeps,
  factory: (session?: SessionState) => McpServer,
  options: McpHttpOptions = {},
): McpHttpHandle {
  const opts: StreamableOptions = { ...DEFAULTS, ...options };
  if (options.sessionIdleMs !== undefined && options.sweepIntervalMs === undefined) {
    opts.sweepIntervalMs = Math.max(
      10,
      Math.min(DEFAULTS.sweepIntervalMs, Math.floor(options.sessionIdleMs / 2)),
    );
  }
  const log = deps.logger.child({ component: 'mcp' });
  // Sessions and listen streams hear of schema changes (mcp/schema-announcer.ts).
  const announcer = opts.announcer ?? new SchemaAnnouncer(deps.engine, log);
  opts.announcer = announcer;
  app.addHook('onClose', async () => announcer.close());
  const streamable = new StreamableEndpoint(
    factory,
    log,
    opts,
    (session, args, call) => {
      // Over HTTP: the request's principal; none is `local` only with auth off.
      call.runAs = callPrincipal(call.runAs ?? null, true, deps);
      return callQueryTool(deps, session, args, call);
    },
    deps.observer?.metrics ? (n) => deps.observer?.metrics?.resultBytes('mcp', n) : undefined,
  );
  const sse = new SseEndpoint(factory, log, opts.keepAliveMs, opts.announcer);
  // Session POSTs skip Fastify's router, through the same security gate; never without one.
  const gate = installedGate(app);
  if (gate) addEarlyHandler(app, sessionPosts(gate, streamable, log));

  // Taking this replica out of service (http/drain.ts): Streamable HTTP GET streams are told to
  // reconnect at once; legacy SSE streams carry their sessions' answers, so they end last.
  const drain = httpDrain(app);
  drain?.onDrain(() => streamable.endStreams());
  drain?.onFinish(() => sse.endStreams(RETRY_MS));

  // While draining, http/drain.ts answers this 503 before it gets here.
  app.get('/mcp/status', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok', service: 'tributary-mcp', version: deps.version };
  });

  // An encapsulated scope so the JSON-RPC body parser applies to MCP routes only.
  app.register(async (scope) => {
    useJsonRpcBodyParser(scope);
    // Body errors (too large, wrong media type, malformed) answer in JSON-RPC terms; anything
    // else (a hook's 401/429, a bug) goes on to the app's error handler and its error shape.
    scope.setErrorHandler((err: { statusCode?: number; code?: string; message: string }, _request, reply) => {
      if (!err.code?.startsWith('FST_ERR_CTP_')) throw err;
      const status = err.statusCode ?? 400;
      const message =
        status === 413
          ? `Payload Too Large: an MCP message may be at most ${MCP_BODY_LIMIT} bytes`
          : status === 415
            ? 'Unsupported Media Type: Content-Type must be application/json'
            : `Bad Request: ${err.message}`;
      return reply
        .code(status)
        .type('application/json')
        .send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
    });

    // `/mcp` is the same endpoint: what many clients and the MCP Inspector try first.
    for (const url of ['/mcp/streamable', '/mcp'])
      scope.route({
        method: ['GET', 'POST', 'DELETE'],
        url,
        bodyLimit: MCP_BODY_LIMIT,
        exposeHeadRoute: false,
        handler: async (request, reply) => {
          const body = request.body;
          const res = hijack(reply);
          if (request.method === 'POST' && !checkPostBody(request, res)) return;
          try {
            await streamable.handle(request.raw, res, body, request.principal);
          } catch (e) {
            log.error({ err: (e as Error).message }, 'mcp streamable request failed');
            jsonRpcError(res, 500, -32603, 'Internal server error');
          }
        },
      });

    // No implicit HEAD route: a HEAD must not open a session.
    scope.get('/mcp/sse', { exposeHeadRoute: false }, async (request, reply) => {
      await sse.open(hijack(reply), principalKey(request.principal));
    });

    scope.post('/mcp/messages', { bodyLimit: MCP_BODY_LIMIT }, async (request, reply) => {
      const q = request.query as Record<string, string | string[] | undefined>;
      const id = first(q.session_id) ?? first(q.sessionId);
      const body = request.body;
      const res = hijack(reply);
      if (!checkPostBody(request, res)) return;
      attachAuth(request.raw, request.principal);
      try {
        await sse.message(request.raw, res, id, body, principalKey(request.principal));
      } catch (e) {
        log.error({ err: (e as Error).message }, 'mcp sse message failed');
        jsonRpcError(res, 500, -32603, 'Internal server error');
      }
    });
  });

  app.addHook('onClose', async () => {
    await Promise.allSettled([streamable.close(), sse.close()]);
  });

  return {
    sessions: () => ({ streamable: streamable.sessionCount, sse: sse.sessionCount }),
    sweep: () => streamable.sweep(),
  };
}

/** A POST must carry JSON that parses; answered here in JSON-RPC terms when it does not. */
function checkPostBody(request: FastifyRequest, res: import('node:http').ServerResponse): boolean {
  if (!isJsonContentType(request.headers['content-type'])) {
    jsonRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    return false;
  }
  if (request.body === UNPARSABLE || request.body === undefined) {
    jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
    return false;
  }
  return true;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v || undefined;
}

/** The MCP HTTP face as a route registrar for the HTTP server's `routes` list (cli/wiring.ts). */
export function registerMcp(app: FastifyInstance, deps: AppDeps): void {
  const idleMs = deps.config.api.mcp.session_idle_timeout_ms;
  const url = deps.config.redisUrl;
  // With Redis, any replica picks up a 2025-era session another one opened (SPEC §13).
  // Their resumable event streams too, on the same connection (redis-events.ts).
  const redis = url ? openRedis(url, deps.logger, 'mcp-session') : null;
  const shared = redis ? new RedisSessions(redis, idleMs) : null;
  const events = redis ? new RedisEventStores(redis, deps.logger.child({ component: 'mcp' })) : null;
  if (shared) app.addHook('onClose', () => shared.close());
  registerMcpRoutes(app, deps, createMcpServerFactory(deps), { sessionIdleMs: idleMs, shared, events });
}
