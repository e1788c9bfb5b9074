import type { CallToolResult, McpServer, RegisteredTool, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { authIsOn, localPrincipal } from '../auth/principal.js';
import { openRedis } from '../core/redis.js';
import { readStatement, sourcesOf } from '../observe/redact.js';
import type { ExecOptions, QueryContext, StatementPrincipal } from '../sql/engine-types.js';
import type { ErrorResult, Result } from '../sql/result.js';
import type { McpDeps } from './deps.js';
import type { HandleStore } from './handle-store.js';
import { mcpPrincipal } from './principal.js';
import { RedisHandleStore } from './redis-handles.js';
import { ResultHandles } from './result-handles.js';
import {
  handleStoreDown,
  type PageRequest,
  pageAnswer,
  parsePageRequest,
  rowTooLarge,
  unknownHandle,
} from './result-page.js';
import { queryOutputSchema } from './result-schema.js';
import { LOCAL_OWNER, ownerOf, principalOf } from './transports/auth-info.js';
import { type HandleView, NOTE_RESERVE_BYTES, truncationFields, withTruncation } from './truncation.js';

const QUERY_DESCRIPTION = `Run one SQL statement (MySQL syntax) against the connected data sources and return the result.

Tables are named source.table (or source.schema.table for sources with schemas); an unqualified table belongs to context.db. One statement may join tables from several sources.
Statements: SELECT (joins, subqueries, CTEs, window functions, UNION, GROUP BY, ORDER BY, LIMIT), SHOW DATABASES, SHOW TABLES FROM source, DESCRIBE source.table, SHOW COLUMNS FROM table FROM source, INSERT/UPDATE/DELETE on one source, CREATE DATABASE name WITH ENGINE = 'postgres' PARAMETERS = {...}, DROP DATABASE.
Read the schema:// resources first to learn the source, table and column names.
Knowledge bases: SELECT * FROM kb WHERE content = 'question' [AND metadata filters] [AND hybrid_search = true] LIMIT k (ordered by relevance); INSERT INTO kb SELECT id, content, ... FROM source.table; CREATE KNOWLEDGE_BASE kb USING content_columns = ['body'], metadata_columns = ['x'].

Result (also in structuredContent.result):
- {"type":"table","column_names":[...],"data":[[...],...]} for rows. A long answer is cut to fit (rows and bytes) and then says so first: "truncated": true, "rows_returned", "rows_available" (or "more_than"), a "handle" and "next".
  Page on with next (SELECT * FROM result('r_...') LIMIT 100 OFFSET n, for 10 minutes), or better, narrow the question: WHERE, fewer columns, COUNT/GROUP BY, ORDER BY ... LIMIT.
- {"type":"ok","affected_rows":N} for writes and DDL
- {"type":"error","error_code":N,"error_message":"..."} on failure (MySQL error codes: 1064 syntax, 1049 unknown database, 1146 unknown table, 1054 unknown column, 1290 read-only mode)`;

const READ_ONLY_NOTE =
  '\n\nThis server is in read-only mode: only SELECT, SHOW, DESCRIBE and EXPLAIN are allowed.';

export const queryInput = z.object({
  query: z.string().describe('One SQL statement in MySQL syntax, e.g. SELECT * FROM pg.orders LIMIT 10'),
  context: z
    .object({
      db: z
        .string()
        .optional()
        .describe('Default data source for unqualified table names (like USE); persists for the session'),
    })
    .optional()
    .describe('Optional query context'),
});

/**
 * `queryInput` checked by hand for the direct HTTP path, where zod was ~5% of a call's CPU.
 * Accepts exactly what the schema accepts (test/unit/mcp/query-args.test.ts holds the two
 * side by side) and, like zod's object, keeps only the known keys.
 */
export function parseQueryArgs(v: unknown): QueryArgs | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const { query, context } = v as { query?: unknown; context?: unknown };
  if (typeof query !== 'string') return null;
  // A key present with the value undefined stays present, as zod leaves it.
  if (context === undefined) return 'context' in v ? { query, context } : { query };
  if (typeof context !== 'object' || context === null || Array.isArray(context)) return null;
  const db = (context as { db?: unknown }).db;
  if (db === undefined) return { query, context: 'db' in context ? { db } : {} };
  if (typeof db !== 'string') return null;
  return { query, context: { db } };
}

