import type { IncomingMessage, ServerResponse } from 'node:http';
// The legacy HTTP+SSE transport exists only in the v1 SDK; it drives a v2 McpServer unchanged.
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import type { McpServer } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { SchemaAnnouncer } from '../schema-announcer.js';
import { jsonRpcError, writeRetry } from './http-util.js';

export const SSE_MESSAGES_PATH = '/mcp/messages';

interface SseSession {
  res: ServerResponse;
  server: McpServer;
  transport: SSEServerTransport;
  keepAlive: NodeJS.Timeout;
  /** Who opened it (streamable.ts principalKey): only they may post to it. */
  owner: string | null;
  /** Stops schema change announcements to it. */
  untrack?: () => void;
}

/**
 * Legacy HTTP+SSE (protocol 2024-11-05): `GET /mcp/sse` holds the server→client stream
 * and announces `POST /mcp/messages?session_id=...` for client→server messages. The
 * session lives exactly as long as its stream.
 */
export class SseEndpoint {
  private readonly sessions = new Map<string, SseSession>();
  private closed = false;

  constructor(
    private readonly factory: () => McpServer,
    private readonly logger: Logger,
    private readonly keepAliveMs: number,
    /** Tells open sessions that the schema resources changed. */
    private readonly announcer?: SchemaAnnouncer,
  ) {}

  get sessionCount(): number {
    return this.sessions.size;
  }

  async open(res: ServerResponse, owner: string | null = null): Promise<void> {
    if (this.closed) return jsonRpcError(res, 503, -32000, 'Server is shutting down');
    const transport = new SSEServerTransport(SSE_MESSAGES_PATH, res);
    const id = transport.sessionId;
    // The endpoint event names the session as `session_id` (what Python-SDK clients
    // send); the transport appends `sessionId` itself. Both are accepted on POST.
    (transport as unknown as { _endpoint: string })._endpoint = `${SSE_MESSAGES_PATH}?session_id=${id}`;
    const server = this.factory();
    // Proxies and clients drop quiet streams; an SSE comment keeps it open and reveals dead peers.
    const keepAlive = setInterval(() => {
      if (!res.writableEnded) res.write(': keep-alive\n\n');
    }, this.keepAliveMs);
    keepAlive.unref();
    const untrack = this.announcer?.track(server);
    const session: SseSession = { res, server, transport, keepAlive, owner, untrack };
    this.sessions.set(id, session);
    res.once('close', () => this.drop(id, session));
    try {
      await server.connect(transport);
      this.logger.debug({ session: id }, 'mcp sse session opened');
    } catch (e) {
      this.logger.warn({ err: (e as Error).message }, 'mcp sse session failed to start');
      this.drop(id, session);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Could not open the SSE stream');
      else res.end();
    }
  }

  async message(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string | undefined,
    body: unknown,
    owner: string | null = null,
  ) {
    if (!sessionId)
      return jsonRpcError(res, 400, -32000, 'Bad Request: session_id query parameter is required');
    const session = this.sessions.get(sessionId);
    if (!session || session.owner !== owner) return jsonRpcError(res, 404, -32001, 'Session not found');
    await session.transport.handlePostMessage(req, res, body);
  }

  private drop(id: string, session: SseSession): void {
    clearInterval(session.keepAlive);
    session.untrack?.();
    if (this.sessions.get(id) !== session) return;
    this.sessions.delete(id);
    this.logger.debug({ session: id }, 'mcp sse session closed');
    void session.server.close().catch(() => {});
  }

  /**
   * The server is draining and its work in flight is done (answers of this transport travel on
   * the stream, so it ends last): each stream gets an SSE `retry` field and ends cleanly; an
   * EventSource client reconnects to `/mcp/sse` through the load balancer and gets a new session.
   */
  endStreams(retryMs: number): void {
    this.closed = true;
    for (const [id, s] of [...this.sessions.entries()]) {
      writeRetry(s.res, retryMs);
      this.drop(id, s);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.sessions.entries()];
    for (const [id, s] of all) this.drop(id, s);
  }
}
