import type { FastifyInstance } from 'fastify';
import { REST_API_ENGINE } from '../../sources/rest-api/index.js';
import { errorResult } from '../../sql/result.js';
import type { AppDeps } from '../deps.js';
import { sendError } from '../errors.js';
import { passthroughTest } from './passthrough.js';

/**
 * What SHOW DATABASES does not say, for the web console and other clients
 * (docs/reference/http.md): each source's engine, and a connection test. Both need a token
 * when auth is on (they are under /api); neither shows a parameter.
 */
export function registerSourceRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/api/sources', async () => {
    const names = await deps.sources.names();
    return Promise.all(
      names.map(async (name) => {
        // The catalog record names the engine without opening a connection; built-ins are always open.
        const rec = await deps.sources.getRecord(name).catch(() => null);
        const engine =
          rec?.engine ??
          (await deps.sources
            .get(name)
            .then((s) => s.engine)
            .catch(() => null));
        return { name, engine };
      }),
    );
  });

  app.post<{ Params: { name: string } }>('/api/sources/:name/test', async (request, reply) => {
    const started = performance.now();
    // A rest_api source is tried as the passthrough tries it (its test_path, the upstream's
    // status), not with the SQL source test, which cannot tell an unreachable host.
    const record = await deps.sources.getRecord(request.params.name).catch(() => null);
    if (record?.engine === REST_API_ENGINE) {
      const ac = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) ac.abort();
      });
      const answer = await passthroughTest(
        deps,
        {},
        record.name,
        ac.signal,
        deps.logger.child({ component: 'passthrough' }),
      );
      if (answer === null) return reply.code(499).send();
      return { ...answer, engine: REST_API_ENGINE };
    }
    let source: Awaited<ReturnType<typeof deps.sources.get>>;
    try {
      source = await deps.sources.get(request.params.name);
    } catch (e) {
      const err = errorResult(e);
      return sendError(reply, 404, 'datasource_not_found', err.error_message);
    }
    try {
      await source.test();
      return { ok: true, engine: source.engine, latency_ms: Math.round(performance.now() - started) };
    } catch (e) {
      const err = errorResult(e);
      return { ok: false, engine: source.engine, error_code: err.error_code, message: err.error_message };
    }
  });
}
