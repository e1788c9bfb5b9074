import type { Logger } from 'pino';
import type { FileRecordStore } from './options.js';

/**
 * How the files source follows changes other processes (replicas) make to the catalog's
 * files: the store's change notices start a re-read at once, and before each statement the
 * store's files version is compared with the one last read (a notice may still be on its
 * way), so a statement reads what another replica committed before it was asked. With a
 * store that has neither (the embedded catalog) this does nothing.
 */
export class CatalogFollower {
  /** The re-read a change notice started, while it runs: statements wait for it. */
  private following: Promise<void> | null = null;
  /** The files version the tables were last read at. */
  private seen: string | null = null;
  private lastWarning = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly store: FileRecordStore,
    private readonly logger: Logger,
    /** Re-read the catalog's records (it reads version() first and calls seenAt()). */
    private readonly reread: () => Promise<void>,
    private readonly closed: () => boolean,
  ) {}

  /** Listen for the store's change notices. */
  start(): void {
    this.store.onFilesChanged?.(() => {
      if (this.closed()) return;
      // Plans and columns cached above are stale from now; those made meanwhile ask
      // listColumns, which waits for the re-read.
      this.emit();
      const following = this.reread().then(
        () => this.emit(),
        (e) =>
          this.logger.warn({ err: (e as Error).message }, 'files: could not follow a change of the catalog'),
      );
      this.following = following;
      void following.finally(() => {
        if (this.following === following) this.following = null;
      });
    });
  }

  /** `listener` runs when tables changed because another process changed them. */
  onChanged(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Tell the listeners that tables changed here (an upload, replace or drop on this process). */
  announce(): void {
    this.emit();
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }

  /** The store's files version now (null: the store has none). */
  async version(): Promise<string | null> {
    return (await this.store.filesVersion?.()) ?? null;
  }

  /** The records just read were read at `version`. */
  seenAt(version: string | null): void {
    this.seen = version;
  }

  /** Before a statement: catch up with what other processes committed up to now. */
  async beforeStatement(): Promise<void> {
    if (this.following) await this.following;
    if (!this.store.filesVersion) return;
    let version: string;
    try {
      version = await this.store.filesVersion();
    } catch (e) {
      // The catalog unreachable: the tables as last read still answer.
      if (Date.now() - this.lastWarning > 60_000) {
        this.lastWarning = Date.now();
        this.logger.warn(
          { err: (e as Error).message },
          'files: cannot reach the catalog; answering from the tables as last read',
        );
      }
      return;
    }
    if (version === this.seen) return;
    await this.reread();
    this.emit();
  }
}
