import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import {
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  type McpHttpHandler,
  type McpServer,
} from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { Principal } from '../../auth/types.js';
import type { SessionState } from '../query-tool.js';
import type { SchemaAnnouncer } from '../schema-announcer.js';
import { attachAuth, principalKey } from './auth-info.js';
import { DirectSession, type RunQueryTool } from './direct-call.js';
import { memoryEventStores, type SessionEventStores, type SessionEvents } from './event-store.js';
import { jsonRpcError, MCP_BODY_LIMIT, writeRetry } from './http-util.js';
import { ownerDigest, type SessionRecord, type SharedSessions } from './shared-sessions.js';

/** What SSE streams tell clients to wait before reconnecting after a break. */
export const RETRY_MS = 1000;

export interface StreamableOptions {
  /** A 2025-era session with no request for this long is closed (clients often leave without DELETE). */
  sessionIdleMs: number;
  /** How often idle sessions are looked for. */
  sweepIntervalMs: number;
  /** New sessions beyond this many are refused with 503 until others end. */
  maxSessions: number;
  /** SSE keep-alive comment interval on the streams this endpoint serves. */
  keepAliveMs: number;
  /** A tool call still running after this long is answered as an SSE stream, not one JSON body. */
  sseAfterMs?: number;
  /** Sessions every replica can pick up (Redis); absent: sessions live in this process only. */
  shared?: SharedSessions | null;
  /** Tells sessions and `subscriptions/listen` streams that the schema resources changed. */
  announcer?: SchemaAnnouncer;
  /** Where sessions keep their resumable events: Redis for replicas; absent: this process. */
  events?: SessionEventStores | null;
}

interface Session {
  server: McpServer;
  transport: NodeStreamableHTTPServerTransport;
  events: SessionEvents;
  /** The session's `query` calls answered without the SDK's layers (direct-call.ts). */
  direct: DirectSession;
  /** Requests (including an open GET stream) not yet finished: a session with one is never idle. */
  inFlight: number;
  lastSeen: number;
  /** Who opened it (principalKey): only they may use its id. */
  owner: string | null;
  /** Its open GET streams (the standalone stream, or a resumed one). */
  streams: Set<ServerResponse>;
}

/**
 * `/mcp/streamable`: one URL, two protocol eras.
 * - 2026-07-28 (per-request `_meta` envelope): stateless, served by the SDK's
 *   `createMcpHandler` with a fresh server per request, POST only.
 * - 2025-11-25 and earlier: stateful sessions (`Mcp-Session-Id`, GET stream, DELETE),
 *   one server + `NodeStreamableHTTPServerTransport` per session.
 * The SDK's own classifier (`classifyInboundRequest`, behind `isLegacyRequest`) decides,
 * so the routing can never disagree with what the modern handler would accept.
 */
