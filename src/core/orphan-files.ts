import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Whether a process with this id is running (signal 0 only checks; EPERM means it exists). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove the files in `dir` that a process left behind: names matching `pattern`, whose first
 * group is the writer's pid, when that process is gone (a kill -9 skips every cleanup) or,
 * with `own`, when it is this process (at exit). Files of other live processes sharing the
 * directory are theirs. Returns how many were removed; a missing dir is none.
 */
export function sweepOrphans(dir: string, pattern: RegExp, own = false): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const mine = pid === process.pid;
    if (mine ? !own : processAlive(pid)) continue;
    try {
      rmSync(join(dir, name), { force: true });
      removed++;
    } catch {
      // Gone already, or not ours to remove: the next sweep tries again.
    }
  }
  return removed;
}
