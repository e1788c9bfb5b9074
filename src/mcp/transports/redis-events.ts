import { randomBytes } from 'node:crypto';
import type { EventId, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { redisReady } from '../../core/redis.js';
import {
  EVENT_LIMITS,
  makeEventId,
  type SessionEventStores,
  type SessionEvents,
  streamOfEventId,
} from './event-store.js';

export const EVENT_KEY_PREFIX = 'tributary:mcp:events:';

/**
 * Append one event to a session's list and keep the list within its count and bytes (the
 * oldest go first, the newest always stays); the list and its byte count expire together
 * `maxAgeMs` after the session's last event. KEYS: list, bytes. ARGV: entry, maxEvents,
 * maxBytes, maxAgeMs.
 */
const PUSH = `
local n = redis.call('RPUSH', KEYS[1], ARGV[1])
local bytes = redis.call('INCRBY', KEYS[2], string.len(ARGV[1]))
while n > tonumber(ARGV[2]) or (bytes > tonumber(ARGV[3]) and n > 1) do
  local old = redis.call('LPOP', KEYS[1])
  bytes = redis.call('DECRBY', KEYS[2], string.len(old))
  n = n - 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return n
`;

type Scripted = Redis & { mcpEventPush(...args: (string | number)[]): Promise<number> };

/**
 * Resumable event streams of 2025-era sessions in Redis (TRIBUTARY_REDIS_URL), so a client whose
 * SSE stream broke resumes with Last-Event-ID on any replica (SPEC §13). One list a session
 * (`<prefix><session id>`), entries `<event id>\n<message JSON>`, bounded as the in-memory store
 * is (EVENT_LIMITS; age as the whole list's expiry after its newest event). Event ids end in a
 * random suffix, so two replicas serving one session never mint the same id; order is the list's.
 */
export class RedisEventStores implements SessionEventStores {
  private readonly redis: Scripted;
  private warned = false;

  constructor(
    redis: Redis,
    private readonly logger: Logger,
    readonly limits = EVENT_LIMITS,
    private readonly prefix = EVENT_KEY_PREFIX,
  ) {
    this.redis = redis as Scripted;
    if (!('mcpEventPush' in redis)) redis.defineCommand('mcpEventPush', { numberOfKeys: 2, lua: PUSH });
  }

  forSession(sessionId: string): SessionEvents {
    return new RedisSessionEvents(this, this.prefix + sessionId);
  }

  /** Issued at once (commands keep their order on the connection); a failure costs resumability only. */
  push(key: string, entry: string): Promise<void> {
    const l = this.limits;
    return this.redis.mcpEventPush(key, `${key}:bytes`, entry, l.maxEvents, l.maxBytes, l.maxAgeMs).then(
      () => {
        this.warned = false;
      },
      (e: Error) => {
        if (!this.warned) this.logger.warn({ err: e.message }, 'mcp event not stored (Redis)');
        this.warned = true;
      },
    );
  }

  async read(key: string): Promise<string[]> {
    if (this.redis.status !== 'ready') await redisReady(this.redis, 2_000);
    return this.redis.lrange(key, 0, -1);
  }

  drop(key: string): void {
    this.redis.del(key, `${key}:bytes`).catch(() => {});
  }
}

class RedisSessionEvents implements SessionEvents {
  constructor(
    private readonly stores: RedisEventStores,
    private readonly key: string,
  ) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = makeEventId(streamId, suffix());
    await this.stores.push(this.key, `${id}\n${JSON.stringify(message)}`);
    return id;
  }

  store(streamId: StreamId, message: JSONRPCMessage): EventId {
    return this.storeText(streamId, JSON.stringify(message));
  }

  storeText(streamId: StreamId, text: string): EventId {
    const id = makeEventId(streamId, suffix());
    void this.stores.push(this.key, `${id}\n${text}`);
    return id;
  }

  streamOf(eventId: EventId): StreamId | undefined {
    return streamOfEventId(eventId);
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return streamOfEventId(eventId);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const streamId = streamOfEventId(lastEventId) ?? lastEventId;
    const entries = await this.stores.read(this.key);
    const at = entries.findIndex((e) => e.startsWith(`${lastEventId}\n`));
    if (at < 0) return streamId;
    for (const entry of entries.slice(at + 1)) {
      const nl = entry.indexOf('\n');
      const id = entry.slice(0, nl);
      // Priming events carry no message; only real ones, of this stream, are replayed.
      if (streamOfEventId(id) !== streamId) continue;
      const message = JSON.parse(entry.slice(nl + 1)) as JSONRPCMessage;
      if (Object.keys(message).length > 0) await send(id, message);
    }
    return streamId;
  }

  /** Age is kept by the list's expiry in Redis. */
  prune(): void {}

  discard(): void {
    this.stores.drop(this.key);
  }
}

function suffix(): string {
  return `${Date.now().toString(36)}${randomBytes(6).toString('base64url')}`;
}
