import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RowStream } from '../../sql/engine-types.js';
import type { AppDeps } from '../deps.js';
import { sendError } from '../errors.js';

const QueryBody = z.object({
  query: z.string().min(1),
  context: z.object({ db: z.string().optional() }).passthrough().optional(),
});

/**
 * Row results are streamed as they are read (a million rows never sit in memory);
 * the JSON is the SPEC §2 table shape, written piecewise.
 */
async function* tableJson(rows: RowStream, signal: AbortSignal): AsyncGenerator<string> {
  yield `{"type":"table","column_names":${JSON.stringify(rows.columns.map((c) => c.name))},"data":[`;
  let first = true;
  try {
    for await (const batch of rows.batches) {
      if (signal.aborted) break;
      if (batch.length === 0) continue;
      let chunk = '';
      for (const row of batch) {
        chunk += first ? JSON.stringify(row) : ',' + JSON.stringify(row);
        first = false;
      }
      yield chunk;
    }
  } finally {
    await rows.cancel();
  }
  yield ']}';
}

export function registerSqlRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post('/api/sql/query', async (request, reply) => {
    const parsed = QueryBody.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'body';
      return sendError(
        reply,
        400,
        'invalid_request',
        `Invalid request: ${where}: ${issue?.message ?? 'malformed'}`,
      );
    }
    const ctx = { db: parsed.data.context?.db };
    const abort = new AbortController();
    // The response's 'close' before it finished means the client went away: stop the query.
    // (The request's own 'close' fires as soon as its body is read.)
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const result = await deps.engine.stream(parsed.data.query, ctx, { signal: abort.signal });
    if (result.type !== 'rows') return reply.type('application/json').send(result);
    reply.type('application/json');
    return reply.send(Readable.from(tableJson(result, abort.signal), { objectMode: false }));
  });

  app.get('/api/status', async () => ({
    version: deps.version,
    auth_mode: authMode(deps),
    uptime_s: Math.round((Date.now() - deps.startedAt) / 1000),
  }));
}

function authMode(deps: AppDeps): string {
  const modes: string[] = [];
  if (deps.config.auth.username) modes.push('token');
  if (deps.config.api.mcp.oauth.enabled) modes.push('oauth');
  return modes.length ? modes.join('+') : 'none';
}
