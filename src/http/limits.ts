/**
 * What one client can hold of the HTTP server (docs/reference/http.md, "Limits"):
 * - headers must arrive within `api.http.header_timeout_ms` (Node checks every second, not
 *   every 30 s);
 * - a request body must keep up `api.http.min_body_rate` bytes a second once that time has
 *   passed, or it is cut with 408; a request that cannot be authenticated (`/api/login`,
 *   or no Authorization header while auth is on) must be whole within the header timeout;
 * - one client address holds at most `api.http.max_connections_per_ip` open connections;
 *   more are closed as they open (a trusted proxy's are not counted: its clients are many);
 * - an error the HTTP parser answers itself (431 headers too large, 400 malformed) is the
 *   documented error shape and says `Connection: close`, and the connection is ended after
 *   it rather than reset, so a keep-alive client reads the answer.
 * A slow-body attack of 20,000 stalled uploads used every file descriptor before these.
 * The decisions are pure functions (bodyVerdict); the server wiring asks them.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

export interface HttpLimits {
  headerTimeoutMs: number;
  minBodyRate: number;
  maxConnectionsPerIp: number;
  /** Whether requests need credentials (token or OAuth auth is on). */
  authOn: boolean;
  /** Whether a peer address is a trusted proxy (api.http.trust_proxy). */
  trustedProxy: (address: string) => boolean;
}

/** How often request bodies are checked against their budget. */
const TICK_MS = 1000;

/** A request whose body is still arriving. */
interface Pending {
  req: IncomingMessage;
  res: ServerResponse;
  started: number;
  /** The socket's bytes read when the request's headers were parsed. */
  bytesAtStart: number;
  /** Whole within the header timeout (it cannot be authenticated). */
  short: boolean;
}

/** Whether a request cannot be authenticated: its body gets the short budget. */
export function unauthenticated(
  url: string | undefined,
  authorization: string | undefined,
  authOn: boolean,
): boolean {
  const path = (url ?? '').split('?')[0];
  if (path === '/api/login') return true;
  return authOn && !authorization;
}

/**
 * Whether a body still arriving has had its time: `elapsedMs` since its headers,
 * `received` bytes of it so far. Null: it may go on; otherwise why it is cut.
 */
export function bodyVerdict(
  elapsedMs: number,
  received: number,
  short: boolean,
  limits: Pick<HttpLimits, 'headerTimeoutMs' | 'minBodyRate'>,
): string | null {
  if (elapsedMs <= limits.headerTimeoutMs) return null;
  if (short)
    return `the request was not complete within ${limits.headerTimeoutMs} ms (api.http.header_timeout_ms; a request without credentials gets no more)`;
  const owed = ((elapsedMs - limits.headerTimeoutMs) / 1000) * limits.minBodyRate;
  return received < owed
    ? `the request body arrived slower than ${limits.minBodyRate} bytes a second (api.http.min_body_rate)`
    : null;
}

/** Applies the limits to a Node HTTP server: connections per address, header time, body rate. */
export class ConnectionGuard {
  private readonly pending = new Set<Pending>();
  private readonly perAddress = new Map<string, number>();
  private ticker: NodeJS.Timeout | null = null;

  constructor(
    private readonly limits: HttpLimits,
    private readonly logger: Logger,
  ) {}

  /** Attach to a server before it listens. */
  attach(server: Server): void {
    server.headersTimeout = this.limits.headerTimeoutMs;
    // Bodies are bounded by their rate here, not by a total time: a long upload that keeps
    // its rate goes on. A total limit set elsewhere (0: none) must not be below the headers'.
    if (server.requestTimeout > 0)
      server.requestTimeout = Math.max(server.requestTimeout, this.limits.headerTimeoutMs);
    server.on('connection', (socket: Socket) => this.connection(socket));
    server.on('close', () => this.stop());
  }

  /** Each request, as the server gets it (before any handler reads its body). */
  request(req: IncomingMessage, res: ServerResponse): void {
    if (!hasBody(req)) return;
    const p: Pending = {
      req,
      res,
      started: performance.now(),
      bytesAtStart: req.socket.bytesRead,
      short: unauthenticated(req.url, req.headers.authorization, this.limits.authOn),
    };
    this.pending.add(p);
    const done = () => this.pending.delete(p);
    req.once('end', done);
    req.once('close', done);
    this.ticker ??= setInterval(() => this.tick(), TICK_MS).unref();
  }

  private connection(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    if (this.limits.trustedProxy(address)) return;
    const n = (this.perAddress.get(address) ?? 0) + 1;
    if (n > this.limits.maxConnectionsPerIp) {
      this.logger.warn(
        { client: address, limit: this.limits.maxConnectionsPerIp },
        'connection refused: too many open connections from one address (api.http.max_connections_per_ip)',
      );
      socket.destroy();
      return;
    }
    this.perAddress.set(address, n);
    socket.once('close', () => {
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left <= 0) this.perAddress.delete(address);
      else this.perAddress.set(address, left);
    });
  }

  private tick(): void {
    const now = performance.now();
    for (const p of this.pending) {
      if (p.req.complete || p.req.socket.destroyed) {
        this.pending.delete(p);
        continue;
      }
      const why = bodyVerdict(now - p.started, p.req.socket.bytesRead - p.bytesAtStart, p.short, this.limits);
      if (why) {
        this.pending.delete(p);
        cut(p, why, this.logger);
      }
    }
    if (this.pending.size === 0) this.stop();
  }

  private stop(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

/** Answer 408 (when nothing was answered yet) and close the connection. */
function cut(p: Pending, why: string, logger: Logger): void {
  const socket = p.req.socket;
  logger.warn({ client: socket.remoteAddress, url: p.req.url }, `request cut: ${why}`);
  if (!p.res.headersSent && !p.res.writableEnded) {
    const body = JSON.stringify({ error_code: 'request_timeout', message: `Request timed out: ${why}` });
    p.res.writeHead(408, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    p.res.end(body);
  }
  // The rest of the body is not waited for.
  setTimeout(() => socket.destroy(), 100).unref();
  socket.end();
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * The answer to an error Node's HTTP parser meets before any handler (Fastify's
 * clientErrorHandler): the documented error shape, `Connection: close`, and the connection
 * ended after it (a reset would lose the answer).
 */
export function clientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'Request headers are too large (at most 16 KiB)']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            408,
            'request_timeout',
            'Request timed out: the request headers did not arrive in time (api.http.header_timeout_ms)',
          ]
        : [400, 'invalid_request', 'Malformed HTTP request'];
  const body = JSON.stringify({ error_code: code, message });
  if (socket.writable)
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  setTimeout(() => socket.destroy(), 1000).unref();
}
