import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';

/**
 * GET /metrics (Prometheus text format; needs a token when auth is on), and the count of
 * every HTTP request by method, route pattern (never the raw URL: labels stay bounded) and
 * status. MCP session requests served before Fastify's router are counted as statements,
 * not here.
 */
export function registerMetricsRoutes(app: FastifyInstance, deps: AppDeps): void {
  const metrics = deps.observer?.metrics;
  if (!metrics) return;
  // A callback hook: an async one costs a promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    metrics.request(request.method, route, reply.statusCode);
    done();
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.text();
    return reply.header('cache-control', 'no-store').type(metrics.contentType).send(text);
  });
}
