import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { SqlError } from '../../../src/core/errors.js';
import { PoolGate } from '../../../src/sources/pool-gate.js';

const logger = pino({ level: 'silent' });

describe('PoolGate', () => {
  test('grants permits up to the pool size, then queues in order', async () => {
    const gate = new PoolGate('pg', 2, logger, 1_000);
    const a = await gate.acquire();
    const b = await gate.acquire();
    const order: string[] = [];
    const c = gate.acquire().then((r) => (order.push('c'), r));
    const d = gate.acquire().then((r) => (order.push('d'), r));
    assert.equal(gate.waiting, 2);
    a();
    a(); // idempotent: one release frees one permit
    const rc = await c;
    assert.deepEqual(order, ['c']);
    b();
    await d;
    assert.deepEqual(order, ['c', 'd']);
    rc();
  });

  test('a wait past the limit is 1040 naming the source and what is in use', async () => {
    const gate = new PoolGate('warehouse', 1, logger, 30);
    await gate.acquire();
    await assert.rejects(gate.acquire(), (e: unknown) => {
      assert.ok(e instanceof SqlError);
      assert.equal(e.code, 1040);
      assert.match(e.message, /source 'warehouse' is busy \(1 connections in use/);
      return true;
    });
    assert.equal(gate.waiting, 0);
  });

  test('a full queue refuses at once; an abort while waiting is 1317 and leaves the queue', async () => {
    const gate = new PoolGate('pg', 1, logger, 10_000, 1);
    const release = await gate.acquire();
    const ac = new AbortController();
    const waiting = gate.acquire(ac.signal);
    await assert.rejects(gate.acquire(), (e: unknown) => e instanceof SqlError && e.code === 1040);
    ac.abort();
    await assert.rejects(waiting, (e: unknown) => e instanceof SqlError && e.code === 1317);
    assert.equal(gate.waiting, 0);
    release();
    const again = await gate.acquire();
    again();
  });
});
