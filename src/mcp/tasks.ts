import { randomBytes } from 'node:crypto';
import {
  type CallToolResult,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type RegisteredTool,
  type ServerContext,
  type Task,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Result } from '../sql/result.js';
import type { McpDeps } from './deps.js';
import {
  badTimeout,
  callerOf,
  callQueryTool,
  callTimeoutMs,
  parseQueryArgs,
  type SessionState,
  toToolResult,
} from './query-tool.js';

/** How long a finished task and its result are kept when the client asks for no ttl (ms). */
export const TASK_TTL_MS = 10 * 60_000;
/** What clients are told to wait between polls (ms). */
export const TASK_POLL_MS = 500;
/** Tasks one session may hold at once (running or kept); beyond, a call runs as a plain call. */
const MAX_TASKS = 100;

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

interface Entry {
  task: Task;
  abort: AbortController;
  /** The tool result, once the statement ended (also for a cancelled one). */
  done: Promise<CallToolResult>;
  expiry?: NodeJS.Timeout;
}

/**
 * `query` calls as tasks (MCP 2025-11-25 "tasks" utility): a client that declares
 * `tasks.requests.tools.call` may send `tools/call` with `params.task`; the answer is then a
 * CreateTaskResult at once, the statement runs on, and the client polls `tasks/get`, reads
 * the tool result with `tasks/result` (the same result, truncation and handles as a plain
 * call) or stops it with `tasks/cancel`, which aborts the statement at its sources. Tasks
 * live in the session's server (this process), are listed only to that session, and are
 * cancelled when the session ends. The SDK (v2) keeps the task wire types but has no task
 * runtime, so the requests are served here through its custom-method handlers.
 */
export class QueryTasks {
  private readonly tasks = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = TASK_TTL_MS,
    private readonly pollMs = TASK_POLL_MS,
  ) {}

  get size(): number {
    return this.tasks.size;
  }

  /** Start `run` as a task; null when the session already holds MAX_TASKS. */
  start(requestedTtl: number | undefined, run: (signal: AbortSignal) => Promise<Result>): Task | null {
    if (this.tasks.size >= MAX_TASKS) return null;
    const now = new Date().toISOString();
    const ttl = Math.min(requestedTtl ?? this.ttlMs, this.ttlMs);
    const task: Task = {
      taskId: `t_${randomBytes(12).toString('base64url')}`,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttl,
      pollInterval: this.pollMs,
    };
    const abort = new AbortController();
    const entry: Entry = { task, abort, done: Promise.resolve({ content: [] }) };
    entry.done = run(abort.signal).then(
      (result) => {
        if (task.status === 'working') {
          this.settle(entry, result.type === 'error' ? 'failed' : 'completed');
          if (result.type === 'error') task.statusMessage = result.error_message;
        }
        return toToolResult(result);
      },
      (e) => {
        if (task.status === 'working') this.settle(entry, 'failed');
        task.statusMessage = (e as Error)?.message ?? String(e);
        return toToolResult({ type: 'error', error_code: 1105, error_message: task.statusMessage });
      },
    );
    this.tasks.set(task.taskId, entry);
    return { ...task };
  }

  private settle(entry: Entry, status: Task['status']): void {
    entry.task.status = status;
    entry.task.lastUpdatedAt = new Date().toISOString();
    // Kept for its ttl from now (the result must stay readable), then forgotten.
    entry.expiry = setTimeout(() => this.tasks.delete(entry.task.taskId), entry.task.ttl ?? this.ttlMs);
    entry.expiry.unref();
  }

  private entry(taskId: string): Entry {
    const e = this.tasks.get(taskId);
    if (!e)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task '${taskId}' not found (unknown or expired)`,
      );
    return e;
  }

  get(taskId: string): Task {
    return { ...this.entry(taskId).task };
  }

  /** The tool result, once the task is over (waits until then), tagged with its task. */
  async result(taskId: string): Promise<CallToolResult> {
    const r = await this.entry(taskId).done;
    return { ...r, _meta: { ...r._meta, [RELATED_TASK]: { taskId } } };
  }

  /** Stop a working task (its statement is aborted at its sources). */
  cancel(taskId: string): Task {
    const e = this.entry(taskId);
    if (e.task.status !== 'working' && e.task.status !== 'input_required')
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Cannot cancel task '${taskId}': it is already ${e.task.status}`,
      );
    this.settle(e, 'cancelled');
    e.task.statusMessage = 'Cancelled by the client';
    e.abort.abort(new Error('task cancelled'));
    return { ...e.task };
  }

  list(): Task[] {
    return [...this.tasks.values()].map((e) => ({ ...e.task }));
  }

  /** The session ended: running statements stop, nothing is kept. */
  close(): void {
    for (const e of this.tasks.values()) {
      clearTimeout(e.expiry);
      if (e.task.status === 'working') e.abort.abort(new Error('session closed'));
    }
    this.tasks.clear();
  }
}

