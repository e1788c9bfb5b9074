import type { Config } from '../../config/types.js';
import type { Check } from './check.js';
import { isApiOrMcp } from './paths.js';
import { refusal } from './refusal.js';

export const DEFAULT_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Last-Event-ID',
];
/** Browsers may read these from responses: MCP sessions, auth challenges, rate limits. */
export const EXPOSE_HEADERS = ['Mcp-Session-Id', 'Mcp-Protocol-Version', 'WWW-Authenticate', 'Retry-After'];
const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

export function originMatcher(config: Config): (origin: string) => boolean {
  const cors = config.api.mcp.cors;
  const exact = new Set(cors.allow_origins.map((o) => o.trim().toLowerCase().replace(/\/+$/, '')));
  const anyOrigin = exact.has('*');
  // The whole origin must match (as Starlette's fullmatch does), so an unanchored pattern
  // like `app\.example\.com` cannot be satisfied by `https://app.example.com.evil.net`.
  const regex = cors.allow_origin_regex ? new RegExp(`^(?:${cors.allow_origin_regex})$`) : null;
  return (origin) => anyOrigin || exact.has(origin.toLowerCase()) || (regex?.test(origin) ?? false);
}

/**
 * Origin check and CORS (api.mcp.cors.*). A browser request from an origin that is not
 * allowed is refused on the API and MCP surface (docs/reference/http.md#authentication) before authentication, so a
 * hostile page cannot drive the server with credentials it got hold of. Allowed origins get
 * CORS headers on every answer, 401/403/429 included. The headers are set on the raw
 * response so they survive routes that take over the socket (SSE, MCP transports).
 * A preflight is answered here (204).
 */
export function corsCheck(config: Config): Check {
  const allowed = originMatcher(config);
  const cors = config.api.mcp.cors;
  const allowHeaders = (cors.allow_headers.length ? cors.allow_headers : DEFAULT_ALLOW_HEADERS).join(', ');
  const exposeHeaders = EXPOSE_HEADERS.join(', ');

  return (req, res) => {
    const origin = req.headers.origin;
    if (origin === undefined) return null;
    if (cors.enabled) res.setHeader('Vary', 'Origin');
    const isPreflight =
      req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    const ok = typeof origin === 'string' && allowed(origin);
    if (!ok) {
      if (isPreflight || isApiOrMcp(req.path)) {
        return refusal(403, 'origin_not_allowed', `Origin '${String(origin).slice(0, 200)}' is not allowed`);
      }
      return null;
    }
    if (!cors.enabled) return null;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', exposeHeaders);
    if (isPreflight) {
      res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
      res.setHeader('Access-Control-Allow-Headers', allowHeaders);
      res.setHeader('Access-Control-Max-Age', '600');
      return { status: 204 };
    }
    return null;
  };
}
