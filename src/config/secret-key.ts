import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './errors.js';

export const KEY_BYTES = 32;
export const KEY_FILE_NAME = 'secret.key';

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** Strict base64 (or base64url) of exactly 32 bytes; null otherwise. Buffer.from alone skips bad characters. */
export function decodeKey(text: string): Buffer | null {
  const s = text.trim();
  if (!B64.test(s) && !B64URL.test(s)) return null;
  const buf = Buffer.from(s, B64.test(s) ? 'base64' : 'base64url');
  return buf.length === KEY_BYTES ? buf : null;
}

function readKeyFile(path: string, origin: string): Buffer {
  let raw: Buffer;
  try {
    raw = readFileSync(path);
  } catch (e) {
    throw new ConfigError(
      `Cannot read secret key file ${path} (${origin}): ${(e as NodeJS.ErrnoException).code ?? e}`,
    );
  }
  const key = decodeKey(raw.toString('latin1'));
  if (key) return key;
  // A file of exactly 32 raw bytes is a key too (e.g. `head -c32 /dev/urandom > key`).
  if (raw.length === KEY_BYTES) return raw;
  throw new ConfigError(
    `Invalid secret key file ${path} (${origin}): expected base64 of exactly ${KEY_BYTES} bytes (e.g. \`openssl rand -base64 32\`)`,
  );
}

/**
 * The catalog encryption key: TRIBUTARY_SECRET_KEY, else TRIBUTARY_SECRET_KEY_FILE, else
 * `<storageDir>/secret.key`, created (0600) on first start. Creation goes through a temp
 * file and link() so a concurrent starter never reads a half-written key.
 */
export function resolveSecretKey(env: Record<string, string | undefined>, storageDir: string): Buffer {
  const inline = env.TRIBUTARY_SECRET_KEY?.trim() || undefined;
  const file = env.TRIBUTARY_SECRET_KEY_FILE?.trim() || undefined;
  if (inline && file) {
    throw new ConfigError(
      'Invalid configuration: set only one of TRIBUTARY_SECRET_KEY and TRIBUTARY_SECRET_KEY_FILE',
    );
  }
  if (inline) {
    const key = decodeKey(inline);
    if (!key) {
      throw new ConfigError(
        `Invalid configuration: TRIBUTARY_SECRET_KEY: expected base64 of exactly ${KEY_BYTES} bytes (e.g. \`openssl rand -base64 32\`)`,
      );
    }
    return key;
  }
  if (file) return readKeyFile(file, 'from TRIBUTARY_SECRET_KEY_FILE');

  const path = join(storageDir, KEY_FILE_NAME);
  try {
    return readKeyFile(path, 'in the storage dir');
  } catch (e) {
    if (!(e instanceof ConfigError) || !e.message.includes('ENOENT')) throw e;
  }
  try {
    mkdirSync(storageDir, { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(tmp, 0o600); // the umask may have narrowed it further, never widened; be exact
    try {
      linkSync(tmp, path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      unlinkSync(tmp);
    }
  } catch (e) {
    throw new ConfigError(
      `Cannot create secret key file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  return readKeyFile(path, 'in the storage dir');
}
