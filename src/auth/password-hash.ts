/**
 * Password hashes of auth.users_file (docs/reference/http.md#more-users): scrypt from node:crypto,
 * written `scrypt$N=32768,r=8,p=1$<salt>$<hash>` (salt 16 bytes, hash 32 bytes, both base64url).
 * N=2^15, r=8, p=1 (twice the N scrypt's paper gave for interactive logins in 2009): 32 MiB and
 * about 0.1-0.2 s a check on one core here, so each guess costs a guesser as much as it costs us. A hash with other parameters is
 * read with its own, within the bounds below (a file may not make one check take gigabytes).
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export const SCRYPT_PARAMS = { N: 32768, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** The most memory one check may take (128 * N * r bytes). */
const MAX_MEMORY = 256 * 1024 * 1024;

export interface PasswordHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]+$/;

/** The hash's parts, or why it is not one we can check (for the users file's error). */
export function parsePasswordHash(text: string): PasswordHash | string {
  const parts = text.split('$');
  if (parts.length !== 4 || parts[0] !== 'scrypt')
    return 'is not of the form scrypt$N=...,r=...,p=...$<salt>$<hash> (print one with `tributary hash-password`)';
  const params = new Map<string, number>();
  for (const kv of parts[1].split(',')) {
    const m = /^(N|r|p)=(\d{1,10})$/.exec(kv);
    if (!m || params.has(m[1]))
      return `has unreadable scrypt parameters '${parts[1]}' (expected N=...,r=...,p=...)`;
    params.set(m[1], Number(m[2]));
  }
  const N = params.get('N');
  const r = params.get('r');
  const p = params.get('p');
  if (N === undefined || r === undefined || p === undefined)
    return `lacks a scrypt parameter in '${parts[1]}' (expected N=...,r=...,p=...)`;
  if (N < 1024 || N > 1 << 20 || (N & (N - 1)) !== 0)
    return `has scrypt N=${N}: expected a power of two from 1024 to 1048576`;
  if (r < 1 || r > 32 || p < 1 || p > 16) return `has scrypt r=${r}, p=${p}: expected r 1..32 and p 1..16`;
  if (128 * N * r > MAX_MEMORY) return `has scrypt N=${N}, r=${r}: that needs more than 256 MiB a check`;
  if (!B64URL.test(parts[2]) || !B64URL.test(parts[3])) return 'has a salt or hash that is not base64url';
  const salt = Buffer.from(parts[2], 'base64url');
  const hash = Buffer.from(parts[3], 'base64url');
  if (salt.length < 8) return 'has a salt shorter than 8 bytes';
  if (hash.length < 16 || hash.length > 64) return 'has a hash of other than 16 to 64 bytes';
  return { N, r, p, salt, hash };
}

/**
 * At most this many checks run at once (each holds 32 MiB, more for a costlier hash), so a
 * burst of logins from many addresses waits in line instead of taking the memory.
 */
const MAX_CONCURRENT = 4;
let running = 0;
const waiting: (() => void)[] = [];

async function derive(
  password: string,
  salt: Buffer,
  keylen: number,
  o: { N: number; r: number; p: number },
) {
  // A finished check hands its slot straight to the next in line.
  if (running >= MAX_CONCURRENT) await new Promise<void>((r) => waiting.push(r));
  else running++;
  try {
    return await scryptOnce(password, salt, keylen, o);
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function scryptOnce(password: string, salt: Buffer, keylen: number, o: { N: number; r: number; p: number }) {
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(
      Buffer.from(password, 'utf8'),
      salt,
      keylen,
      { N: o.N, r: o.r, p: o.p, maxmem: MAX_MEMORY + 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

/** A new hash of `password` with this server's parameters and a fresh salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_BYTES, SCRYPT_PARAMS);
  const { N, r, p } = SCRYPT_PARAMS;
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Whether `password` is the one hashed; the comparison takes the same time wherever they differ. */
export async function verifyPassword(password: string, h: PasswordHash): Promise<boolean> {
  const key = await derive(password, h.salt, h.hash.length, h);
  return timingSafeEqual(key, h.hash);
}

let decoy: Promise<PasswordHash> | null = null;

/**
 * A hash no password matches, checked for an unknown user so that a wrong user name takes as
 * long as a wrong password (the answer says nothing about which users exist).
 */
export function decoyHash(): Promise<PasswordHash> {
  decoy ??= (async () => {
    const h = parsePasswordHash(await hashPassword(randomBytes(32).toString('base64url')));
    if (typeof h === 'string') throw new Error(h);
    return h;
  })();
  return decoy;
}
