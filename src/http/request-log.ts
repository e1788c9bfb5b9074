import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/**
 * One info line per HTTP request: method, route pattern, status, duration. The route is the
 * pattern (`/api/files/:name`), never the URL: query strings and path values may carry
 * names or tokens that do not belong in logs.
 */
export function registerRequestLog(app: FastifyInstance, logger: Logger): void {
  const log = logger.child({ component: 'http' });
  app.addHook('onResponse', (request, reply, done) => {
    log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? '(no route)',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
    done();
  });
}

/** The same line for a request an early handler served (its path is a fixed route). */
export function logEarlyRequest(logger: Logger, req: IncomingMessage, res: ServerResponse): void {
  const started = performance.now();
  res.once('finish', () => {
    logger.info(
      {
        component: 'http',
        method: req.method,
        route: (req.url ?? '').split('?')[0],
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  });
}
