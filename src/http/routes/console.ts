import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.js';
import { sendError } from '../errors.js';

/**
 * The page holds no data and runs no inline code: scripts, styles and calls stay on this
 * origin, and no other site may frame it (clickjacking of the login form).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

interface Asset {
  type: string;
  raw: Buffer;
  gzip: Buffer | null;
}

/** dist/console of the package, found from this file whether it runs from src/ (tsx) or dist/. */
export function consoleDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return join(dir, 'dist', 'console');
}

function loadAssets(dir: string): Map<string, Asset> | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const out = new Map<string, Asset>();
  const add = (name: string, path: string) => {
    const ext = name.slice(name.lastIndexOf('.'));
    const raw = readFileSync(path);
    const type = TYPES[ext] ?? 'application/octet-stream';
    // Compressed once at load: the bundle is ~1 MB of text that gzip takes to a third.
    out.set(name, { type, raw, gzip: raw.length > 1024 ? gzipSync(raw, { level: 9 }) : null });
  };
  add('index.html', join(dir, 'index.html'));
  const assets = join(dir, 'assets');
  if (existsSync(assets)) for (const n of readdirSync(assets)) add(`assets/${n}`, join(assets, n));
  return out;
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset, cache: string) {
  reply
    .header('Content-Type', asset.type)
    .header('Cache-Control', cache)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Vary', 'Accept-Encoding');
  const gz = asset.gzip && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  if (gz) reply.header('Content-Encoding', 'gzip');
  return reply.send(gz ? asset.gzip : asset.raw);
}

/**
 * The web console (docs/reference/http.md#web-console): `GET /` is the page, `GET /assets/*`
 * its content-hashed files. Both are public: the page carries no data, and every API call it
 * makes carries the token like any other client. The build (scripts/build-console.mjs) is
 * read at the first request, so a server started before `npm run build` picks it up.
 */
export function registerConsoleRoutes(app: FastifyInstance, deps: AppDeps, dir = consoleDir()): void {
  let assets: Map<string, Asset> | null = null;
  const get = () => {
    assets ??= loadAssets(dir);
    return assets;
  };

  app.get('/', async (request, reply) => {
    const all = get();
    const page = all?.get('index.html');
    if (!page) {
      deps.logger.warn({ dir }, 'console: no build found');
      return sendError(
        reply,
        503,
        'console_not_built',
        'The web console is not built: run `npm run build` (it writes dist/console/)',
      );
    }
    reply
      .header('Content-Security-Policy', CONSOLE_CSP)
      .header('X-Frame-Options', 'DENY')
      .header('Cross-Origin-Opener-Policy', 'same-origin');
    // The page names the current hashed assets: always revalidate it.
    return send(request, reply, page, 'no-cache');
  });

  app.get<{ Params: { name: string } }>('/assets/:name', async (request, reply) => {
    const asset = get()?.get(`assets/${request.params.name}`);
    if (!asset)
      return sendError(reply, 404, 'not_found', `No console asset '${request.params.name.slice(0, 80)}'`);
    return send(request, reply, asset, 'public, max-age=31536000, immutable');
  });
}