/** Minimum time between two progress notifications of one call: enough to show life, not flood. */
const DEFAULT_PROGRESS_INTERVAL_MS = 250;

export interface QueryToolOptions {
  /** Milliseconds between progress notifications; 0 sends one per batch (tests). */
  progressIntervalMs?: number;
}

/**
 * Per-connection state: the default database, so `USE src` (or `context.db`) carries
 * over to later calls on the same session. Stateless (2026) requests start fresh.
 */
export interface SessionState {
  db?: string;
  /** Who the session runs as, when the transport knows it for the whole session (mcp/principal.ts). */
  principal?: StatementPrincipal;
}

export function registerQueryTool(
  server: McpServer,
  deps: McpDeps,
  session: SessionState,
  opts: QueryToolOptions = {},
): RegisteredTool {
  const readOnly = deps.config.api.mcp.read_only;
  return server.registerTool(
    'query',
    {
      title: 'Run SQL',
      description: readOnly ? QUERY_DESCRIPTION + READ_ONLY_NOTE : QUERY_DESCRIPTION,
      inputSchema: queryInput,
      outputSchema: queryOutputSchema,
      annotations: {
        title: 'Run SQL',
        readOnlyHint: readOnly,
        destructiveHint: !readOnly,
        openWorldHint: true,
      },
    },
    async (args, ctx) => {
      const progress = progressReporter(ctx, opts.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS);
      const timeoutMs = callTimeoutMs(ctx.mcpReq._meta);
      if (timeoutMs === null) return toToolResult(badTimeout());
      const result = await callQueryTool(deps, session, args, {
        ...callerOf(ctx, session, deps),
        signal: ctx.mcpReq.signal,
        onProgress: progress?.report,
        timeoutMs,
      });
      // The last count goes out before the result: a client drops progress that arrives after it.
      await progress?.finish(result.type !== 'error');
      return toToolResult(result, deps);
    },
  );
}

/** Who makes an SDK-delivered call, and on which session (the tool and its tasks, tasks.ts). */
export function callerOf(
  ctx: ServerContext,
  session: SessionState,
  deps: McpDeps,
): Pick<QueryCall, 'sessionId' | 'principal' | 'runAs' | 'owner' | 'statementPrincipal'> {
  return {
    sessionId: ctx.sessionId,
    principal: ctx.http?.authInfo?.clientId ?? null,
    runAs: callPrincipal(principalOf(ctx.http?.authInfo), ctx.http !== undefined, deps),
    owner: ownerOf(ctx.http?.authInfo),
    statementPrincipal: mcpPrincipal(ctx.http?.authInfo, session),
  };
}

export type QueryArgs = z.infer<typeof queryInput>;

/** What one call of the tool runs with, whichever path delivered it. */
export interface QueryCall {
  signal: AbortSignal;
  sessionId?: string;
  onProgress?: (rows: number, message?: string) => void;
  /** This call's time limit (`_meta["tributary/timeout_ms"]`), within query.timeout_ms. */
  timeoutMs?: number;
  /** Who is calling (audit log); null without auth. */
  principal?: string | null;
  /**
   * Who the statement runs as (QueryContext.principal); `local` when absent. Null: an HTTP
   * call with auth on that carries no principal, refused (never run as `local`).
   */
  runAs?: StatementPrincipal | null;
  /** Who owns the result handles this call makes and may read (auth-info.ts `principalKey`); `local` without auth. */
  owner?: string;
  /** Who the statement runs as under the access policy (SPEC section 12); absent: `local`. */
  statementPrincipal?: StatementPrincipal;
}

/** The `_meta` key a client sets to give one call a shorter time limit (milliseconds). */
export const TIMEOUT_META_KEY = 'tributary/timeout_ms';

/** The call's time limit from `_meta`: undefined when absent, null when not a positive integer. */
export function callTimeoutMs(meta: unknown): number | undefined | null {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const v = (meta as Record<string, unknown>)[TIMEOUT_META_KEY];
  if (v === undefined) return undefined;
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null;
}

export function badTimeout(): Result {
  return {
    type: 'error',
    error_code: 1210,
    error_message: `Incorrect arguments: _meta["${TIMEOUT_META_KEY}"] must be a positive integer (milliseconds)`,
  };
}

