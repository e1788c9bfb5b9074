import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

const SEP = '::';

/**
 * The resumable events of one Streamable HTTP session (2025 era), as the SDK's transport and
 * the direct path (direct-call.ts) store and replay them. Stores are synchronous for the direct
 * path: the id is known at once and the write (to Redis) follows in the background, issued
 * before the event is written to the client. Event ids are `<stream id>::<suffix>`, so the
 * stream of an event is read off its id, on any replica.
 */
export interface SessionEvents extends EventStore {
  store(streamId: StreamId, message: JSONRPCMessage): EventId;
  /** An event already serialised (the JSON-RPC message's text). */
  storeText(streamId: StreamId, text: string): EventId;
  streamOf(eventId: EventId): StreamId | undefined;
  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined>;
  /** Drop events past their age. */
  prune(now?: number): void;
  /** The session ended: its events go too. */
  discard(): void;
}

/**
 * Where sessions keep their events (SPEC §13): in this process for one server (BoundedEventStore),
 * in Redis for replicas (redis-events.ts), so a stream broken on one replica resumes on another.
 */
export interface SessionEventStores {
  forSession(sessionId: string): SessionEvents;
}

/** The stream an event id names (the part before its last `::`); undefined when malformed. */
export function streamOfEventId(eventId: EventId): StreamId | undefined {
  const at = eventId.lastIndexOf(SEP);
  return at > 0 ? eventId.slice(0, at) : undefined;
}

export function makeEventId(streamId: StreamId, suffix: string): EventId {
  return `${streamId}${SEP}${suffix}`;
}

/** Limits every store keeps: events a session holds, their approximate bytes, their age. */
export const EVENT_LIMITS = { maxEvents: 100, maxBytes: 2 * 1024 * 1024, maxAgeMs: 120_000 };

export const memoryEventStores: SessionEventStores = { forSession: () => new BoundedEventStore() };

/**
 * Recent SSE events of one Streamable HTTP session, so a client whose stream broke can
 * reconnect with Last-Event-ID and receive what it missed (2025 resumability). Bounded
 * in count and approximate bytes: resumption covers a short network hiccup, not a
 * client gone for minutes, and a session must never hold many query results in memory.
 */
export class BoundedEventStore implements SessionEvents {
  /**
   * An event holds its message as the SDK gave it, or as the JSON text the direct path
   * already wrote: a query result kept as one string is one object for the GC, where
   * the same result as rows is thousands that survive into the old generation.
   */
  private readonly events: {
    id: EventId;
    streamId: StreamId;
    message: JSONRPCMessage | string;
    size: number;
    at: number;
  }[] = [];
  private bytes = 0;
  private seq = 0;

  constructor(
    private readonly maxEvents = EVENT_LIMITS.maxEvents,
    private readonly maxBytes = EVENT_LIMITS.maxBytes,
    /** Events older than this are of no use to a reconnecting client. */
    private readonly maxAgeMs = EVENT_LIMITS.maxAgeMs,
  ) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    return this.store(streamId, message);
  }

  /** storeEvent without the promise, for callers that write the event themselves. */
  store(streamId: StreamId, message: JSONRPCMessage): EventId {
    return this.push(streamId, message, approximateSize(message));
  }

  /** An event already serialised (the JSON-RPC message's text); parsed again only if replayed. */
  storeText(streamId: StreamId, text: string): EventId {
    return this.push(streamId, text, 256 + text.length);
  }

  private push(streamId: StreamId, message: JSONRPCMessage | string, size: number): EventId {
    const id = makeEventId(streamId, String(++this.seq));
    const now = Date.now();
    this.events.push({ id, streamId, message, size, at: now });
    this.bytes += size;
    while (this.events.length > this.maxEvents || (this.bytes > this.maxBytes && this.events.length > 1)) {
      this.bytes -= this.events.shift()!.size;
    }
    this.prune(now);
    return id;
  }

  /** Drop events past their age, so a quiet session does not keep its last results. */
  prune(now = Date.now()): void {
    const cutoff = now - this.maxAgeMs;
    while (this.events.length > 0 && this.events[0].at < cutoff) this.bytes -= this.events.shift()!.size;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.streamOf(eventId);
  }

  streamOf(eventId: EventId): StreamId | undefined {
    return this.events.find((e) => e.id === eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    const streamId = at >= 0 ? this.events[at].streamId : (streamOfEventId(lastEventId) ?? lastEventId);
    if (at < 0) return streamId;
    for (const e of this.events.slice(at + 1)) {
      // Priming events carry no message; only real ones are replayed.
      if (e.streamId !== streamId) continue;
      const message = typeof e.message === 'string' ? (JSON.parse(e.message) as JSONRPCMessage) : e.message;
      if (Object.keys(message).length > 0) await send(e.id, message);
    }
    return streamId;
  }

  discard(): void {
    this.events.length = 0;
    this.bytes = 0;
  }

  get size(): { events: number; bytes: number } {
    return { events: this.events.length, bytes: this.bytes };
  }
}

/**
 * Cheap size estimate without serialising: a tool result's weight is its text copy
 * (the JSON of the result, also held as structuredContent, hence twice); a resource's
 * is its text.
 */
export function approximateSize(message: JSONRPCMessage): number {
  const result = (message as { result?: { content?: unknown; contents?: unknown } }).result;
  let size = 256;
  for (const list of [result?.content, result?.contents]) {
    if (!Array.isArray(list)) continue;
    for (const c of list) if (typeof c?.text === 'string') size += c.text.length * 2;
  }
  return size;
}
