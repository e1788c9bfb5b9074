/**
 * Background jobs (CSV → Parquet conversions), one at a time, started only after the
 * files source has been idle a while: no query running and none started for `idleMs`.
 * So a conversion never competes with the first queries of a fresh upload. A job can be
 * pulled forward (`runNow`) when something needs its result, or aborted (`cancel`).
 */
export class IdleQueue {
  private readonly queue: string[] = [];
  private readonly running = new Map<string, { ctl: AbortController; done: Promise<void> }>();
  private background: string | null = null;
  private active = 0;
  private lastActivity = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly run: (key: string, signal: AbortSignal) => Promise<void>,
    private readonly idleMs: number,
    /** Called whenever the source becomes idle (no query running). */
    private readonly onIdle: () => void = () => {},
  ) {}

  /** Queue `key` (once) for a background run. */
  schedule(key: string): void {
    if (this.closed) return;
    if (!this.queue.includes(key)) this.queue.push(key);
    this.kick();
  }

  /** Mark a query as running; the returned function (idempotent) marks its end. */
  busy(): () => void {
    this.active++;
    this.lastActivity = performance.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.active--;
      this.lastActivity = performance.now();
      if (this.active === 0) {
        this.onIdle();
        this.kick();
      }
    };
  }

  get idle(): boolean {
    return this.active === 0;
  }

  /** Drop `key` from the queue and abort its running job; the job notices and stops. */
  cancel(key: string): void {
    const i = this.queue.indexOf(key);
    if (i >= 0) this.queue.splice(i, 1);
    this.running.get(key)?.ctl.abort();
  }

  /** Run `key`'s job now (or wait for the one already running) and wait for it to end. */
  async runNow(key: string): Promise<void> {
    const current = this.running.get(key);
    if (current && !current.ctl.signal.aborted) return current.done;
    if (current) await current.done;
    const i = this.queue.indexOf(key);
    if (i >= 0) this.queue.splice(i, 1);
    if (this.closed) return;
    return this.start(key);
  }

  /** Abort every job and wait for them; nothing starts afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.queue.length = 0;
    const jobs = [...this.running.values()];
    for (const j of jobs) j.ctl.abort();
    await Promise.all(jobs.map((j) => j.done));
  }

  private start(key: string, background = false): Promise<void> {
    const ctl = new AbortController();
    // A job reports its own failures; the queue only needs to know it ended.
    const done = this.run(key, ctl.signal)
      .catch(() => {})
      .finally(() => {
        if (this.running.get(key)?.ctl === ctl) this.running.delete(key);
        if (background) {
          this.background = null;
          this.kick();
        }
      });
    this.running.set(key, { ctl, done });
    return done;
  }

  private kick(): void {
    if (this.closed || this.timer || this.background || !this.queue.length || this.active > 0) return;
    const wait = Math.max(0, this.lastActivity + this.idleMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.closed || this.background || this.active > 0) return;
      if (performance.now() - this.lastActivity < this.idleMs) return this.kick();
      const key = this.queue.shift();
      if (key === undefined) return;
      const current = this.running.get(key);
      if (current?.ctl.signal.aborted) {
        // An aborted run for an older file of this key is still ending: wait for it.
        this.queue.unshift(key);
        void current.done.finally(() => this.kick());
        return;
      }
      // Pulled forward meanwhile (runNow): its result is coming anyway.
      if (current) return this.kick();
      this.background = key;
      void this.start(key, true);
    }, wait);
    this.timer.unref();
  }
}