/**
 * The `query` tool itself: run the statement with the MCP limits (read-only, max rows),
 * log the call, and carry USE / context.db over to the session's later calls. Shared by
 * the SDK's tool registration and the direct Streamable HTTP path (transports/direct-call.ts).
 */
export async function callQueryTool(
  deps: McpDeps,
  session: SessionState,
  args: QueryArgs,
  call: QueryCall,
): Promise<Result> {
  const { read_only: readOnly, max_rows: maxRows, max_result_bytes: maxBytes } = deps.config.api.mcp;
  const owner = call.owner ?? LOCAL_OWNER;
  const page = parsePageRequest(args.query);
  if (page) return readHandle(deps, args.query, page, call, owner);
  if (call.runAs === null) return NO_PRINCIPAL;
  const qctx: QueryContext = {
    db: args.context?.db ?? session.db,
    principal: call.statementPrincipal ?? call.runAs ?? session.principal ?? localPrincipal(),
  };
  const handles = resultHandles(deps);
  let kept: Promise<HandleView | null> = Promise.resolve(null);
  const result = await runQuery(deps, args.query, qctx, call, {
    readOnly,
    maxRows,
    // The note a cut answer carries is kept free, so the whole answer stays within the budget.
    maxBytes: Math.max(0, maxBytes - NOTE_RESERVE_BYTES),
    keepRest: async (rest) => {
      // A store that fails (Redis away) costs the handle, never the answer.
      kept = handles.keep(owner, rest).catch((e) => {
        deps.logger.warn({ err: (e as Error)?.message }, 'result handle store failed');
        return null;
      });
      await kept;
    },
  });
  // USE (or an explicit context.db) becomes the session's default for later calls.
  if (result.type !== 'error' && qctx.db !== undefined) session.db = qctx.db;
  if (result.type !== 'table' || !result.truncated) return result;
  if (result.data.length === 0) return rowTooLarge(maxBytes);
  return withTruncation(result, truncationFields(0, result.data.length, await kept));
}

/**
 * Who a call runs as: the principal its request carries; without one, `local` over stdio or
 * with auth off, and null (refused) over HTTP with auth on.
 */
export function callPrincipal(
  carried: StatementPrincipal | null,
  overHttp: boolean,
  deps: McpDeps,
): StatementPrincipal | null {
  if (carried) return carried;
  return overHttp && authIsOn(deps.config) ? null : localPrincipal();
}

const NO_PRINCIPAL: ErrorResult = {
  type: 'error',
  error_code: 1045,
  error_message: 'Access denied: this call carries no authenticated user',
};

/**
 * The store of result handles of these deps, made on first use (one per server): in Redis when
 * TRIBUTARY_REDIS_URL is set, so every replica pages every handle (SPEC §13); else in memory.
 */
function resultHandles(deps: McpDeps): HandleStore {
  if (!deps.resultHandles) {
    const h = deps.config.api.mcp.result_handles;
    const limits = { maxBytes: h.max_bytes, ttlMs: h.ttl_ms, perPrincipal: h.per_principal };
    const url = deps.config.redisUrl;
    deps.resultHandles = url
      ? new RedisHandleStore(openRedis(url, deps.logger, 'result-handle'), limits)
      : new ResultHandles(limits);
  }
  return deps.resultHandles;
}

/** `SELECT * FROM result('r_...') LIMIT n OFFSET m`: a page of a handle the caller owns. */
async function readHandle(
  deps: McpDeps,
  sql: string,
  page: PageRequest | ErrorResult,
  call: QueryCall,
  owner: string,
): Promise<Result> {
  const started = performance.now();
  let result: Result;
  if ('type' in page) result = page;
  else {
    const { max_rows: maxRows, max_result_bytes: maxBytes } = deps.config.api.mcp;
    const count = Math.min(page.limit ?? maxRows, maxRows);
    const held = await resultHandles(deps)
      .page(owner, page.id, { offset: page.offset, count })
      .catch((e) => {
        deps.logger.warn({ err: (e as Error)?.message }, 'result handle store failed');
        return undefined;
      });
    if (held === undefined) result = handleStoreDown(page.id);
    else result = held ? pageAnswer(held, page, maxRows, maxBytes) : unknownHandle(page.id);
  }
  // Reported like any statement (audit log, metrics): the engine never sees it.
  deps.observer?.statement({
    sql,
    principal: call.principal ?? null,
    transport: 'mcp',
    rows: result.type === 'table' ? result.data.length : 0,
    truncated: result.type === 'table' && result.truncated === true,
    durationMs: performance.now() - started,
    errorCode: result.type === 'error' ? result.error_code : undefined,
  });
  return result;
}

