import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdleQueue } from '../../../../src/sources/files/idle-queue.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A queue whose jobs record when they run and wait until released (or aborted). */
function harness(idleMs: number) {
  const log: string[] = [];
  const release = new Map<string, () => void>();
  let running = 0;
  let maxRunning = 0;
  const queue = new IdleQueue(async (key, signal) => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    log.push(`start ${key}`);
    await new Promise<void>((resolve) => {
      release.set(key, resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    log.push(`${signal.aborted ? 'aborted' : 'done'} ${key}`);
    running--;
  }, idleMs);
  return { queue, log, release, maxRunning: () => maxRunning };
}

test('background jobs wait until no query has run for the idle time, then run one at a time', async () => {
  const h = harness(40);
  const end = h.queue.busy();
  h.queue.schedule('a');
  h.queue.schedule('b');
  h.queue.schedule('a');
  await sleep(80);
  assert.deepEqual(h.log, [], 'nothing starts while a query runs');
  end();
  await sleep(20);
  assert.deepEqual(h.log, [], 'nor right after it');
  await sleep(60);
  assert.deepEqual(h.log, ['start a']);
  h.release.get('a')?.();
  await sleep(100);
  assert.deepEqual(h.log, ['start a', 'done a', 'start b']);
  h.release.get('b')?.();
  await sleep(10);
  assert.equal(h.maxRunning(), 1);
  await h.queue.close();
});

test('runNow starts a job at once, busy or not; cancel aborts it', async () => {
  const h = harness(10_000);
  const end = h.queue.busy();
  h.queue.schedule('x');
  const ran = h.queue.runNow('x');
  await sleep(5);
  assert.deepEqual(h.log, ['start x']);
  h.queue.cancel('x');
  await ran;
  assert.deepEqual(h.log, ['start x', 'aborted x']);
  end();
  await h.queue.close();
});

test('a key queued again while its aborted run is still ending runs once that run ends', async () => {
  const h = harness(20);
  let finishOld: () => void = () => {};
  // The first run ignores its abort for a while, as a DuckDB statement may.
  const slow = new IdleQueue(async (key, signal) => {
    h.log.push(`start ${key}`);
    if (h.log.length === 1) await new Promise<void>((r) => (finishOld = r));
    h.log.push(`${signal.aborted ? 'aborted' : 'done'} ${key}`);
  }, 20);
  const first = slow.runNow('k');
  slow.cancel('k');
  slow.schedule('k');
  await sleep(80);
  assert.deepEqual(h.log, ['start k'], 'the new run waits for the aborted one');
  finishOld();
  await first;
  await sleep(80);
  assert.deepEqual(h.log, ['start k', 'aborted k', 'start k', 'done k']);
  await slow.close();
  await h.queue.close();
});

test('a failing job does not stop the queue', async () => {
  const seen: string[] = [];
  const q = new IdleQueue(async (key) => {
    seen.push(key);
    if (key === 'bad') throw new Error('boom');
  }, 5);
  q.schedule('bad');
  q.schedule('good');
  await sleep(100);
  assert.deepEqual(seen, ['bad', 'good']);
  await q.close();
});
