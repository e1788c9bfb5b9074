import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { isNoSpace } from '../core/storage-full.js';

export interface FileLockOptions {
  /** A lock older than this is taken to be left by a crashed process. Holders keep it for milliseconds. */
  staleMs?: number;
  /** Give up waiting after this long. */
  timeoutMs?: number;
  logger?: Logger;
}

interface Holder {
  pid: number;
  host: string;
  token: string;
}

function parseHolder(text: string): Holder | null {
  try {
    const h = JSON.parse(text) as Holder;
    return typeof h.pid === 'number' && typeof h.host === 'string' ? h : null;
  } catch {
    return null;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True when the lock at `path` was left behind: its holder on this host is gone, or it is too old. */
async function isStale(
  path: string,
  staleMs: number,
): Promise<{ stale: boolean; ino?: bigint; holder?: Holder | null }> {
  try {
    const st = await stat(path, { bigint: true });
    const holder = parseHolder(await readFile(path, 'utf8'));
    const ageMs = Date.now() - Number(st.mtimeMs);
    if (holder && holder.host === hostname() && holder.pid !== process.pid && !pidAlive(holder.pid)) {
      return { stale: true, ino: st.ino, holder };
    }
    // An unreadable lock may be mid-write by its creator: only its age can condemn it.
    return { stale: ageMs > staleMs, ino: st.ino, holder };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { stale: false };
    throw e;
  }
}

/**
 * Run `fn` holding an exclusive lock file (created with O_EXCL), so processes sharing a
 * storage dir take turns. A stale lock is moved aside with rename(), which only one
 * contender can win for a given file.
 */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  opts: FileLockOptions = {},
): Promise<T> {
  const staleMs = opts.staleMs ?? 10_000;
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  const me: Holder = { pid: process.pid, host: hostname(), token: randomBytes(8).toString('hex') };
  let wait = 2;
  /** The lock file's inode when its holder could not be written into it (a full disk). */
  let emptyIno: bigint | null = null;
  for (;;) {
    try {
      const fh = await open(path, 'wx', 0o600);
      try {
        await fh.writeFile(JSON.stringify(me));
      } catch (e) {
        if (!isNoSpace(e)) {
          await fh.close().catch(() => {});
          await unlink(path).catch(() => {});
          throw e;
        }
        // A full disk: the empty file (no data pages) is still an exclusive lock, ours by
        // its inode; others judge it by age alone. The page it would have taken is left
        // for the write the lock is for.
        await fh.truncate(0).catch(() => {});
        emptyIno = (await fh.stat({ bigint: true })).ino;
      }
      await fh.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const s = await isStale(path, staleMs);
    if (s.stale) {
      const aside = `${path}.stale.${me.token}`;
      try {
        await rename(path, aside);
        const moved = await stat(aside, { bigint: true });
        if (moved.ino === s.ino) {
          opts.logger?.warn({ lock: path, holder: s.holder ?? undefined }, 'removed a stale catalog lock');
        } else {
          // Another contender broke the stale lock and took a fresh one first: give it back.
          await link(aside, path).catch(() => {});
        }
        await unlink(aside).catch(() => {});
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      continue;
    }
    if (Date.now() > deadline) {
      const who = s.holder ? `pid ${s.holder.pid} on ${s.holder.host}` : 'another process';
      throw new Error(
        `The catalog is locked by ${who}: ${path}. If no Tributary process is using this storage dir, remove that file.`,
      );
    }
    await sleep(wait + Math.random() * wait);
    wait = Math.min(wait * 2, 50);
  }
  try {
    return await fn();
  } finally {
    // Only remove the lock if it is still ours (a stale-breaker may have taken it over).
    try {
      const text = await readFile(path, 'utf8');
      const cur = parseHolder(text);
      const mine =
        cur?.token === me.token ||
        (emptyIno !== null && text === '' && (await stat(path, { bigint: true })).ino === emptyIno);
      if (mine) await unlink(path);
    } catch {
      // already gone
    }
  }
}