export function toToolResult(result: Result, deps?: McpDeps): CallToolResult {
  const text = JSON.stringify(result);
  deps?.observer?.metrics?.resultBytes('mcp', Buffer.byteLength(text));
  return {
    content: [{ type: 'text', text }],
    structuredContent: { result } as unknown as Record<string, unknown>,
    ...(result.type === 'error' ? { isError: true } : {}),
  };
}

async function runQuery(
  deps: McpDeps,
  sql: string,
  qctx: QueryContext,
  call: QueryCall,
  o: Pick<ExecOptions, 'readOnly' | 'maxRows' | 'maxBytes' | 'keepRest'>,
): Promise<Result> {
  const started = performance.now();
  const result = await deps.engine.execute(sql, qctx, {
    signal: call.signal,
    ...o,
    onProgress: call.onProgress,
    timeoutMs: call.timeoutMs,
    caller: { principal: call.principal ?? null, transport: 'mcp' },
  });
  const durationMs = Math.round((performance.now() - started) * 10) / 10;
  if (deps.logger.isLevelEnabled('info')) {
    const text = readStatement(sql);
    let sources: string[] = [];
    try {
      sources = sourcesOf(text.qualifiers, await deps.engine.listDatabases(), qctx.db);
    } catch {
      // the list of sources only decorates the log line
    }
    deps.logger.info(
      {
        tool: 'query',
        // A prefix correlates the calls of a session without putting a usable session id in the logs.
        session: call.sessionId?.slice(0, 8),
        kind: text.kind,
        statement: text.masked,
        sources,
        duration_ms: durationMs,
        rows: result.type === 'table' ? result.data.length : undefined,
        affected_rows: result.type === 'ok' ? result.affected_rows : undefined,
        truncated: result.type === 'table' ? result.truncated : undefined,
        outcome: result.type === 'error' ? 'error' : 'ok',
        error_code: result.type === 'error' ? result.error_code : undefined,
        cancelled: call.signal.aborted || undefined,
      },
      'mcp tool call',
    );
  }
  return result;
}

interface ProgressReporter {
  report(rows: number, message?: string): void;
  /** Send the last count if the throttle held it back (with `total` when the call `complete`d), and wait for what was sent. */
  finish(complete: boolean): Promise<void>;
}

/**
 * Turns the engine's rows-read callback into `notifications/progress` when the client
 * asked for progress (sent a progressToken); throttled, and never after cancellation. The
 * count the throttle held back last is sent when the call ends (`finish`), so the final
 * notification carries the final count (an INSERT INTO kb of 1,500 rows stores its last
 * batches within one interval: before, its progress stopped at 512).
 */
function progressReporter(ctx: ServerContext, intervalMs: number): ProgressReporter | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  // The first batch is reported at once (the client asked); later ones at most every interval.
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let lastSent = 0;
  let latest = 0;
  let latestMessage: string | undefined;
  let sending: Promise<void> = Promise.resolve();
  const send = (rows: number, message: string | undefined, total?: number) => {
    lastSentAt = performance.now();
    lastSent = rows;
    const sent = ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: rows,
          ...(total === undefined ? {} : { total }),
          message: message ?? `${rows} rows read`,
        },
      })
      .catch(() => {
        // a client that went away cannot be told; the call itself ends on its own
      });
    sending = sending.then(() => sent);
  };
  return {
    report(rows: number, message?: string) {
      if (rows <= latest || ctx.mcpReq.signal.aborted) return;
      latest = rows;
      latestMessage = message;
      if (intervalMs > 0 && performance.now() - lastSentAt < intervalMs) return;
      send(rows, message);
    },
    async finish(complete: boolean) {
      if (latest > lastSent && !ctx.mcpReq.signal.aborted)
        send(latest, latestMessage, complete ? latest : undefined);
      await sending;
    },
  };
}
