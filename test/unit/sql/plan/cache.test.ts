import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TtlLru } from '../../../../src/sql/plan/cache.js';

test('entries are bounded by count and by the total length of their keys', () => {
  const c = new TtlLru<number>(100, 60_000, 1_000);
  for (let i = 0; i < 50; i++) c.set(`${i}`.padEnd(100, 'x'), i);
  // 50 keys of 100 characters: only the 10 most recent fit in 1,000 characters.
  assert.deepEqual(c.size, { entries: 10, keyChars: 1_000 });
  assert.equal(c.get('49'.padEnd(100, 'x')), 49);
  assert.equal(c.get('0'.padEnd(100, 'x')), undefined);
});

test('a statement longer than 16 KiB is never cached', () => {
  const c = new TtlLru<number>(100, 60_000);
  c.set('x'.repeat(16 * 1024 + 1), 1);
  assert.deepEqual(c.size, { entries: 0, keyChars: 0 });
  c.set('small', 2);
  c.set('small', 3);
  assert.deepEqual(c.size, { entries: 1, keyChars: 5 });
});

test('an entry read recently is not the one evicted, however often it is read', () => {
  const c = new TtlLru<number>(4, 60_000);
  for (const k of ['a', 'b', 'c', 'd']) c.set(k, 1);
  // `a` is the oldest: read, it moves to the recent end; then two more entries evict b and c.
  assert.equal(c.get('a'), 1);
  for (let i = 0; i < 1000; i++) c.get('a');
  c.set('e', 1);
  c.set('f', 1);
  assert.equal(c.get('b'), undefined);
  assert.equal(c.get('c'), undefined);
  assert.equal(c.get('a'), 1);
  // Read over and over while it is recent, `f` survives as many new entries as the others do.
  for (let i = 0; i < 100; i++) c.get('f');
  c.set('g', 1);
  c.set('h', 1);
  assert.equal(c.get('f'), 1);
  assert.deepEqual(c.size.entries, 4);
});
