/**
 * The policy file, loaded and kept current (policy.file): read at start-up (a bad file
 * fails start-up, naming the rule), then re-read when it changes, seen by fs.watch and by a
 * cheap mtime check at most every CHECK_MS when a statement asks (fs.watch misses an editor's
 * rename-over and files on some mounts). A bad new file keeps the previous policy and logs
 * why; the next good one applies to the next statement.
 */
import { type FSWatcher, readFileSync, statSync, watch } from 'node:fs';
import type { Logger } from 'pino';
import { PolicyError, parsePolicy } from './load.js';
import type { Policy } from './model.js';

/** How stale the policy may be when fs.watch says nothing: the mtime is looked at no more often. */
const CHECK_MS = 1000;

export class PolicyHolder {
  private policy: Policy;
  private stamp: string;
  private checkedAt = 0;
  private watcher: FSWatcher | null = null;
  /** Bumped on each policy applied (plans shaped by a policy are cached per version). */
  version = 0;

  /** Throws PolicyError (naming the file and the rule) when the file is missing or bad. */
  constructor(
    readonly path: string,
    private readonly logger: Logger,
    private readonly checkMs = CHECK_MS,
  ) {
    let text: string;
    let stamp: string;
    try {
      ({ text, stamp } = read(path));
    } catch (e) {
      throw new PolicyError(`policy.file ${path}: cannot be read: ${(e as Error).message}`);
    }
    try {
      this.policy = parsePolicy(text);
    } catch (e) {
      throw new PolicyError(`policy.file ${path}: ${(e as Error).message}`);
    }
    this.stamp = stamp;
    this.checkedAt = Date.now();
    try {
      this.watcher = watch(path, { persistent: false }, () => this.reload());
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = null;
      });
    } catch {
      // The mtime check still notices changes.
    }
  }

  /** The policy now (re-read first when the file's mtime or size moved since the last look). */
  current(): Policy {
    const now = Date.now();
    if (now - this.checkedAt >= this.checkMs) {
      this.checkedAt = now;
      this.reloadIfChanged();
    }
    return this.policy;
  }

  /** Re-read now if the file changed (tests, and fs.watch events). */
  reloadIfChanged(): void {
    let stamp: string;
    try {
      stamp = stampOf(this.path);
    } catch (e) {
      this.logger.error(
        { path: this.path, err: (e as Error).message },
        'policy file unreadable; keeping the previous policy',
      );
      return;
    }
    if (stamp !== this.stamp) this.reload();
  }

  private reload(): void {
    let read0: { text: string; stamp: string };
    try {
      read0 = read(this.path);
    } catch (e) {
      this.logger.error(
        { path: this.path, err: (e as Error).message },
        'policy file unreadable; keeping the previous policy',
      );
      return;
    }
    if (read0.stamp === this.stamp) return;
    this.stamp = read0.stamp;
    try {
      this.policy = parsePolicy(read0.text);
      this.version++;
      this.logger.info({ path: this.path, version: this.version }, 'policy file applied');
    } catch (e) {
      this.logger.error(
        { path: this.path, err: (e as Error).message },
        'policy file refused; keeping the previous policy',
      );
    }
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
  }
}

function stampOf(path: string): string {
  const st = statSync(path, { bigint: true });
  return `${st.mtimeNs}:${st.size}:${st.ino}`;
}

function read(path: string): { text: string; stamp: string } {
  // The stamp first: a write landing between the two reads is seen again on the next look.
  const stamp = stampOf(path);
  return { text: readFileSync(path, 'utf8'), stamp };
}
