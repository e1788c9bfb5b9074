import type { CallToolResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AppDeps } from '../http/deps.js';
import type { QueryContext } from '../sql/engine-types.js';
import type { Result } from '../sql/result.js';
import { redactSql, sourcesIn, statementKind } from './redact.js';
import { queryOutputSchema } from './result-schema.js';

const QUERY_DESCRIPTION = `Run one SQL statement (MySQL syntax) against the connected data sources and return the result.

Tables are named source.table (or source.schema.table for sources with schemas); an unqualified table belongs to context.db. One statement may join tables from several sources.
Statements: SELECT (joins, subqueries, CTEs, window functions, UNION, GROUP BY, ORDER BY, LIMIT), SHOW DATABASES, SHOW TABLES FROM source, DESCRIBE source.table, SHOW COLUMNS FROM table FROM source, INSERT/UPDATE/DELETE on one source, CREATE DATABASE name WITH ENGINE = 'postgres' PARAMETERS = {...}, DROP DATABASE.
Read the schema:// resources first to learn the source, table and column names.

Result (also in structuredContent.result):
- {"type":"table","column_names":[...],"data":[[...],...]} for rows ("truncated": true when rows beyond the row limit were cut; add a LIMIT or aggregate)
- {"type":"ok","affected_rows":N} for writes and DDL
- {"type":"error","error_code":N,"error_message":"..."} on failure (MySQL error codes: 1064 syntax, 1049 unknown database, 1146 unknown table, 1054 unknown column, 1290 read-only mode)`;

const READ_ONLY_NOTE =
  '\n\nThis server is in read-only mode: only SELECT, SHOW, DESCRIBE and EXPLAIN are allowed.';

const queryInput = z.object({
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
}

export function registerQueryTool(
  server: McpServer,
  deps: AppDeps,
  session: SessionState,
  opts: QueryToolOptions = {},
): void {
  const { read_only: readOnly, max_rows: maxRows } = deps.config.api.mcp;
  server.registerTool(
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
      const qctx: QueryContext = { db: args.context?.db ?? session.db };
      const result = await runQuery(deps, args.query, qctx, ctx, {
        readOnly,
        maxRows,
        progressIntervalMs: opts.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
      });
      // USE (or an explicit context.db) becomes the session's default for later calls.
      if (result.type !== 'error' && qctx.db !== undefined) session.db = qctx.db;
      return toToolResult(result);
    },
  );
}

export function toToolResult(result: Result): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: { result } as unknown as Record<string, unknown>,
    ...(result.type === 'error' ? { isError: true } : {}),
  };
}

async function runQuery(
  deps: AppDeps,
  sql: string,
  qctx: QueryContext,
  ctx: ServerContext,
  o: { readOnly: boolean; maxRows: number; progressIntervalMs: number },
): Promise<Result> {
  const started = performance.now();
  const progress = progressReporter(ctx, o.progressIntervalMs);
  const result = await deps.engine.execute(sql, qctx, {
    signal: ctx.mcpReq.signal,
    readOnly: o.readOnly,
    maxRows: o.maxRows,
    onProgress: progress,
  });
  const durationMs = Math.round((performance.now() - started) * 10) / 10;
  if (deps.logger.isLevelEnabled('info')) {
    let sources: string[] = [];
    try {
      sources = sourcesIn(sql, await deps.engine.listDatabases(), qctx.db);
    } catch {
      // the list of sources only decorates the log line
    }
    deps.logger.info(
      {
        tool: 'query',
        // A prefix correlates the calls of a session without putting a usable session id in the logs.
        session: ctx.sessionId?.slice(0, 8),
        kind: statementKind(sql),
        statement: redactSql(sql),
        sources,
        duration_ms: durationMs,
        rows: result.type === 'table' ? result.data.length : undefined,
        affected_rows: result.type === 'ok' ? result.affected_rows : undefined,
        truncated: result.type === 'table' ? result.truncated : undefined,
        outcome: result.type === 'error' ? 'error' : 'ok',
        error_code: result.type === 'error' ? result.error_code : undefined,
        cancelled: ctx.mcpReq.signal.aborted || undefined,
      },
      'mcp tool call',
    );
  }
  return result;
}

/**
 * Turns the engine's rows-read callback into `notifications/progress` when the client
 * asked for progress (sent a progressToken); throttled, and never after cancellation.
 */
function progressReporter(ctx: ServerContext, intervalMs: number): ((rows: number) => void) | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  // The first batch is reported at once (the client asked); later ones at most every interval.
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let lastSent = 0;
  return (rows: number) => {
    if (rows <= lastSent || ctx.mcpReq.signal.aborted) return;
    const now = performance.now();
    if (intervalMs > 0 && now - lastSentAt < intervalMs) return;
    lastSentAt = now;
    lastSent = rows;
    ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: rows, message: `${rows} rows read` },
      })
      .catch(() => {
        // a client that went away cannot be told; the call itself ends on its own
      });
  };
}
