import type { FastifyRequest } from 'fastify';

/** Routes under /api and /mcp that need no credential (docs/reference/http.md#authentication). */
export const PUBLIC_ROUTES = new Set(['/api/login', '/mcp/status']);

/**
 * The path the security policy looks at. For a matched route it is the registered pattern
 * (so `/api/files/:name` is judged as registered, whatever the URL's encoding). For an
 * unmatched URL it is the decoded, lower-cased path with repeated slashes folded, so odd
 * spellings of a protected path still count as protected (and get 401, not a 404 that
 * confirms what exists).
 */
export function policyPath(request: FastifyRequest): string {
  const routeUrl = request.is404 ? undefined : request.routeOptions.url;
  if (routeUrl) return routeUrl;
  const raw = request.url.split('?')[0] ?? '/';
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // keep the raw form
  }
  const folded = decoded
    .toLowerCase()
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/');
  return folded.length > 1 ? folded.replace(/\/+$/, '') : folded;
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The API and MCP surface: where Origin checks and rate limits apply. */
export function isApiOrMcp(path: string): boolean {
  return under(path, '/api') || under(path, '/mcp');
}

/** The HTTP API (not MCP): its browser callers are the console and configured origins only. */
export function isHttpApi(path: string): boolean {
  return under(path, '/api');
}

/** Every /api and /mcp route except the public ones, and /metrics, need a credential when auth is on. */
export function needsCredential(path: string): boolean {
  return (isApiOrMcp(path) && !PUBLIC_ROUTES.has(path)) || path === '/metrics';
}

/** Health checks stay cheap and unlimited. */
export function isRateLimited(path: string): boolean {
  return isApiOrMcp(path) && path !== '/mcp/status';
}
