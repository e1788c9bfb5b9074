import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { BoundedEventStore } from '../../../src/mcp/transports/event-store.js';

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { n },
});

async function replay(store: BoundedEventStore, after: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (id, m) => {
      sent.push([id, m]);
    },
  });
  return { stream, sent };
}

describe('BoundedEventStore', () => {
  test('replays the later events of the same stream only, skipping priming events', async () => {
    const s = new BoundedEventStore();
    const first = await s.storeEvent('a', {} as JSONRPCMessage);
    await s.storeEvent('a', note(1));
    await s.storeEvent('b', note(2));
    const third = await s.storeEvent('a', note(3));
    assert.equal(await s.getStreamIdForEventId(first), 'a');
    const { stream, sent } = await replay(s, first);
    assert.equal(stream, 'a');
    assert.deepEqual(
      sent.map(([, m]) => (m as any).params.n),
      [1, 3],
    );
    assert.equal(sent.at(-1)![0], third);
  });

  test('keeps at most maxEvents, dropping the oldest', async () => {
    const s = new BoundedEventStore(3);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await s.storeEvent('a', note(i)));
    assert.equal(s.size.events, 3);
    assert.equal(await s.getStreamIdForEventId(ids[0]), undefined);
    assert.equal(await s.getStreamIdForEventId(ids[2]), 'a');
  });

  test('keeps roughly maxBytes of tool results', async () => {
    const s = new BoundedEventStore(1000, 10_000);
    const big = (i: number): JSONRPCMessage => ({
      jsonrpc: '2.0',
      id: i,
      result: { content: [{ type: 'text', text: 'x'.repeat(2_000) }] },
    });
    for (let i = 0; i < 10; i++) await s.storeEvent('a', big(i));
    assert.ok(s.size.bytes <= 10_000, JSON.stringify(s.size));
    assert.ok(s.size.events >= 1 && s.size.events < 10);
  });

  test('an evicted event id replays nothing', async () => {
    const s = new BoundedEventStore(1);
    const old = await s.storeEvent('a', note(1));
    await s.storeEvent('a', note(2));
    const { sent } = await replay(s, old);
    assert.deepEqual(sent, []);
  });
});

describe('BoundedEventStore age limit', () => {
  test('prune drops events older than maxAgeMs', async () => {
    const s = new BoundedEventStore(100, 1_000_000, 1_000);
    await s.storeEvent('a', note(1));
    await s.storeEvent('a', note(2));
    s.prune(Date.now() + 500);
    assert.equal(s.size.events, 2);
    s.prune(Date.now() + 5_000);
    assert.deepEqual(s.size, { events: 0, bytes: 0 });
  });
});
