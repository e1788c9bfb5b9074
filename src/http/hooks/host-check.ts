import type { Config } from '../../config/types.js';
import type { Check } from './check.js';
import { refusal } from './refusal.js';

interface HostPattern {
  name: string;
  /** Null: any port. */
  port: string | null;
}

/** `example.com:8080`, `[::1]:80`, `::1` → name (brackets kept for IPv6) and port; null when malformed. */
export function parseHost(raw: string, allowBareIpv6 = false): HostPattern | null {
  const h = raw.trim().toLowerCase();
  if (!h) return null;
  let name: string;
  let port: string | null = null;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return null;
    name = h.slice(0, end + 1);
    const rest = h.slice(end + 1);
    if (rest) {
      if (!rest.startsWith(':')) return null;
      port = rest.slice(1);
    }
  } else {
    const parts = h.split(':');
    if (parts.length > 2) {
      if (!allowBareIpv6) return null;
      name = `[${h}]`;
    } else {
      name = parts[0]!;
      port = parts[1] ?? null;
    }
  }
  if (port !== null && !/^\d{1,5}$/.test(port)) return null;
  name = name.replace(/\.$/, '');
  return name ? { name, port } : null;
}

/** api.mcp.allowed_hosts, or the local defaults plus the configured listening host. */
export function allowedHostPatterns(config: Config): HostPattern[] {
  const configured = config.api.mcp.allowed_hosts;
  const list = configured.length ? configured : ['localhost', '127.0.0.1', '[::1]', config.api.http.host];
  return list.map((e) => parseHost(e, true)).filter((p): p is HostPattern => p !== null);
}

export function hostAllowed(hostHeader: string | undefined, patterns: HostPattern[]): boolean {
  if (!hostHeader) return false;
  const h = parseHost(hostHeader);
  if (!h) return false;
  return patterns.some((p) => p.name === h.name && (p.port === null || p.port === h.port));
}

/**
 * DNS-rebinding protection (api.mcp.dns_rebinding_protection): a page on an attacker's
 * domain that resolves to this server still sends its own name as Host, so any Host
 * outside the list is refused with 421 before anything else runs. Null when it is off.
 */
export function hostCheck(config: Config): Check | null {
  if (!config.api.mcp.dns_rebinding_protection) return null;
  const patterns = allowedHostPatterns(config);
  return ({ headers: { host } }) =>
    hostAllowed(host, patterns)
      ? null
      : refusal(
          421,
          'invalid_host',
          `Host '${String(host ?? '').slice(0, 200)}' is not allowed; add it to api.mcp.allowed_hosts (TRIBUTARY_MCP_ALLOWED_HOSTS), or turn off api.mcp.dns_rebinding_protection (TRIBUTARY_MCP_DNS_REBINDING_PROTECTION)`,
        );
}
