import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Personal access tokens carry this prefix so they are never sent to an OAuth issuer for checking. */
export const TOKEN_PREFIX = 'trb_';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/**
 * Compares two secrets in time independent of where they differ and of their lengths:
 * both sides are hashed first so timingSafeEqual always sees equal-length buffers.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}

/** An opaque bearer token: 32 random bytes, base64url, with the Tributary prefix. */
export function newAccessToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** `Authorization: Bearer <credential>` → the credential; null when absent or of another scheme. */
export function bearerCredential(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  const m = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i.exec(header);
  return m ? m[1]! : null;
}
