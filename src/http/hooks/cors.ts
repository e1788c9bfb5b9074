import type { Config } from '../../config/types.js';
import type { Check } from './check.js';
import { allowedHostPatterns, hostAllowed } from './host-check.js';
import { isApiOrMcp, isHttpApi } from './paths.js';
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
 * Origins trusted on /api/* (SPEC section 1, CORS scope): the server's own origin (the page's
 * Origin names the Host it was sent to, and that Host is one the server answers to:
 * api.mcp.allowed_hosts or its defaults) and the exact api.mcp.cors.allow_origins. Not the
 * loopback-any-port pattern: that is for browser-based MCP clients, and would let a page
 * served by any other local program drive the SQL API.
 */
export function apiOriginMatcher(config: Config): (origin: string, host: string | undefined) => boolean {
  const cors = config.api.mcp.cors;
  const exact = new Set(cors.allow_origins.map((o) => o.trim().toLowerCase().replace(/\/+$/, '')));
  const anyOrigin = exact.has('*');
  const hosts = allowedHostPatterns(config);
  return (origin, host) => {
    if (anyOrigin || exact.has(origin.toLowerCase())) return true;
    if (!host) return false;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    return url.host === host.trim().toLowerCase() && hostAllowed(host, hosts);
  };
}

/** The refusal of an Origin, naming what would let it in. */
function originRefusal(origin: unknown, api: boolean) {
  const shown = String(origin).slice(0, 200);
  return refusal(
    403,
    'origin_not_allowed',
    api
      ? `Origin '${shown}' is not allowed on /api: only this server's own origin and api.mcp.cors.allow_origins (TRIBUTARY_MCP_ALLOW_ORIGINS) are trusted; to open the console under another host name, add its origin there (or the name to api.mcp.allowed_hosts)`
      : `Origin '${shown}' is not allowed; add it to api.mcp.cors.allow_origins (TRIBUTARY_MCP_ALLOW_ORIGINS) or api.mcp.cors.allow_origin_regex`,
  );
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
  const apiAllowed = apiOriginMatcher(config);
  const cors = config.api.mcp.cors;
  const allowHeaders = (cors.allow_headers.length ? cors.allow_headers : DEFAULT_ALLOW_HEADERS).join(', ');
  const exposeHeaders = EXPOSE_HEADERS.join(', ');

  return (req, res) => {
    const origin = req.headers.origin;
    if (origin === undefined) return null;
    if (cors.enabled) res.setHeader('Vary', 'Origin');
    const isPreflight =
      req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    const api = isHttpApi(req.path);
    const host = typeof req.headers.host === 'string' ? req.headers.host : undefined;
    const ok = typeof origin === 'string' && (api ? apiAllowed(origin, host) : allowed(origin));
    if (!ok) {
      if (isPreflight || isApiOrMcp(req.path)) return originRefusal(origin, api);
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
