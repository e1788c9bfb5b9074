import { randomUUID } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Scratch files under `files/.tmp` carry the id of the process that made them
 * (`<kind>-<pid>-<uuid>`), so a start-up can tell a crashed process's leftovers (a partial
 * upload after kill -9) from the live work of another process on the same storage dir (a
 * CLI upload running beside the server).
 */
export function scratchName(kind: string): string {
  return `${kind}-${process.pid}-${randomUUID()}`;
}

/** The pid a scratch name carries; null for names without one (made before pids were added). */
export function scratchOwner(name: string): number | null {
  const m = /^[a-z]+-(\d+)-[0-9a-f]{8}-[0-9a-f-]{27}$/.exec(name);
  return m ? Number(m[1]) : null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Untouched this long, a scratch file is abandoned whoever made it. */
export const SCRATCH_MAX_IDLE_MS = 3_600_000;

/**
 * Removes leftovers from `dir`. At start-up: every file of a dead process, of this pid (a
 * restarted container reuses it) or without a pid; while running: a dead process's files and
 * any file untouched for an hour. DuckDB's own spill directory is left to DuckDB.
 */
export async function sweepScratch(dir: string, atStart: boolean, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const n of await readdir(dir).catch(() => [] as string[])) {
    if (n === 'duckdb') continue;
    const owner = scratchOwner(n);
    const p = join(dir, n);
    let remove = owner === null ? atStart : owner === process.pid ? atStart : !alive(owner);
    if (!remove) {
      const s = await stat(p).catch(() => null);
      remove = s !== null && now - s.mtimeMs > SCRATCH_MAX_IDLE_MS;
    }
    if (remove) {
      await rm(p, { recursive: true, force: true });
      removed.push(n);
    }
  }
  return removed;
}
