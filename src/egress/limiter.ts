/**
 * A counting semaphore per key (one per source): bounds how many calls a source has in flight
 * so one busy integration cannot take every socket. Waiters give up when their signal aborts.
 */
export class KeyedLimiter {
  private readonly slots = new Map<string, { active: number; waiters: Array<() => void> }>();

  constructor(private readonly max: number) {}

  async acquire(key: string, signal?: AbortSignal): Promise<() => void> {
    let s = this.slots.get(key);
    if (!s) {
      s = { active: 0, waiters: [] };
      this.slots.set(key, s);
    }
    const slot = s;
    if (slot.active >= this.max) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = slot.waiters.indexOf(wake);
          if (i !== -1) slot.waiters.splice(i, 1);
          reject(signal!.reason);
        };
        if (signal?.aborted) return reject(signal.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        slot.waiters.push(wake);
      });
    } else {
      slot.active++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = slot.waiters.shift();
      // The slot passes straight to the next waiter; `active` stays the same.
      if (next) return next();
      slot.active--;
      if (slot.active === 0) this.slots.delete(key);
    };
  }

  inFlight(key: string): number {
    return this.slots.get(key)?.active ?? 0;
  }
}