export class StreamableEndpoint {
  private readonly sessions = new Map<string, Session>();
  private readonly modern: McpHttpHandler;
  private readonly modernNode: ReturnType<typeof toNodeHandler>;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly factory: (session?: SessionState, era?: 'legacy' | 'modern') => McpServer,
    private readonly logger: Logger,
    private readonly opts: StreamableOptions,
    /** Runs the `query` tool for the direct path (direct-call.ts); without it every message goes to the SDK. */
    private readonly runQuery: RunQueryTool | null = null,
    /** Size of each direct-path answer (metrics). */
    private readonly onResultBytes?: (n: number) => void,
  ) {
    this.modern = createMcpHandler(() => factory(undefined, 'modern'), {
      legacy: 'reject',
      keepAliveMs: opts.keepAliveMs,
      maxRequestBodySize: MCP_BODY_LIMIT,
      onerror: (e) => this.logger.debug({ err: e.message }, 'mcp streamable (2026) request error'),
    });
    opts.announcer?.addListenNotifier(this.modern.notify);
    this.modernNode = toNodeHandler(this.modern, {
      maxRequestBodySize: MCP_BODY_LIMIT,
      onerror: (e) => this.logger.warn({ err: e.message }, 'mcp streamable (2026) handler failed'),
    });
    this.sweeper = setInterval(() => this.sweep(), opts.sweepIntervalMs);
    this.sweeper.unref();
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Whether a 2025-era session of this id is open here. */
  hasSession(id: string): boolean {
    return this.sessions.has(id);
  }

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    principal: Principal | null = null,
  ): Promise<void> {
    if (this.closed) return jsonRpcError(res, 503, -32000, 'Server is shutting down');
    attachAuth(req, principal);
    const sessionId = header(req, 'mcp-session-id');
    // A live session id is a 2025-era session's by construction (the 2026 era has none), so
    // the classifier, which runs zod over the body, is not needed for the busiest requests.
    const live = sessionId !== undefined ? this.sessions.get(sessionId) : undefined;
    if (live) {
      // A session id is not a credential: another caller holding it sees no such session.
      if (live.owner !== principalKey(principal)) return jsonRpcError(res, 404, -32001, 'Session not found');
      return this.serve(live, req, res, body);
    }
    if (!this.isLegacy(req, body)) {
      await this.modernNode(req, res, body);
      return;
    }
    if (sessionId !== undefined) {
      const picked = await this.pickUp(sessionId, principalKey(principal));
      if (!picked) return jsonRpcError(res, 404, -32001, 'Session not found');
      return this.serve(picked, req, res, body);
    }
    if (req.method === 'POST' && isInitializeRequest(body))
      return this.open(req, res, body, principalKey(principal));
    if (req.method === 'POST') {
      return jsonRpcError(
        res,
        400,
        -32000,
        'Bad Request: no valid Mcp-Session-Id header; start with initialize',
      );
    }
    return jsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
  }

  /**
   * The SDK's own era classifier (what `isLegacyRequest` and `createMcpHandler` run), fed
   * directly: it reads only the method, three headers and the parsed body, so there is no
   * need to build a web Request (that cost about 5% of a tool call's CPU).
   */
  private isLegacy(req: IncomingMessage, body: unknown): boolean {
    if (req.method !== 'POST' || body === undefined) return true;
    return (
      classifyInboundRequest({
        httpMethod: 'POST',
        protocolVersionHeader: header(req, 'mcp-protocol-version'),
        mcpMethodHeader: header(req, 'mcp-method'),
        mcpNameHeader: header(req, 'mcp-name'),
        body,
      }).kind === 'legacy'
    );
  }

  private async open(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    owner: string | null,
  ): Promise<void> {
    if (this.sessions.size >= this.opts.maxSessions) {
      this.sweep();
      if (this.sessions.size >= this.opts.maxSessions) {
        return jsonRpcError(res, 503, -32000, 'Too many MCP sessions; try again later');
      }
    }
    const built = await this.build(owner, randomUUID());
    const { server, transport } = built;
    let session: Session | undefined;
    const shared = this.opts.shared;
    built.onInitialized = async (id) => {
      session = this.register(id, built, owner);
      // Shared before the initialize answer leaves: the client's next request may land anywhere.
      if (shared) await shared.save(id, sessionRecord(owner, body)).catch((e) => this.unshared(e));
    };
    try {
      await this.track(session, res, () => transport.handleRequest(req, res, body));
    } finally {
      // initialize refused (bad version, malformed): no session was made, nothing may linger.
      const id = transport.sessionId;
      if (!id || !this.sessions.has(id)) {
        await server.close().catch(() => {});
        if (id && shared) await shared.remove(id);
      }
    }
    if (session && !session.inFlight) session.lastSeen = Date.now();
  }

  private unshared(e: unknown): void {
    this.logger.warn({ err: (e as Error)?.message }, 'mcp session not shared (Redis)');
  }

  /** A server and transport for one session of this id (a new one, or the picked-up one). */
  private async build(owner: string | null, id: string): Promise<Built> {
    const events = (this.opts.events ?? memoryEventStores).forSession(id);
    const current: { transport?: NodeStreamableHTTPServerTransport } = {};
    const direct = new DirectSession(() => current.transport?.sessionId, {
      events,
      run: this.runQuery,
      onResultBytes: this.onResultBytes,
      retryMs: RETRY_MS,
      keepAliveMs: this.opts.keepAliveMs,
      sseAfterMs: this.opts.sseAfterMs,
    });
    const server = this.factory(direct.state);
    const built: Built = { server, events, direct, owner } as Built;
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      keepAliveMs: this.opts.keepAliveMs,
      maxRequestBodySize: MCP_BODY_LIMIT,
      // Resumability: a broken stream is resumed with Last-Event-ID within these bounds.
      eventStore: events,
      retryInterval: RETRY_MS,
      onsessioninitialized: (id) => built.onInitialized?.(id),
    });
    built.transport = transport;
    current.transport = transport;
    // connect() takes over the transport's callbacks; the Protocol's onclose is ours to use.
    await server.connect(transport);
    const untrack = this.opts.announcer?.track(server);
    const closeTasks = server.server.onclose;
    server.server.onclose = () => {
      closeTasks?.();
      untrack?.();
      direct.abortAll();
      const id = transport.sessionId;
      if (id && this.sessions.get(id)?.transport === transport) {
        this.sessions.delete(id);
        this.logger.debug({ session: id }, 'mcp session closed');
      }
    };
    return built;
  }

  private register(id: string, b: Built, owner: string | null): Session {
    const session: Session = {
      server: b.server,
      transport: b.transport,
      events: b.events,
      direct: b.direct,
      inFlight: 0,
      lastSeen: Date.now(),
      owner,
      streams: new Set(),
    };
    this.sessions.set(id, session);
    this.logger.debug({ session: id }, 'mcp session opened');
    return session;
  }

  private readonly pickingUp = new Map<string, Promise<Session | null>>();

  /**
   * A session another replica opened (SPEC §13): re-created here from its shared record, with the
   * negotiated client identity, for its owner only. The SDK has no public way to restore a
   * session, so the transport is marked initialized the way its own initialize handling does
   * (`_initialized`, `sessionId` of the web-standard transport; checked by shared-sessions tests).
   */
  private pickUp(id: string, owner: string | null): Promise<Session | null> {
    const shared = this.opts.shared;
    if (!shared || this.sessions.size >= this.opts.maxSessions) return Promise.resolve(null);
    let p = this.pickingUp.get(id);
    if (!p) {
      p = (async () => {
        const record = await shared.load(id).catch(() => null);
        // A session id is not a credential: another caller holding it sees no such session.
        if (!record || record.owner !== ownerDigest(owner)) return null;
        const live = this.sessions.get(id);
        if (live) return live;
        const b = await this.build(owner, id);
        const web = (b.transport as unknown as { _webStandardTransport: RestorableTransport })
          ._webStandardTransport;
        web._initialized = true;
        web.sessionId = id;
        const identity = b.server.server as unknown as RestorableServer;
        identity._clientVersion = record.clientInfo ?? undefined;
        identity._clientCapabilities = record.capabilities ?? undefined;
        this.logger.debug({ session: id }, 'mcp session picked up from the shared store');
        return this.register(id, b, owner);
      })().finally(() => this.pickingUp.delete(id));
      this.pickingUp.set(id, p);
    }
    return p.then((s) => (s && s.owner === owner ? s : null));
  }

  private serve(session: Session, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (req.method === 'GET') {
      session.streams.add(res);
      res.once('close', () => session.streams.delete(res));
    }
    const shared = this.opts.shared;
    const id = session.transport.sessionId;
    if (shared && id) {
      if (req.method === 'DELETE')
        res.once('finish', () => {
          void shared.remove(id);
          session.events.discard();
        });
      else shared.touch(id);
    }
    const match = session.direct.match(req, body);
    return this.track(session, res, () =>
      match ? session.direct.serve(match, res) : session.transport.handleRequest(req, res, body),
    );
  }

  /** Counts the request as in flight until its response is over (a GET stream can last hours). */
  private track(session: Session | undefined, res: ServerResponse, fn: () => Promise<void>): Promise<void> {
    if (session) {
      session.inFlight++;
      session.lastSeen = Date.now();
      res.once('close', () => {
        session.inFlight--;
        session.lastSeen = Date.now();
      });
    }
    return fn();
  }

  /** Close sessions with nothing in flight and no request for `sessionIdleMs`. */
  sweep(): void {
    const now = Date.now();
    const cutoff = now - this.opts.sessionIdleMs;
    for (const [id, s] of this.sessions) {
      s.events.prune(now);
      if (s.inFlight > 0 || s.lastSeen > cutoff) continue;
      this.sessions.delete(id);
      this.logger.debug({ session: id }, 'mcp session closed after idle timeout');
      void s.server.close().catch(() => {});
    }
  }

  /**
   * The server is draining (http/drain.ts): every open GET stream gets an SSE `retry` field and
   * the standalone one (server notifications) ends cleanly, so its client reconnects after
   * RETRY_MS through the load balancer to a replica still serving. Answers still being computed
   * (POST streams, or a GET resuming one) are work in flight and end with their answer.
   */
  endStreams(): void {
    for (const s of this.sessions.values()) {
      for (const res of s.streams) writeRetry(res, RETRY_MS);
      s.transport.closeStandaloneSSEStream();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled([...all.map((s) => s.server.close()), this.modern.close()]);
  }
}

interface Built {
  server: McpServer;
  transport: NodeStreamableHTTPServerTransport;
  events: SessionEvents;
  direct: DirectSession;
  owner: string | null;
  onInitialized?: (id: string) => void | Promise<void>;
}

/** The web-standard transport's fields its own initialize handling sets (SDK internals). */
interface RestorableTransport {
  _initialized: boolean;
  sessionId: string | undefined;
}

/** The server's fields its own initialize handling sets (SDK internals). */
interface RestorableServer {
  _clientVersion: unknown;
  _clientCapabilities: unknown;
}

/** What another replica needs of an initialize request: its owner and what the client declared. */
function sessionRecord(owner: string | null, body: unknown): SessionRecord {
  const p = (body as { params?: { protocolVersion?: unknown; clientInfo?: unknown; capabilities?: unknown } })
    ?.params;
  return {
    owner: ownerDigest(owner),
    protocolVersion: typeof p?.protocolVersion === 'string' ? p.protocolVersion : null,
    clientInfo: p?.clientInfo ?? null,
    capabilities: p?.capabilities ?? null,
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
