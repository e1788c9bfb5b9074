import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type HandleLimits, ResultHandles } from '../../../src/mcp/result-handles.js';
import type { RestOfRows } from '../../../src/sql/engine-types.js';

/** A cut answer: `shown` rows 0..shown-1 in the answer, then `total - shown` more in batches of 10. */
function rest(shown: number, total: number, opts: { failAt?: number; width?: number } = {}): RestOfRows {
  const row = (i: number) => [i, 'x'.repeat(opts.width ?? 10)];
  async function* batches() {
    for (let i = shown; i < total; i += 10) {
      if (opts.failAt !== undefined && i >= opts.failAt) throw new Error('statement timed out');
      yield Array.from({ length: Math.min(10, total - i) }, (_, k) => row(i + k));
    }
  }
  return {
    column_names: ['n', 's'],
    shown: Array.from({ length: shown }, (_, i) => row(i)),
    batches: batches(),
  };
}

function store(limits: Partial<HandleLimits> = {}, now = () => 0) {
  return new ResultHandles({ maxBytes: 1 << 20, ttlMs: 600_000, perPrincipal: 16, ...limits }, now);
}

test('a handle holds the shown rows and all the rest, in order, and knows the count', async () => {
  const h = store();
  const v = await h.keep('token:a', rest(5, 123));
  assert.ok(v);
  assert.match(v.id, /^r_[A-Za-z0-9_-]{16}$/);
  assert.deepEqual({ held: v.held, complete: v.complete }, { held: 123, complete: true });
  const p = h.page('token:a', v.id);
  assert.ok(p);
  assert.deepEqual(p.column_names, ['n', 's']);
  assert.deepEqual(
    p.rows.map((t) => JSON.parse(t)[0]),
    Array.from({ length: 123 }, (_, i) => i),
  );
});

test('another owner, an unknown id and an expired handle all read as nothing', async () => {
  let now = 0;
  const h = store({ ttlMs: 1000 }, () => now);
  const v = await h.keep('token:a', rest(2, 30));
  assert.ok(v);
  assert.equal(h.page('token:b', v.id), null);
  assert.equal(h.page('local', v.id), null);
  assert.equal(h.page('token:a', 'r_AAAAAAAAAAAAAAAA'), null);
  now = 900;
  assert.ok(h.page('token:a', v.id), 'used within the time: kept, and the time starts again');
  now = 1800;
  assert.ok(h.page('token:a', v.id));
  now = 2801;
  assert.equal(h.page('token:a', v.id), null);
  assert.equal(h.size, 0);
  assert.equal(h.bytes, 0);
});

test('memory stays within max_bytes: a big result is held in part, older handles are evicted', async () => {
  const maxBytes = 40_000;
  const h = store({ maxBytes });
  // One handle takes at most a quarter: 10,000 bytes of ~60-byte rows.
  const big = await h.keep('token:a', rest(10, 100_000));
  assert.ok(big);
  assert.equal(big.complete, false);
  assert.equal(big.moreThan, big.held);
  assert.ok(big.held > 150 && big.held < 300, `${big.held} rows held`);
  assert.ok(h.bytes <= maxBytes / 4);
  const ids: string[] = [big.id];
  for (let i = 0; i < 10; i++) {
    const v = await h.keep(`token:${i}`, rest(5, 120));
    assert.ok(v);
    ids.push(v.id);
    assert.ok(h.bytes <= maxBytes, `${h.bytes} bytes after handle ${i}`);
  }
  // The first handles made room for the later ones; the newest is still there.
  assert.equal(h.page('token:a', big.id), null);
  assert.ok(h.page('token:9', ids.at(-1)!));
});

test('a principal at its cap loses its least recently used handle, others keep theirs', async () => {
  const h = store({ perPrincipal: 3 });
  const mine = [];
  for (let i = 0; i < 3; i++) mine.push((await h.keep('token:a', rest(1, 5)))!.id);
  const theirs = (await h.keep('token:b', rest(1, 5)))!.id;
  h.page('token:a', mine[0]); // used: now the second one is the least recent
  const fourth = (await h.keep('token:a', rest(1, 5)))!.id;
  assert.ok(h.page('token:a', mine[0]));
  assert.equal(h.page('token:a', mine[1]), null);
  assert.ok(h.page('token:a', mine[2]));
  assert.ok(h.page('token:a', fourth));
  assert.ok(h.page('token:b', theirs));
});

test('a statement that fails while the rest is read leaves what was read, count unknown', async () => {
  const h = store();
  const v = await h.keep('local', rest(5, 100, { failAt: 45 }));
  assert.ok(v);
  assert.equal(v.complete, false);
  assert.equal(v.held, 45);
  assert.equal(v.moreThan, 44);
});

test('no handle when not even the shown rows fit', async () => {
  const h = store({ maxBytes: 4000 });
  assert.equal(await h.keep('local', rest(50, 60, { width: 100 })), null);
  assert.equal(h.size, 0);
  assert.equal(h.bytes, 0);
});
