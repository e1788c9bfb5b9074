import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';

/**
 * A fake upstream API on loopback only. Every request counts as a hit, so refusal tests
 * can prove nothing reached it.
 */

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Upstream {
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  hits: number;
  seen: SeenRequest[];
  /** Most requests in progress at once. */
  maxInFlight: number;
  /** TCP connections accepted. */
  connections: number;
  reset(): void;
  close(): Promise<void>;
}

export const BOMB_DECODED = 64 * 1024 * 1024;
const bomb = gzipSync(Buffer.alloc(BOMB_DECODED), { level: 9 });
const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);

function json(
  res: http.ServerResponse,
  status: number,
  value: unknown,
  extra: http.OutgoingHttpHeaders = {},
) {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length, ...extra });
  res.end(body);
}

function authToken(req: http.IncomingMessage): string {
  return String(req.headers.authorization ?? '').replace(/^Bearer /, '');
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string, port: number) {
  const u = new URL(req.url ?? '/', 'http://upstream.invalid');
  const parts = u.pathname.split('/').filter(Boolean);
  const [head, arg] = parts;
  switch (head) {
    case 'echo':
    case undefined:
      return json(res, 200, { method: req.method, url: req.url, headers: req.headers, body });
    case 'status':
      return json(res, Number(arg), { status: Number(arg) });
    case 'size': {
      // Exactly n bytes, declared with content-length.
      const n = Number(arg);
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': n });
      return res.end(Buffer.alloc(n, 0x61));
    }
    case 'size-chunked': {
      // n bytes without content-length, in 64 KiB chunks.
      let left = Number(arg);
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 0x62);
      const pump = () => {
        while (left > 0) {
          const piece = chunk.subarray(0, Math.min(left, chunk.length));
          left -= piece.length;
          if (!res.write(piece)) return res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    case 'gzip-bomb':
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' });
      return res.end(bomb);
    case 'gzip':
    case 'deflate':
    case 'br': {
      const raw = Buffer.from(JSON.stringify({ compressed: head, token: authToken(req) }));
      const enc =
        head === 'gzip' ? gzipSync(raw) : head === 'deflate' ? deflateSync(raw) : brotliCompressSync(raw);
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': head,
        'content-length': enc.length,
      });
      return res.end(enc);
    }
    case 'zstd':
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'zstd' });
      return res.end('whatever');
    case 'hang':
      return; // never answers
    case 'slow': {
      const t = setTimeout(() => json(res, 200, { slow: Number(arg) }), Number(arg));
      res.on('close', () => clearTimeout(t));
      return;
    }
    case 'hang-body':
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 100 });
      return res.write('partial');
    case 'trickle': {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const t = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(t));
      return;
    }
    case 'truncated':
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 100 });
      // Let the headers and the first bytes reach the client, then cut the connection.
      res.write('only part', () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    case 'garbage':
      req.socket.write('THIS IS NOT HTTP\r\n\r\n');
      return req.socket.destroy();
    case 'redirect': {
      // /redirect/n → /redirect/n-1 → ... → /echo, all same origin.
      const n = Number(arg);
      const location = n <= 1 ? '/echo' : `/redirect/${n - 1}`;
      res.writeHead(302, { location });
      return res.end();
    }
    case 'slow-redirect': {
      // /slow-redirect/n/ms: wait ms, then redirect to n-1; ends at /echo.
      const n = Number(arg);
      const ms = Number(parts[2] ?? 100);
      const t = setTimeout(() => {
        res.writeHead(302, { location: n <= 1 ? '/echo' : `/slow-redirect/${n - 1}/${ms}` });
        res.end();
      }, ms);
      res.on('close', () => clearTimeout(t));
      return;
    }
    case 'redirect-status': {
      res.writeHead(Number(arg), { location: `http://127.0.0.1:${port}/echo` });
      return res.end();
    }
    case 'redirect-to': {
      res.writeHead(302, { location: u.searchParams.get('url') ?? '/', 'content-type': 'text/plain' });
      return res.end(`moving to another origin with ${authToken(req)}`);
    }
    case 'html':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end('<!doctype html><p>héllo</p>');
    case 'binary': {
      const b = Buffer.concat([PNG_HEAD, Buffer.from(authToken(req)), Buffer.from([0xff, 0xfe, 0x00])]);
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': b.length });
      return res.end(b);
    }
    case 'latin1':
      res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
      return res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    case 'bad-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"not": json');
    case 'cookies':
      res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; HttpOnly']);
      return json(res, 200, { ok: true }, { 'x-single': 'one' });
    case 'leak': {
      // An upstream that reflects the token every way it can.
      const t = authToken(req);
      const b64 = Buffer.from(`user:${t}`).toString('base64');
      const value = {
        raw: `Bearer ${t}`,
        url: `https://cb.example/?token=${encodeURIComponent(t)}`,
        urlLower: encodeURIComponent(t).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
        b64,
        b64url: Buffer.from(t).toString('base64url'),
        apiKey: String(req.headers['x-api-key'] ?? ''),
      };
      const headers: http.OutgoingHttpHeaders = {
        'x-echo-auth': `Bearer ${t}`,
        'x-echo-b64': b64,
        'set-cookie': [`session=${t}; Path=/`],
        location: `https://elsewhere.example/?t=${encodeURIComponent(t)}`,
      };
      return json(res, 200, value, headers);
    }
    default:
      return json(res, 404, { error: 'no such route' });
  }
}

export async function startUpstream(host = '127.0.0.1'): Promise<Upstream> {
  const state = { hits: 0, seen: [] as SeenRequest[], inFlight: 0, maxInFlight: 0, connections: 0 };
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    state.hits++;
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    res.on('close', () => state.inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handle(req, res, body, (server.address() as AddressInfo).port);
    });
  });
  server.on('connection', (s) => {
    state.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    port,
    url: `http://${shown}:${port}`,
    get hits() {
      return state.hits;
    },
    get seen() {
      return state.seen;
    },
    get maxInFlight() {
      return state.maxInFlight;
    },
    get connections() {
      return state.connections;
    },
    reset() {
      state.hits = 0;
      state.seen = [];
      state.maxInFlight = 0;
      state.connections = 0;
    },
    async close() {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
