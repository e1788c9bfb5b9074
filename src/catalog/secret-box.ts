import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secret source parameters (DESIGN "Catalog and secrets"). The associated
 * data binds a ciphertext to `${sourceId}:${fieldName}`, so a sealed value copied onto
 * another source or field fails to open instead of leaking there.
 *
 * Sealed form: `v1:<base64 iv>:<base64 tag>:<base64 ciphertext>`; the version lets the
 * format change later without guessing.
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** The sealed text cannot be opened: wrong key, wrong associated data, or altered bytes. Never carries secret text. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES)
    throw new SecretBoxError(`secret key must be ${KEY_BYTES} bytes, got ${key.length}`);
}

export function secretAad(sourceId: string, fieldName: string): string {
  return `${sourceId}:${fieldName}`;
}

export function seal(key: Buffer, aad: string, plaintext: string): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join(
    ':',
  );
}

export function open(key: Buffer, aad: string, sealed: string): string {
  checkKey(key);
  const parts = typeof sealed === 'string' ? sealed.split(':') : [];
  if (parts.length !== 4 || parts[0] !== VERSION) {
    throw new SecretBoxError('sealed secret is malformed or of an unknown version');
  }
  const iv = Buffer.from(parts[1]!, 'base64');
  const tag = Buffer.from(parts[2]!, 'base64');
  const ct = Buffer.from(parts[3]!, 'base64');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new SecretBoxError('sealed secret is malformed');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError('cannot decrypt secret: wrong secret key, or the stored value was altered');
  }
}

/** Secrets may be any JSON value (a password, a header map): sealed as their JSON text. */
export function sealJson(key: Buffer, aad: string, value: unknown): string {
  return seal(key, aad, JSON.stringify(value));
}

export function openJson(key: Buffer, aad: string, sealed: string): unknown {
  return JSON.parse(open(key, aad, sealed));
}
