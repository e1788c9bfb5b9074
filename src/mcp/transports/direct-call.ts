import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  type JSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { StatementPrincipal } from '../../sql/engine-types.js';
import type { Result } from '../../sql/result.js';
import {
  callTimeoutMs,
  parseQueryArgs,
  type QueryArgs,
  type QueryCall,
  type SessionState,
} from '../query-tool.js';
import { resultEnvelopeProblem } from '../result-schema.js';
import { authClientId, authOwner, authPrincipal } from './auth-info.js';
import type { SessionEvents } from './event-store.js';
import { jsonRpcError } from './http-util.js';

/**
 * The direct path for the one hot message of a 2025-era Streamable HTTP session: a plain
 * `tools/call` of `query`. It gives the JSON-RPC result the SDK's session transport gives
 * (as a JSON body when the call is quick; as an SSE stream, stored in the session's event
 * store so a broken stream resumes with Last-Event-ID, when it is not), but without the
 * SDK's transport and protocol layers on the way: web Request/Response adapters, a
 * ReadableStream per call, and zod over every message and result cost more CPU than the
 * whole query. The tool itself is the same
 * function the SDK registration calls (query-tool.ts `callQueryTool`).
 *
 * Only the plain case comes here. Anything the SDK would have to judge (a batch, a progress
 * token, a task, another tool, arguments the tool's schema refuses, an unknown protocol
 * version, a second call with an id in flight) goes to the SDK and is answered as before.
 * A direct call is cancelled by `notifications/cancelled` with its id, and by the session's
 * end, as the SDK's calls are.
 */

export type RunQueryTool = (session: SessionState, args: QueryArgs, call: QueryCall) => Promise<Result>;

export type DirectMatch =
  | {
      kind: 'call';
      id: string | number;
      args: QueryArgs;
      version: string;
      timeoutMs?: number;
      principal: string | null;
      /** Null when the request carries none (the runner decides: `local`, or refused). */
      runAs: StatementPrincipal | null;
      owner: string;
    }
  | { kind: 'cancel'; requestId: string | number }
  | { kind: 'resume'; streamId: string };

export interface DirectOptions {
  events: SessionEvents;
  /** Null turns the direct path off: every message goes to the SDK. */
  run: RunQueryTool | null;
  /** Size of each answer sent (metrics). */
  onResultBytes?: (n: number) => void;
  /** The SSE `retry:` hint sent with a priming event. */
  retryMs: number;
  keepAliveMs: number;
  /** How long a call may run before it is switched to SSE (default SSE_AFTER_MS). */
  sseAfterMs?: number;
}

/**
 * A call answered within this long gets its result as a plain JSON body; a longer one is
 * switched to an SSE stream (priming event, keep-alives, resumable result). Resumption only
 * helps a client whose stream breaks before a result, which a quick call does not wait for.
 */
const SSE_AFTER_MS = 20;

