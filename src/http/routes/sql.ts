import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { runAs } from '../../auth/principal.js';
import type { RowStream } from '../../sql/engine-types.js';
import { errorResult } from '../../sql/result.js';
import type { AppDeps } from '../deps.js';
import { sendError } from '../errors.js';

const QueryBody = z.object({
  query: z.string().min(1),
  context: z.object({ db: z.string().optional() }).passthrough().optional(),
});

/** One call's time limit in milliseconds, within query.timeout_ms. */
const TIMEOUT_HEADER = 'x-tributary-timeout-ms';

function rowsJson(batch: unknown[][], first: boolean): string {
  if (batch.length === 0) return '';
  const body = JSON.stringify(batch);
  return first ? body.slice(1, -1) : `,${body.slice(1, -1)}`;
}

/**
 * Row results are streamed as they are read (a million rows never sit in memory); the
 * JSON is the docs/reference/sql.md table shape, written piecewise. A result that fits in its first
 * batch is sent whole, which is cheaper for the common small answer. A failure after the
 * first rows ends the body with an `error` member (docs/reference/http.md).
 */
async function tableBody(
  rows: RowStream,
  signal: AbortSignal,
  onFailure: (e: unknown) => void,
  onBytes?: (n: number) => void,
): Promise<string | Readable> {
  const head = `{"type":"table","column_names":${JSON.stringify(rows.columns.map((c) => c.name))},"data":[`;
  const it = rows.batches[Symbol.asyncIterator]();
  let first: IteratorResult<unknown[][]>;
  let second: IteratorResult<unknown[][]>;
  try {
    first = await it.next();
    second = first.done ? first : await it.next();
  } catch (e) {
    await rows.cancel().catch(() => {});
    throw e;
  }
  if (second.done) {
    await rows.cancel();
    const whole = `${head}${first.done ? '' : rowsJson(first.value, true)}]}`;
    onBytes?.(Buffer.byteLength(whole));
    return whole;
  }
  return Readable.from(rest(), { objectMode: false });
  /** The body after its first batch; its size is told once at the end, however the stream ends. */
  async function* rest(): AsyncGenerator<string> {
    let bytes = 0;
    const sized = onBytes
      ? (part: string) => {
          bytes += Buffer.byteLength(part);
          return part;
        }
      : (part: string) => part;
    try {
      let wrote = first.value.length > 0;
      let failure: unknown = null;
      try {
        yield sized(head + rowsJson(first.value, true));
        yield sized(rowsJson(second.value, !wrote));
        wrote ||= second.value.length > 0;
        for (;;) {
          if (signal.aborted) break;
          const n = await it.next();
          if (n.done) break;
          if (n.value.length === 0) continue;
          yield sized(rowsJson(n.value, !wrote));
          wrote = true;
        }
      } catch (e) {
        // The status (200) and the first rows are sent: the body still ends as valid JSON, with
        // the error as its last member, so a cut-off result is never mistaken for a whole one.
        failure = e;
        onFailure(e);
      } finally {
        await rows.cancel().catch(() => {});
      }
      yield sized(failure === null ? ']}' : `],"error":${JSON.stringify(errorResult(failure))}}`);
    } finally {
      onBytes?.(bytes);
    }
  }
}

export function registerSqlRoutes(app: FastifyInstance, deps: AppDeps): void {
  const metrics = deps.observer?.metrics;
  app.post('/api/sql/query', { bodyLimit: deps.config.api.http.max_body_bytes }, async (request, reply) => {
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
    const timeout = request.headers[TIMEOUT_HEADER];
    let timeoutMs: number | undefined;
    if (timeout !== undefined) {
      timeoutMs = Number(timeout);
      if (typeof timeout !== 'string' || !/^\d+$/.test(timeout.trim()) || timeoutMs <= 0)
        return sendError(
          reply,
          400,
          'invalid_request',
          `Invalid request: header ${TIMEOUT_HEADER} must be a positive integer (milliseconds)`,
        );
    }
    // Who the statement runs as (the console's statements come here too): `local` with auth off.
    const ctx = { db: parsed.data.context?.db, principal: runAs(request.principal) };
    const abort = new AbortController();
    // The response's 'close' before it finished means the client went away: stop the query.
    // (The request's own 'close' fires as soon as its body is read.)
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const result = await deps.engine.stream(parsed.data.query, ctx, {
      signal: abort.signal,
      timeoutMs,
      caller: {
        principal: request.principal?.id ?? null,
        transport: 'http',
        host: `${request.ip}:${request.socket.remotePort ?? 0}`,
      },
    });
    if (result.type !== 'rows') return reply.type('application/json').send(result);
    let body: string | Readable;
    try {
      body = await tableBody(
        result,
        abort.signal,
        (e) => request.log.warn({ err: errorResult(e) }, 'result stream failed after its first rows'),
        metrics ? (n) => metrics.resultBytes('http', n) : undefined,
      );
    } catch (e) {
      return reply.type('application/json').send(errorResult(e));
    }
    return reply.type('application/json').send(body);
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
