import type { Config } from '../config/types.js';

/** What a person starting the server on a terminal wants to see first (the logs stay on stderr). */
export function banner(url: string, config: Config, version: string): string {
  const auth = [
    config.auth.username ? 'token (POST /api/login, then Authorization: Bearer <token>)' : null,
    config.api.mcp.oauth.enabled ? `OAuth (issuer ${config.api.mcp.oauth.issuer_url})` : null,
  ].filter(Boolean);
  const lines = [
    `Tributary ${version} is running`,
    '',
    `  SQL over HTTP   ${url}/api/sql/query`,
    `  MCP             ${url}/mcp            (Streamable HTTP; legacy SSE at ${url}/mcp/sse)`,
    `  Auth            ${auth.length ? auth.join(' + ') : 'none (loopback only)'}`,
    `  Storage         ${config.storageDir}`,
    '',
    'Try:',
    `  tributary query --url ${url} "SHOW DATABASES"`,
    config.demo
      ? `  tributary query --url ${url} "SELECT * FROM demo.customers LIMIT 5"`
      : `  tributary --demo            (restart with a sample 'demo' source)`,
    '  MCP clients: docs/clients.md. Ctrl-C stops the server.',
    '',
  ];
  return `${lines.join('\n')}\n`;
}
