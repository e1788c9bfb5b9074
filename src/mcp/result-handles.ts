import { randomBytes } from 'node:crypto';
import type { RestOfRows } from '../sql/engine-types.js';
import {
  HANDLE_SHARE,
  type HandleLimits,
  type HandlePage,
  type HandleStore,
  ROW_OVERHEAD,
} from './handle-store.js';
import type { HandleView } from './truncation.js';

export type { HandleLimits, HandlePage } from './handle-store.js';

interface Kept extends HandleView {
  owner: string;
  column_names: string[];
  /** JSON text of each row, in order. */
  rows: string[];
  bytes: number;
  expiresAt: number;
  dropped: boolean;
}

/**
 * The rows of truncated MCP answers, kept so an agent can page through them
 * (`SELECT * FROM result('r_...') LIMIT n OFFSET m`). Bounded three ways: total bytes
 * (least recently used handles are evicted first), time since last use, and handles per
 * principal. A handle is bound to the principal that made it (auth-info.ts `principalKey`:
 * the token for personal access tokens, the subject for OAuth, `local` without auth); to
 * anyone else it does not exist. Held in this process's memory (one server; replicas use
 * redis-handles.ts): expired handles go at the next use of the store or the minute's sweep.
 */
export class ResultHandles implements HandleStore {
  /** In order of last use, least recent first (a used handle is moved to the end). */
  private readonly byId = new Map<string, Kept>();
  private total = 0;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly limits: HandleLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Bytes held now (never above limits.maxBytes). */
  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.byId.size;
  }

  /**
   * Keep a cut answer's rows: those shown and as many after them as the budget allows.
   * Null when not even the shown rows fit (no handle then).
   */
  async keep(owner: string, rest: RestOfRows): Promise<HandleView | null> {
    this.sweep();
    this.makeRoomForOwner(owner);
    const k: Kept = {
      id: `r_${randomBytes(12).toString('base64url')}`,
      owner,
      column_names: rest.column_names,
      rows: [],
      bytes: 0,
      held: 0,
      complete: false,
      moreThan: 0,
      expiresAt: this.now() + this.limits.ttlMs,
      dropped: false,
    };
    this.byId.set(k.id, k);
    this.startSweeper();
    for (const row of rest.shown) {
      if (!this.add(k, row)) {
        this.drop(k);
        return null;
      }
    }
    try {
      read: for await (const batch of rest.batches) {
        for (const row of batch) {
          if (!this.add(k, row)) {
            // A row beyond those held was seen: the result has more than them.
            k.moreThan = k.rows.length;
            break read;
          }
        }
      }
      if (k.moreThan === 0) k.complete = true;
    } catch {
      // The statement failed or ran out of time while the rest was read: what is held stays.
      k.moreThan = Math.max(0, k.rows.length - 1);
    }
    if (k.dropped) return null;
    k.held = k.rows.length;
    return k;
  }

  async page(owner: string, id: string): Promise<HandlePage | null> {
    return this.pageNow(owner, id);
  }

  async usedBytes(): Promise<number> {
    return this.total;
  }

  /** The handle's rows, for its owner; null when unknown, expired or someone else's. */
  pageNow(owner: string, id: string): HandlePage | null {
    this.sweep();
    const k = this.byId.get(id);
    if (!k || k.owner !== owner) return null;
    this.byId.delete(id);
    this.byId.set(id, k);
    k.expiresAt = this.now() + this.limits.ttlMs;
    return { view: k, column_names: k.column_names, rows: k.rows };
  }

  /** Drop every handle (server shutdown). */
  async close(): Promise<void> {
    for (const k of [...this.byId.values()]) this.drop(k);
    this.stopSweeper();
  }

  private add(k: Kept, row: unknown[]): boolean {
    if (k.dropped) return false;
    const text = JSON.stringify(row);
    const b = Buffer.byteLength(text) + ROW_OVERHEAD;
    if (k.bytes + b > Math.floor(this.limits.maxBytes / HANDLE_SHARE)) return false;
    while (this.total + b > this.limits.maxBytes) {
      const victim = this.leastRecentOther(k);
      if (!victim) return false;
      this.drop(victim);
    }
    k.rows.push(text);
    k.bytes += b;
    this.total += b;
    return true;
  }

  private leastRecentOther(k: Kept): Kept | undefined {
    for (const other of this.byId.values()) if (other !== k) return other;
    return undefined;
  }

  /** A principal at its cap loses its least recently used handle. */
  private makeRoomForOwner(owner: string): void {
    const owned = [...this.byId.values()].filter((k) => k.owner === owner);
    for (let i = 0; owned.length - i >= this.limits.perPrincipal; i++) this.drop(owned[i]);
  }

  private drop(k: Kept): void {
    if (k.dropped) return;
    k.dropped = true;
    this.byId.delete(k.id);
    this.total -= k.bytes;
    k.rows = [];
    k.bytes = 0;
    if (this.byId.size === 0) this.stopSweeper();
  }

  /** Handles are in order of last use, so the expired ones are at the front. */
  private sweep(): void {
    const now = this.now();
    for (const k of this.byId.values()) {
      if (k.expiresAt > now) break;
      this.drop(k);
    }
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  private stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }
}