const SUPPORTED = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is string | number {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

interface Running {
  /** Where the result goes: the call's own response, or a GET that resumed it; null while neither is open. */
  sink: ServerResponse | null;
}

/** One session's direct calls. */
export class DirectSession {
  /** The session's state as its `query` tool sees it (shared with the SDK's registration). */
  readonly state: SessionState = {};
  private readonly calls = new Map<string | number, AbortController>();
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly sessionId: () => string | undefined,
    private readonly o: DirectOptions,
  ) {}

  /** Whether this request is one the direct path answers; null leaves it to the SDK. */
  match(req: IncomingMessage, body: unknown): DirectMatch | null {
    if (!this.o.run) return null;
    const version = header(req, 'mcp-protocol-version');
    if (version !== undefined && !SUPPORTED.has(version)) return null;
    const accept = req.headers.accept;
    if (req.method === 'GET') {
      const last = header(req, 'last-event-id');
      if (!last || !accept?.includes('text/event-stream')) return null;
      const streamId = this.o.events.streamOf(last);
      return streamId !== undefined && this.running.has(streamId) ? { kind: 'resume', streamId } : null;
    }
    if (req.method !== 'POST' || !isObject(body) || body.jsonrpc !== '2.0') return null;
    // The SDK answers 406 when either is missing.
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return null;
    const params = body.params;
    if (!isObject(params)) return null;
    if (body.method === 'notifications/cancelled') {
      return body.id === undefined && isId(params.requestId) && this.calls.has(params.requestId)
        ? { kind: 'cancel', requestId: params.requestId }
        : null;
    }
    if (body.method !== 'tools/call' || !isId(body.id) || params.name !== 'query') return null;
    if (this.calls.has(body.id)) return null;
    // A progress token asks for notifications on the stream; a task for the tasks extension.
    if (params.task !== undefined) return null;
    const meta = params._meta;
    if (meta !== undefined && (!isObject(meta) || meta.progressToken !== undefined)) return null;
    const args = parseQueryArgs(params.arguments ?? {});
    if (!args) return null;
    const timeoutMs = callTimeoutMs(meta);
    // A malformed time limit is the SDK path's to refuse.
    if (timeoutMs === null) return null;
    return {
      kind: 'call',
      id: body.id,
      args,
      version: version ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
      timeoutMs,
      principal: authClientId(req),
      runAs: authPrincipal(req),
      owner: authOwner(req),
    };
  }

  serve(m: DirectMatch, res: ServerResponse): Promise<void> {
    switch (m.kind) {
      case 'cancel':
        this.calls.get(m.requestId)?.abort();
        res.writeHead(202).end();
        return Promise.resolve();
      case 'resume':
        this.resume(m.streamId, res);
        return Promise.resolve();
      case 'call':
        return this.call(m.id, m.args, m.version, res, {
          timeoutMs: m.timeoutMs,
          principal: m.principal,
          runAs: m.runAs,
          owner: m.owner,
        });
    }
  }

  /** The session is over: its calls stop, as the SDK aborts its own handlers on close. */
  abortAll(): void {
    for (const ac of this.calls.values()) ac.abort();
  }

  private async call(
    id: string | number,
    args: QueryArgs,
    version: string,
    res: ServerResponse,
    who: Pick<QueryCall, 'timeoutMs' | 'principal' | 'runAs' | 'owner'>,
  ) {
    const ac = new AbortController();
    this.calls.set(id, ac);
    const sessionId = this.sessionId();
    // A quick call is answered as one JSON body. One still running after SSE_AFTER_MS
    // becomes an SSE stream: a priming event (its id is where a broken stream resumes)
    // and keep-alives, and the result as an event kept for replay. The transport lets the
    // server choose per request; JSON costs the client far less to read than SSE. The
    // stream's bookkeeping is made only then: a quick call never needs it.
    let stream: { id: string; entry: Running } | null = null;
    let keepAlive: NodeJS.Timeout | undefined;
    const upgrade = setTimeout(() => {
      if (res.destroyed) return;
      const entry: Running = { sink: res };
      stream = { id: randomUUID(), entry };
      this.running.set(stream.id, entry);
      res.once('close', () => {
        if (entry.sink === res) entry.sink = null;
      });
      res.writeHead(200, sessionId ? { ...SSE_HEADERS, 'mcp-session-id': sessionId } : SSE_HEADERS);
      if (version >= '2025-11-25') {
        const primingId = this.o.events.store(stream.id, {} as JSONRPCMessage);
        res.write(`id: ${primingId}\nretry: ${this.o.retryMs}\ndata: \n\n`);
      } else res.flushHeaders();
      keepAlive = setInterval(() => entry.sink?.write(': keepalive\n\n'), this.o.keepAliveMs);
    }, this.o.sseAfterMs ?? SSE_AFTER_MS);
    let text: string;
    let bytes = -1;
    try {
      const result = await this.o.run!(this.state, args, { signal: ac.signal, sessionId, ...who });
      text = toolResponse(id, result);
      if (this.o.onResultBytes) {
        bytes = Buffer.byteLength(text);
        this.o.onResultBytes(bytes);
      }
    } catch (e) {
      text = JSON.stringify({
        jsonrpc: '2.0',
        id,
        error: { code: -32603, message: `Internal error: ${(e as Error).message}` },
      });
    } finally {
      this.calls.delete(id);
      clearTimeout(upgrade);
      clearInterval(keepAlive);
    }
    const sse = stream as { id: string; entry: Running } | null;
    if (!sse) {
      if (res.destroyed) return;
      const headers: Record<string, string | number> = {
        'content-type': 'application/json',
        'content-length': bytes < 0 ? Buffer.byteLength(text) : bytes,
      };
      if (sessionId) headers['mcp-session-id'] = sessionId;
      res.writeHead(200, headers).end(text);
      return;
    }
    this.running.delete(sse.id);
    // Stored whether or not anyone is listening: a client that lost the stream resumes from the store.
    const eventId = this.o.events.storeText(sse.id, text);
    const sink = sse.entry.sink;
    if (!sink || sink.destroyed) return;
    sink.end(`event: message\nid: ${eventId}\ndata: ${text}\n\n`);
  }

  /** A GET with Last-Event-ID for a call still running: its result goes to this stream instead. */
  private resume(streamId: string, res: ServerResponse): void {
    const entry = this.running.get(streamId);
    if (!entry) {
      jsonRpcError(res, 404, -32001, 'Stream not found');
      return;
    }
    if (entry.sink && !entry.sink.destroyed) {
      jsonRpcError(res, 409, -32000, 'Conflict: Stream already has an active connection');
      return;
    }
    const sessionId = this.sessionId();
    res.writeHead(200, sessionId ? { ...SSE_HEADERS, 'mcp-session-id': sessionId } : SSE_HEADERS);
    res.flushHeaders();
    entry.sink = res;
    res.once('close', () => {
      if (entry.sink === res) entry.sink = null;
    });
  }
}

/**
 * The JSON-RPC response the SDK sends for the tool's CallToolResult (text copy,
 * structuredContent, isError), serialised once: the result's JSON is the text, and the
 * same JSON is spliced in as the structured copy.
 */
export function toolResponse(id: string | number, result: Result): string {
  const problem = resultEnvelopeProblem(result);
  if (problem) throw new Error(`query tool result is malformed: ${problem}`);
  const json = JSON.stringify(result);
  const isError = result.type === 'error';
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":${JSON.stringify(json)}}],"structuredContent":{"result":${json}}${isError ? ',"isError":true' : ''}}}`;
}