const taskIdParams = z.looseObject({ taskId: z.string() });

/**
 * Offer tasks on a 2025-era server (`server` not yet connected): declare the capability,
 * mark `query` as task-capable (`execution.taskSupport: "optional"`), serve tasks/get,
 * tasks/result, tasks/list and tasks/cancel, and let a task-augmented `tools/call` of
 * `query` start a task. Any other call goes to the SDK's own handler unchanged.
 */
export function offerQueryTasks(
  server: McpServer,
  tool: RegisteredTool,
  deps: McpDeps,
  session: SessionState,
  tasks = new QueryTasks(),
): QueryTasks {
  server.server.registerCapabilities({
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  } as never);
  tool.execution = { taskSupport: 'optional' };
  const low = server.server as unknown as SdkInternals;
  const plain = low._getRequestHandler('tools/call');
  if (!plain) throw new Error('the query tool must be registered before tasks are offered');
  low._requestHandlers.set('tools/call', async (request, ctx) => {
    const params = (request as { params?: Record<string, unknown> }).params ?? {};
    const wanted = params.task as { ttl?: unknown } | undefined;
    if (wanted === undefined || typeof wanted !== 'object' || params.name !== 'query')
      return plain(request, ctx);
    const args = parseQueryArgs(params.arguments ?? {});
    if (!args) return plain(request, ctx); // the SDK's handler names what is wrong
    const timeoutMs = callTimeoutMs((params as { _meta?: unknown })._meta);
    const caller = callerOf(ctx, session, deps);
    const task = tasks.start(typeof wanted.ttl === 'number' ? wanted.ttl : undefined, (signal) =>
      timeoutMs === null
        ? Promise.resolve(badTimeout())
        : callQueryTool(deps, session, args, { ...caller, signal, timeoutMs }),
    );
    // Too many tasks held by this session: answered as a plain call (the spec allows it).
    if (!task) return plain(request, ctx);
    return { task };
  });
  server.server.setRequestHandler('tasks/get', { params: taskIdParams }, async (p) => tasks.get(p.taskId));
  server.server.setRequestHandler('tasks/result', { params: taskIdParams }, async (p) =>
    tasks.result(p.taskId),
  );
  server.server.setRequestHandler('tasks/cancel', { params: taskIdParams }, async (p) =>
    tasks.cancel(p.taskId),
  );
  server.server.setRequestHandler('tasks/list', { params: z.looseObject({}) }, async () => ({
    tasks: tasks.list(),
  }));
  return tasks;
}

/** The SDK's handler table (Protocol internals; checked by the tasks tests). */
interface SdkInternals {
  _getRequestHandler(
    method: string,
  ): ((request: unknown, ctx: ServerContext) => Promise<unknown>) | undefined;
  _requestHandlers: Map<string, (request: unknown, ctx: ServerContext) => Promise<unknown>>;
}
