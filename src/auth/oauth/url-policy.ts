import ipaddr from 'ipaddr.js';

/** True for `localhost`, 127.0.0.0/8 and ::1 (also as IPv4-mapped IPv6). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(h)) return false;
  let addr = ipaddr.parse(h);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr.range() === 'loopback';
}

/**
 * The authorization server and every endpoint it names must be https, except on loopback
 * (local development and tests). Returns a reason when the URL is refused.
 */
export function issuerUrlProblem(raw: string, opts: { allowQuery?: boolean } = {}): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'is not a valid URL';
  }
  if (u.username || u.password) return 'must not carry credentials';
  if (u.hash || (u.search && !opts.allowQuery)) return 'must not have a query or fragment';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && isLoopbackHost(u.hostname)) return null;
  return 'must use https (plain http is allowed only on loopback)';
}
