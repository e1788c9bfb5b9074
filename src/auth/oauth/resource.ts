import type { Config } from '../../config/types.js';

export const RESOURCE_PATH = '/mcp/streamable';
export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * This server's base URL as clients see it: `public_url`, else derived from the listening
 * host and port with the wildcard addresses read as 127.0.0.1 (docs/reference/http.md#authentication Details).
 */
export function publicBaseUrl(config: Config, listeningPort?: number): string {
  const configured = config.api.mcp.oauth.public_url;
  if (configured) return configured.replace(/\/+$/, '');
  let host = config.api.http.host;
  if (host === '0.0.0.0' || host === '::' || host === '[::]') host = '127.0.0.1';
  if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`;
  return `http://${host}:${listeningPort ?? config.api.http.port}`;
}

/** The resource URL tokens must name in `aud`. */
export const resourceUrl = (base: string) => base + RESOURCE_PATH;

/** Where WWW-Authenticate points clients (RFC 9728 §3.1: well-known path before the resource path). */
export const resourceMetadataUrl = (base: string) => base + METADATA_PATH + RESOURCE_PATH;

/** RFC 9728 protected resource metadata. */
export function protectedResourceMetadata(config: Config, base: string): Record<string, unknown> {
  const oauth = config.api.mcp.oauth;
  return {
    resource: resourceUrl(base),
    authorization_servers: [oauth.issuer_url],
    scopes_supported: [oauth.scope],
    bearer_methods_supported: ['header'],
    resource_name: 'Tributary',
  };
}
