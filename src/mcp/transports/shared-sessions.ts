import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { closeRedis, redisReady } from '../../core/redis.js';

/** What another replica needs to pick up a 2025-era session: who owns it and what was negotiated. */
export interface SessionRecord {
  /** sha256 of the owner's principal key (a token never reaches Redis); null without auth. */
  owner: string | null;
  protocolVersion: string | null;
  clientInfo: unknown;
  capabilities: unknown;
}

/**
 * Streamable HTTP sessions (2025 era) known to every replica (SPEC §13): a request whose
 * `Mcp-Session-Id` this replica has never seen is served if the session is here, by re-creating
 * it with its negotiated state (streamable.ts). Records expire after the session idle time and are
 * refreshed as the session is used.
 */
export interface SharedSessions {
  save(id: string, record: SessionRecord): Promise<void>;
  load(id: string): Promise<SessionRecord | null>;
  /** The session was used: keep its record for another idle period (at most every quarter of it). */
  touch(id: string): void;
  remove(id: string): Promise<void>;
  close(): Promise<void>;
}

export function ownerDigest(owner: string | null): string | null {
  return owner === null ? null : createHash('sha256').update(owner).digest('base64url');
}

const PREFIX = 'tributary:mcp:session:';

export class RedisSessions implements SharedSessions {
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly idleMs: number,
  ) {}

  private async ready(): Promise<void> {
    if (this.redis.status !== 'ready') await redisReady(this.redis, 2_000);
  }

  async save(id: string, record: SessionRecord): Promise<void> {
    await this.ready();
    await this.redis.set(PREFIX + id, JSON.stringify(record), 'PX', this.idleMs);
    this.touched.set(id, Date.now());
  }

  async load(id: string): Promise<SessionRecord | null> {
    await this.ready();
    const text = await this.redis.get(PREFIX + id);
    return text ? (JSON.parse(text) as SessionRecord) : null;
  }

  touch(id: string): void {
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < this.idleMs / 4) return;
    this.touched.set(id, now);
    // Fire and forget: a missed refresh costs at most an early expiry, never the request.
    this.redis.pexpire(PREFIX + id, this.idleMs).catch(() => {});
    if (this.touched.size > 10_000)
      for (const [k, t] of this.touched) if (now - t > this.idleMs) this.touched.delete(k);
  }

  async remove(id: string): Promise<void> {
    this.touched.delete(id);
    await this.redis.del(PREFIX + id).catch(() => {});
  }

  async close(): Promise<void> {
    await closeRedis(this.redis);
  }
}
