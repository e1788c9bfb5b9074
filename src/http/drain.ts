/**
 * Taking one replica out of service (SIGTERM; docs/deploy.md, SPEC §13). When the drain begins:
 * - the listening socket is closed: a new connection is refused, so a proxy (nginx's
 *   `proxy_next_upstream error`, the default) passes the request to another replica, even a
 *   POST, since nothing of it was sent. It is closed on the next turn of the event loop, after
 *   this turn's poll accepted the connections waiting: the kernel resets those still in the
 *   backlog when it closes, after the proxy sent their request (1 of 8,279 statements through
 *   nginx failed so when it closed at once; fewer now, not none: docs/deploy.md). A connection
 *   accepted then is served like any before the drain;
 * - a request on a connection that already served one (a client's keep-alive socket) is answered
 *   503 with `Retry-After` and `Connection: close`; `GET /mcp/status` is 503 on any connection, so
 *   a health check sees the replica going;
 * - requests in flight finish; long-lived event streams (an MCP GET stream) do not count as in
 *   flight: they are told to reconnect (listeners of `onDrain`) and would never end otherwise.
 * The decisions are pure functions (`drainVerdict`, `isEventStream`); the server asks them.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** How long after it was accepted a connection without a request still counts as one on its way. */
const ARRIVING_MS = 2_000;

/** What a client is told to wait before trying again (any replica answers it then). */
export const RETRY_AFTER_S = 1;

/**
 * Requests that open a server→client event stream lasting as long as the client likes: the MCP
 * legacy SSE stream and the Streamable HTTP GET stream. They are not work in flight.
 */
export function isEventStream(method: string | undefined, url: string | undefined): boolean {
  if (method !== 'GET') return false;
  const path = (url ?? '').split('?')[0];
  return path === '/mcp/sse' || path === '/mcp/streamable' || path === '/mcp';
}

/**
 * What a request gets: before the drain, taken; during it, refused on a reused connection or when
 * it asks for the health status, taken on a connection's first request (one accepted just before
 * the listener closed, whose sender cannot be told to go elsewhere any more).
 */
export function drainVerdict(draining: boolean, reusedConnection: boolean, path: string): 'take' | 'refuse' {
  if (!draining) return 'take';
  return reusedConnection || path === '/mcp/status' ? 'refuse' : 'take';
}

export class HttpDrain {
  private draining = false;
  private inFlight = 0;
  private readonly listeners: (() => void)[] = [];
  private readonly finishers: (() => void)[] = [];
  private server: Server | null = null;
  /** Connections that have carried a request. */
  /** Connections that have not carried a request yet, and when they were accepted. */
  private readonly fresh = new Map<Socket, number>();

  get isDraining(): boolean {
    return this.draining;
  }

  /** Requests being answered now, event streams not counted. */
  get requestsInFlight(): number {
    return this.inFlight + this.arriving();
  }

  /**
   * Connections accepted lately whose first request has not arrived: a proxy writes it right
   * after connecting, so it is work on its way, and closing the connection under it makes nginx
   * answer 502 (with a fixed 250 ms wait instead, 1 of about 9,000 calls through nginx still got
   * 502 while the machine ran at load 10 on 2 cores). An older idle one is a client's spare.
   */
  private arriving(now = Date.now()): number {
    let n = 0;
    for (const at of this.fresh.values()) if (now - at < ARRIVING_MS) n++;
    return n;
  }

  attach(server: Server): void {
    this.server = server;
    server.on('connection', (socket: Socket) => {
      this.fresh.set(socket, Date.now());
      socket.once('close', () => this.fresh.delete(socket));
    });
  }

  /**
   * Called first for every request. True when it was answered here (refused while draining);
   * otherwise it is counted in flight until its response is over.
   */
  request(req: IncomingMessage, res: ServerResponse): boolean {
    const socket = req.socket;
    const path = (req.url ?? '').split('?')[0];
    const reused = !this.fresh.delete(socket);
    if (drainVerdict(this.draining, reused, path) === 'refuse') {
      refuse(path, req, res);
      return true;
    }
    if (!isEventStream(req.method, req.url)) {
      this.inFlight++;
      res.once('close', () => this.inFlight--);
    }
    return false;
  }

  /** Something to do when the drain begins (tell event streams to reconnect). */
  onDrain(fn: () => void): void {
    this.listeners.push(fn);
  }

  /** Something to do once the work in flight is over, before the server closes (end legacy SSE streams). */
  onFinish(fn: () => void): void {
    this.finishers.push(fn);
  }

  /** The work in flight is over (or out of time): run the finishers once. */
  finish(): void {
    for (const fn of this.finishers.splice(0)) fn();
  }

  /**
   * Stop taking requests: close the listening socket, refuse what still arrives, tell streams.
   * Resolves once the listener is closed.
   */
  begin(): Promise<void> {
    if (this.draining) return Promise.resolve();
    this.draining = true;
    const s = this.server;
    // net.Server's close, not http.Server's: Node's own also closes idle keep-alive connections,
    // and a client that reuses one at that moment gets a reset where a 503 says what happened.
    // On the next turn, after this turn's poll accepted every connection already waiting.
    const closed = new Promise<void>((resolve) =>
      setImmediate(() => {
        if (s?.listening) NetServer.prototype.close.call(s);
        resolve();
      }),
    );
    for (const fn of this.listeners) fn();
    return closed;
  }
}

/** `/mcp/status` says so too: health checks on a kept connection see the replica going. */
function refuse(path: string, req: IncomingMessage, res: ServerResponse): void {
  const body =
    path === '/mcp/status'
      ? { status: 'draining', service: 'tributary-mcp' }
      : {
          error_code: 'server_draining',
          message: `This server is shutting down; retry in ${RETRY_AFTER_S} s (another replica answers)`,
        };
  res.shouldKeepAlive = false;
  res.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'retry-after': String(RETRY_AFTER_S),
    'cache-control': 'no-store',
    connection: 'close',
  });
  res.end(JSON.stringify(body));
  // A body the client is still sending is not read; the connection ends after the answer.
  req.resume();
}
