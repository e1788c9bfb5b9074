import Fastify, { type FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.js';
import { sendError } from './errors.js';
import { registerSqlRoutes } from './routes/sql.js';

export type RouteRegistrar = (app: FastifyInstance, deps: AppDeps) => void | Promise<void>;

/**
 * One Node HTTP server for the API and MCP. Cross-cutting hooks (Host/Origin checks,
 * CORS, authentication, rate limits, body limits) are added app-wide by `hooks`
 * before any route so every route is covered in that order.
 */
export async function buildHttpServer(
  deps: AppDeps,
  extra: { hooks?: RouteRegistrar[]; routes?: RouteRegistrar[] } = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: deps.config.passthrough.max_request_bytes + 64 * 1024,
    // The SDK transports and passthrough need exact control of headers; keep Fastify's defaults lean.
    return503OnClosing: true,
    forceCloseConnections: true,
  });

  app.setErrorHandler((err: any, request, reply) => {
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(reply, 415, 'unsupported_media_type', 'Unsupported content type');
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, 413, 'request_too_large', 'Request body is too large');
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return sendError(reply, err.statusCode, 'invalid_request', `Invalid request: ${err.message}`);
    }
    deps.logger.error({ err: { message: err.message, code: err.code }, url: request.url }, 'unhandled error');
    return sendError(reply, 500, 'internal_error', 'Internal server error');
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, 'not_found', `No route for ${request.method} ${request.url.split('?')[0]}`),
  );

  for (const hook of extra.hooks ?? []) await hook(app, deps);
  registerSqlRoutes(app, deps);
  for (const route of extra.routes ?? []) await route(app, deps);
  return app;
}
