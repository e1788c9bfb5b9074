import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SourceRecord } from '../../catalog/types.js';
import type { Resolver } from '../../egress/agent.js';
import { EgressAbortedError } from '../../egress/client.js';
import { EgressError, isEgressError } from '../../egress/errors.js';
import { REST_API_ENGINE, restApiEngine } from '../../sources/rest-api/index.js';
import {
  callPassthrough,
  type PassthroughSettings,
  type PassthroughSource,
  prepareSource,
  testPassthrough,
} from '../../sources/rest-api/passthrough.js';
import type { AppDeps } from '../deps.js';
import { sendError } from '../errors.js';

/**
 * docs/reference/http.md#rest-passthrough: POST /api/integrations/{name}/passthrough and .../passthrough/test.
 * Authentication is app-wide (a hook), not here. Logs carry method, source, path, status,
 * bytes and duration, never headers, bodies or the token.
 */

export interface PassthroughRouteOptions {
  /** Tests only: answers DNS instead of the system resolver. */
  resolver?: Resolver;
}

/** The whole envelope may exceed the body limit by at most this much (docs/reference/http.md#rest-passthrough). */
const ENVELOPE_SLACK = 64 * 1024;

type NameParams = { Params: { name: string } };

function settingsOf(deps: AppDeps, opts: PassthroughRouteOptions): PassthroughSettings {
  const p = deps.config.passthrough;
  return {
    allowPrivate: p.allow_private_networks,
    timeoutMs: p.timeout_ms,
    maxRequestBytes: p.max_request_bytes,
    maxResponseBytes: p.max_response_bytes,
    resolver: opts.resolver,
  };
}

/** Parsed per record object: the manager keeps one record object per live source. */
const prepared = new WeakMap<SourceRecord, PassthroughSource>();

/** Finds the source and checks it is a rest_api one; throws EgressError otherwise. */
async function findSource(deps: AppDeps, name: string): Promise<PassthroughSource> {
  const record = await deps.sources.getRecord(name);
  const hit = record && prepared.get(record);
  if (hit) return hit;
  // Built-in sources (files, demo) have no catalog record, but they exist.
  const builtin = record ? undefined : deps.sources.peek?.(name);
  if (!record && !builtin)
    throw new EgressError('datasource_not_found', `Data source '${name}' does not exist`);
  const found = record ?? builtin!;
  if (!record || record.engine !== REST_API_ENGINE) {
    throw new EgressError(
      'not_passthrough',
      `Data source '${found.name}' is a ${found.engine} source; passthrough needs a ${REST_API_ENGINE} source`,
    );
  }
  const parsed = restApiEngine.params.safeParse(record.params);
  if (!parsed.success) {
    // Stored parameters were valid when created; name the parameter, never its value.
    const where = parsed.error.issues[0]?.path.join('.') || 'parameters';
    throw new EgressError('invalid_request', `Data source '${record.name}' has an invalid stored ${where}`);
  }
  const source = prepareSource(record.name, record.id, parsed.data);
  prepared.set(record, source);
  return source;
}

/** Aborts when the client goes away before the answer is written. */
function clientSignal(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort();
  });
  return ac.signal;
}

function pathForLog(body: unknown): string | undefined {
  const p = (body as { path?: unknown } | null)?.path;
  return typeof p === 'string' ? p.slice(0, 512) : undefined;
}

function methodForLog(body: unknown): string | undefined {
  const m = (body as { method?: unknown } | null)?.method;
  return typeof m === 'string' ? m.slice(0, 16).toUpperCase() : undefined;
}

export function registerPassthroughRoutes(
  app: FastifyInstance,
  deps: AppDeps,
  opts: PassthroughRouteOptions = {},
): void {
  const bodyLimit = deps.config.passthrough.max_request_bytes + ENVELOPE_SLACK;
  const log = deps.logger.child({ component: 'passthrough' });

  app.post<NameParams>('/api/integrations/:name/passthrough', { bodyLimit }, async (request, reply) => {
    const started = performance.now();
    const name = request.params.name;
    const entry = { source: name, method: methodForLog(request.body), path: pathForLog(request.body) };
    try {
      const source = await findSource(deps, name);
      const out = await callPassthrough(source, request.body, settingsOf(deps, opts), clientSignal(reply));
      log.info(
        {
          ...entry,
          source: source.name,
          status: out.result.status_code,
          bytes: out.bytes,
          redirects: out.redirects,
          duration_ms: Math.round(performance.now() - started),
        },
        'passthrough call',
      );
      return reply.code(200).type('application/json').send(out.result);
    } catch (e) {
      const duration_ms = Math.round(performance.now() - started);
      if (e instanceof EgressAbortedError) {
        log.info({ ...entry, duration_ms }, 'passthrough call cancelled by the client');
        return reply.code(499).send();
      }
      if (isEgressError(e)) {
        log.warn(
          { ...entry, error_code: e.errorCode, message: e.message, duration_ms },
          'passthrough call refused',
        );
        return sendError(reply, e.status, e.errorCode, e.message);
      }
      log.error({ ...entry, duration_ms, err: { name: (e as Error)?.name } }, 'passthrough call failed');
      return sendError(reply, 500, 'internal_error', 'Internal server error');
    }
  });

  app.post<NameParams>('/api/integrations/:name/passthrough/test', { bodyLimit }, async (request, reply) => {
    const answer = await passthroughTest(deps, opts, request.params.name, clientSignal(reply), log);
    if (answer === null) return reply.code(499).send();
    return reply.code(200).type('application/json').send(answer);
  });
}

/**
 * The passthrough test of a `rest_api` source (docs/reference/http.md): `{ok: true,
 * status_code, host, latency_ms}` or `{ok: false, error_code, message}`; null when the client
 * went away. Also answers POST /api/sources/{name}/test for such sources (SPEC section 5).
 */
export async function passthroughTest(
  deps: AppDeps,
  opts: PassthroughRouteOptions,
  name: string,
  signal: AbortSignal,
  log: AppDeps['logger'],
): Promise<Record<string, unknown> | null> {
  const started = performance.now();
  try {
    const source = await findSource(deps, name);
    const result = await testPassthrough(source, settingsOf(deps, opts), signal);
    log.info(
      {
        source: source.name,
        method: 'GET',
        path: source.params.test_path,
        ok: result.ok,
        ...(result.ok ? { status: result.status_code } : { error_code: result.error_code }),
        duration_ms: Math.round(performance.now() - started),
      },
      'passthrough test',
    );
    return result as unknown as Record<string, unknown>;
  } catch (e) {
    if (e instanceof EgressAbortedError) return null;
    if (isEgressError(e)) return { ok: false, error_code: e.errorCode, message: e.message };
    log.error({ source: name, err: { name: (e as Error)?.name } }, 'passthrough test failed');
    return { ok: false, error_code: 'internal_error', message: 'Internal server error' };
  }
}
