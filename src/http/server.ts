import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import proxyaddr from '@fastify/proxy-addr';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { isTooDeep } from '../core/errors.js';
import { decodeUtf8 } from '../core/utf8.js';
import { fastifyTrustProxy } from './client-ip.js';
import type { AppDeps } from './deps.js';
import { HttpDrain } from './drain.js';
import { sendError } from './errors.js';
import { ConnectionGuard, clientError } from './limits.js';
import { logEarlyRequest, registerRequestLog } from './request-log.js';
import { registerMetricsRoutes } from './routes/metrics.js';
import { registerSqlRoutes } from './routes/sql.js';

export type RouteRegistrar = (app: FastifyInstance, deps: AppDeps) => void | Promise<void>;

/**
 * Serves a request before Fastify's router, or returns false to leave it to Fastify. For
 * the hottest requests only (MCP session POSTs), where Fastify's request and reply objects,
 * hooks and body parsing were about a tenth of a point lookup's CPU. A handler that takes a
 * request must apply the same security gate (hooks/gate.ts) as Fastify's hook does.
 */
export type EarlyHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

const earlyHandlers = new WeakMap<FastifyInstance, EarlyHandler[]>();
const drains = new WeakMap<FastifyInstance, HttpDrain>();

/** The drain switch of an app made by buildHttpServer (drain.ts); undefined for any other app. */
export function httpDrain(app: FastifyInstance): HttpDrain | undefined {
  return drains.get(app);
}

/** Ignored for an app not made by buildHttpServer: then Fastify serves everything. */
export function addEarlyHandler(app: FastifyInstance, handler: EarlyHandler): void {
  earlyHandlers.get(app)?.push(handler);
}

/** Fastify's own HTTP/1 server, with the early handlers asked first and the client limits applied. */
function serverWith(early: EarlyHandler[], logger: Logger, guard: ConnectionGuard, drain: HttpDrain) {
  return (
    handler: (req: IncomingMessage, res: ServerResponse) => void,
    opts: FastifyServerOptions,
  ): Server => {
    // Header and body deadlines are checked every second (Node's default: every 30 s).
    const server = createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
      guard.request(req, res);
      if (drain.request(req, res)) {
        logEarlyRequest(logger, req, res);
        return;
      }
      for (const h of early)
        if (h(req, res)) {
          logEarlyRequest(logger, req, res);
          return;
        }
      handler(req, res);
    });
    // What Fastify sets on the server it makes itself.
    if (opts.keepAliveTimeout !== undefined) server.keepAliveTimeout = opts.keepAliveTimeout;
    if (opts.requestTimeout !== undefined) server.requestTimeout = opts.requestTimeout;
    if (opts.connectionTimeout !== undefined) server.setTimeout(opts.connectionTimeout);
    if (opts.maxRequestsPerSocket) server.maxRequestsPerSocket = opts.maxRequestsPerSocket;
    guard.attach(server);
    drain.attach(server);
    return server;
  };
}

/**
 * One Node HTTP server for the API and MCP. Cross-cutting hooks (Host/Origin checks,
 * CORS, authentication, rate limits, body limits) are added app-wide by `hooks`
 * before any route so every route is covered in that order.
 */
export async function buildHttpServer(
  deps: AppDeps,
  extra: { hooks?: RouteRegistrar[]; routes?: RouteRegistrar[] } = {},
): Promise<FastifyInstance> {
  const early: EarlyHandler[] = [];
  const http = deps.config.api.http;
  const trust = http.trust_proxy.length ? proxyaddr.compile([...http.trust_proxy]) : () => false;
  const guard = new ConnectionGuard(
    {
      headerTimeoutMs: http.header_timeout_ms,
      minBodyRate: http.min_body_rate,
      maxConnectionsPerIp: http.max_connections_per_ip,
      authOn: !!deps.config.auth.username || deps.config.api.mcp.oauth.enabled,
      trustedProxy: (address) => trust(address, 0),
    },
    deps.logger,
  );
  const drain = new HttpDrain();
  const app = Fastify({
    serverFactory: serverWith(early, deps.logger, guard, drain),
    clientErrorHandler: clientError,
    logger: false,
    trustProxy: fastifyTrustProxy(deps.config.api.http.trust_proxy),
    bodyLimit: deps.config.passthrough.max_request_bytes + 64 * 1024,
    // The SDK transports and passthrough need exact control of headers; keep Fastify's defaults lean.
    return503OnClosing: true,
    forceCloseConnections: true,
  });

  earlyHandlers.set(app, early);
  drains.set(app, drain);
  // JSON bodies must be valid UTF-8: Fastify's own parser would replace bad bytes with U+FFFD
  // and run a statement the caller never wrote.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const text = decodeUtf8(body as Buffer);
    if (text === null) {
      done(Object.assign(new Error('the body is not valid UTF-8'), { statusCode: 400 }), undefined);
      return;
    }
    json(request, text, done);
  });
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(reply, 415, 'unsupported_media_type', 'Unsupported content type');
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = request.routeOptions.bodyLimit;
      const setting = request.url.startsWith('/api/sql/') ? ' (api.http.max_body_bytes)' : '';
      return sendError(
        reply,
        413,
        'request_too_large',
        `Request body is too large: at most ${limit} bytes${setting}`,
      );
    }
    if (isTooDeep(err))
      return sendError(reply, 400, 'invalid_request', 'Invalid request: the JSON body is nested too deeply');
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return sendError(reply, err.statusCode, 'invalid_request', `Invalid request: ${err.message}`);
    }
    deps.logger.error({ err: { message: err.message, code: err.code }, url: request.url }, 'unhandled error');
    return sendError(reply, 500, 'internal_error', 'Internal server error');
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, 'not_found', `No route for ${request.method} ${request.url.split('?')[0]}`),
  );

  registerRequestLog(app, deps.logger);
  for (const hook of extra.hooks ?? []) await hook(app, deps);
  registerSqlRoutes(app, deps);
  registerMetricsRoutes(app, deps);
  for (const route of extra.routes ?? []) await route(app, deps);
  return app;
}
