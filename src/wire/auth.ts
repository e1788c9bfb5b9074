/**
 * The two password plugins MySQL 8 clients speak, server side, with node:crypto:
 * mysql_native_password (SHA-1 scramble) and caching_sha2_password (SHA-256 scramble for the
 * fast path; the password itself, over TLS or RSA-OAEP encrypted, for the full path).
 * The configured password is known in clear, so the "cache" of the fast path is always warm.
 */
import {
  constants,
  createHash,
  generateKeyPair,
  type KeyObject,
  privateDecrypt,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

export const NATIVE = 'mysql_native_password';
export const CACHING_SHA2 = 'caching_sha2_password';

/** caching_sha2_password's one-byte messages after 0x01 (more data). */
export const FAST_AUTH_SUCCESS = 3;
export const PERFORM_FULL_AUTH = 4;
export const REQUEST_PUBLIC_KEY = 2;

/** 20 random bytes with no NUL (the handshake carries them NUL-terminated). */
export function newScramble(): Buffer {
  const b = randomBytes(20);
  for (let i = 0; i < b.length; i++) {
    b[i] &= 0x7f;
    if (b[i] === 0 || b[i] === 0x24) b[i] = 0x2b;
  }
  return b;
}

function sha1(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return h.digest();
}

function sha256(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] ^ b[i % b.length];
  return out;
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What a client sends for mysql_native_password: SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw))). */
export function nativeToken(password: string, scramble: Buffer): Buffer {
  if (password === '') return Buffer.alloc(0);
  const stage1 = sha1(Buffer.from(password, 'utf8'));
  return xor(stage1, sha1(scramble, sha1(stage1)));
}

/** What a client sends for caching_sha2_password: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + scramble). */
export function sha2Token(password: string, scramble: Buffer): Buffer {
  if (password === '') return Buffer.alloc(0);
  const stage1 = sha256(Buffer.from(password, 'utf8'));
  return xor(stage1, sha256(sha256(stage1), scramble));
}

export function checkToken(plugin: string, password: string, scramble: Buffer, token: Buffer): boolean {
  const want = plugin === CACHING_SHA2 ? sha2Token(password, scramble) : nativeToken(password, scramble);
  return sameBytes(want, token);
}

/**
 * caching_sha2_password's fast path against a remembered SHA256(SHA256(pw)) (the server knows
 * no clear password): the token XOR SHA256(digest + scramble) must hash to the digest.
 */
export function checkSha2Digest(digest: Buffer, scramble: Buffer, token: Buffer): boolean {
  if (token.length !== 32) return false;
  const stage1 = xor(token, sha256(digest, scramble));
  return sameBytes(sha256(stage1), digest);
}

/** SHA256(SHA256(pw)): what the fast path is checked against. */
export function sha2Digest(password: string): Buffer {
  return sha256(sha256(Buffer.from(password, 'utf8')));
}

/** The full path's answer over TLS: the password, NUL-terminated. */
export function cleartextOf(data: Buffer): Buffer {
  const end = data.indexOf(0);
  return end < 0 ? data : data.subarray(0, end);
}

/** The full path's answer without TLS: RSA-OAEP of (password + NUL) XOR the scramble, repeated. Null when it does not decrypt. */
export function rsaCleartextOf(scramble: Buffer, key: KeyObject, data: Buffer): Buffer | null {
  let plain: Buffer;
  try {
    plain = privateDecrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, data);
  } catch {
    return null;
  }
  return cleartextOf(xor(plain, scramble));
}

/** The full path's answer against a known password (over TLS). */
export function checkCleartext(password: string, data: Buffer): boolean {
  return sameBytes(Buffer.from(password, 'utf8'), cleartextOf(data));
}

export interface RsaKeys {
  privateKey: KeyObject;
  /** PEM (SPKI), as the client asks for it. */
  publicPem: string;
}

let keys: Promise<RsaKeys> | null = null;

/** One key pair per process, made the first time a client needs it (about 100 ms). */
export function rsaKeys(): Promise<RsaKeys> {
  keys ??= new Promise((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: 2048 }, (err, publicKey, privateKey) => {
      if (err) {
        keys = null;
        reject(err);
        return;
      }
      resolve({ privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() });
    });
  });
  return keys;
}
