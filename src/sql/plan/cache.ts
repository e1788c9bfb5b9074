/** The largest key (statement text) cached: a larger statement is parsed and planned each time. */
export const MAX_ENTRY_KEY_CHARS = 16 * 1024;
/** All keys of one cache together: a bound on memory, not just on entries. */
const MAX_KEY_CHARS = 256 * 1024;

/**
 * A small LRU with expiry, for parsed statements and pushdown plans: an agent asks the
 * same questions again and again, and parsing + planning is most of the per-query cost.
 * Bounded by entries and by the total length of the keys, which are statement texts: a
 * parsed statement or a plan grows with its text, so hostile huge statements (10,000
 * of them took the heap from 41 to 255 MB) can no longer fill memory through the caches.
 */
export class TtlLru<V> {
  private readonly map = new Map<string, { at: number; value: V; seq: number }>();
  private keyChars = 0;
  /** Entries put or moved to the recent end so far: an entry's `seq` says how recent it is. */
  private seq = 0;
  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
    private readonly maxKeyChars = MAX_KEY_CHARS,
  ) {}

  get(key: string): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (Date.now() - hit.at > this.ttlMs) {
      this.delete(key);
      return undefined;
    }
    // Moved to the recent end only when it is in the older half: a hot entry (a point
    // lookup's shape, hit thousands of times a second) then stays put instead of churning
    // the Map's table, and eviction from the old end still never reaches a recent one.
    if (this.seq - hit.seq > this.map.size / 2) {
      this.map.delete(key);
      hit.seq = ++this.seq;
      this.map.set(key, hit);
    }
    return hit.value;
  }

  set(key: string, value: V): void {
    this.delete(key);
    if (key.length > MAX_ENTRY_KEY_CHARS) return;
    this.map.set(key, { at: Date.now(), value, seq: ++this.seq });
    this.keyChars += key.length;
    while (this.map.size > this.max || this.keyChars > this.maxKeyChars)
      this.delete(this.map.keys().next().value as string);
  }

  /** Whether `set` would keep an entry under `key` (its length is within the limit). */
  keeps(key: string): boolean {
    return key.length <= MAX_ENTRY_KEY_CHARS;
  }

  clear(): void {
    this.map.clear();
    this.keyChars = 0;
  }

  /** Entries and key characters held (tests, diagnostics). */
  get size(): { entries: number; keyChars: number } {
    return { entries: this.map.size, keyChars: this.keyChars };
  }

  private delete(key: string): void {
    if (this.map.delete(key)) this.keyChars -= key.length;
  }
}
