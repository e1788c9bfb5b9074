/**
 * The session event stores (resumability, SPEC §13) against one contract: in memory and in the
 * loopback Redis. Same cases for both: replay after an id, per stream, priming skipped, bounds,
 * and a second store object on the same Redis key (another replica) replays what the first stored.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { Redis } from 'ioredis';
import pino from 'pino';
import { BoundedEventStore, type SessionEvents } from '../../../src/mcp/transports/event-store.js';
import { RedisEventStores } from '../../../src/mcp/transports/redis-events.js';
import { ensureService, REDIS } from '../../helpers/services.js';

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { n },
});
const prefix = `tributary:test:i30-events:${randomBytes(4).toString('hex')}:`;
let redis: Redis;
let other: Redis;

before(async () => {
  await ensureService('redis');
  redis = new Redis(REDIS);
  other = new Redis(REDIS);
});

after(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  other.disconnect();
});

async function replay(store: SessionEvents, afterId: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await store.replayEventsAfter(afterId, {
    send: async (id, m) => {
      sent.push([id, m]);
    },
  });
  return { stream, sent: sent.map(([id, m]) => [id, (m as any).params.n] as const) };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

type Make = (limits?: { maxEvents?: number; maxBytes?: number }) => SessionEvents[];

const makers: [string, Make][] = [
  ['memory', (l = {}) => [new BoundedEventStore(l.maxEvents, l.maxBytes)]],
  [
    'redis',
    (l = {}) => {
      const limits = { maxEvents: 100, maxBytes: 2 * 1024 * 1024, maxAgeMs: 60_000, ...l };
      const session = randomBytes(6).toString('hex');
      const log = pino({ level: 'silent' });
      // Two replicas: two connections, one session's key.
      return [
        new RedisEventStores(redis, log, limits, prefix).forSession(session),
        new RedisEventStores(other, log, limits, prefix).forSession(session),
      ];
    },
  ],
];

for (const [name, make] of makers) {
  describe(`session events (${name})`, () => {
    test('replays the later events of the same stream, skipping priming events', async () => {
      const [s, t = s] = make();
      const first = s.store('a', {} as JSONRPCMessage);
      await s.storeEvent('a', note(1));
      s.storeText('b', JSON.stringify(note(2)));
      const third = s.storeText('a', JSON.stringify(note(3)));
      await settle();
      assert.equal(s.streamOf(first), 'a');
      assert.equal(await t.getStreamIdForEventId(first), 'a');
      const { stream, sent } = await replay(t, first);
      assert.equal(stream, 'a');
      assert.deepEqual(sent, [
        [sent[0][0], 1],
        [third, 3],
      ]);
    });

    test('keeps at most maxEvents and about maxBytes, the newest always', async () => {
      const [s] = make({ maxEvents: 3 });
      const ids = [1, 2, 3, 4].map((n) => s.storeText('a', JSON.stringify(note(n))));
      await settle();
      assert.deepEqual((await replay(s, ids[0])).sent, [], 'the oldest is gone');
      assert.deepEqual(
        (await replay(s, ids[1])).sent.map(([, n]) => n),
        [3, 4],
      );
      const [b] = make({ maxBytes: 1_000 });
      const big = JSON.stringify({ ...note(9), params: { n: 9, pad: 'x'.repeat(900) } });
      const firstBig = b.storeText('a', big);
      const last = b.storeText('a', big);
      await settle();
      assert.deepEqual((await replay(b, firstBig)).sent, [], 'the first is dropped for the second');
      assert.equal((await replay(b, last)).stream, 'a');
    });

    test('an ended session discards its events', async () => {
      const [s, t = s] = make();
      const first = s.storeText('a', JSON.stringify(note(1)));
      s.storeText('a', JSON.stringify(note(2)));
      await settle();
      s.discard();
      await settle();
      assert.deepEqual((await replay(t, first)).sent, []);
    });
  });
}
