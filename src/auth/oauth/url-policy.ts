import { isLoopbackHost } from '../../core/loopback.js';

export { isLoopbackHost };

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
