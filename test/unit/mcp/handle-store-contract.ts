/**
 * Behaviour every result-handle store must have (mcp/handle-store.ts), run against the memory
 * store and the Redis one. `open(limits, now)` gives a store on a fresh, empty backend and an
 * opener of more stores on that same backend (as another replica would see it); the memory
 * store's opener gives the same store back. The caller's `after` closes what it opened.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HandleLimits, HandlePage, HandleStore } from '../../../src/mcp/handle-store.js';
import type { RestOfRows } from '../../../src/sql/engine-types.js';

/** A cut answer: `shown` rows 0..shown-1 in the answer, then `total - shown` more in batches of 10. */
export function rest(
  shown: number,
  total: number,
  opts: { failAt?: number; width?: number } = {},
): RestOfRows {
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

export type OpenStores = (
  limits: Partial<HandleLimits>,
  now?: () => number,
) => Promise<{ store: HandleStore; another: () => Promise<HandleStore> }>;

const ALL = { offset: 0, count: 1_000_000 };
const page = (h: HandleStore, owner: string, id: string): Promise<HandlePage | null> =>
  h.page(owner, id, ALL);

export function handleStoreContract(name: string, open: OpenStores): void {
  test(`${name}: a handle holds the shown rows and all the rest, in order, and knows the count`, async () => {
    const { store: h } = await open({});
    const v = await h.keep('token:a', rest(5, 123));
    assert.ok(v);
    assert.match(v.id, /^r_[A-Za-z0-9_-]{16}$/);
    assert.deepEqual({ held: v.held, complete: v.complete }, { held: 123, complete: true });
    const p = await page(h, 'token:a', v.id);
    assert.ok(p);
    assert.deepEqual(p.column_names, ['n', 's']);
    assert.deepEqual(
      p.rows.map((t) => JSON.parse(t)[0]),
      Array.from({ length: 123 }, (_, i) => i),
    );
  });

  test(`${name}: a page reads the rows of its range`, async () => {
    const { store: h } = await open({});
    const v = (await h.keep('local', rest(5, 50)))!;
    const p = (await h.page('local', v.id, { offset: 20, count: 5 }))!;
    assert.equal(p.rows.length, 50);
    assert.deepEqual(
      p.rows.slice(20, 25).map((t) => JSON.parse(t)[0]),
      [20, 21, 22, 23, 24],
    );
    assert.deepEqual(p.view, v);
  });

  test(`${name}: a handle made through one store pages through another on the same backend`, async () => {
    const { store: a, another } = await open({});
    const b = await another();
    const v = (await a.keep('token:a', rest(3, 40)))!;
    const p = await page(b, 'token:a', v.id);
    assert.ok(p);
    assert.equal(p.view.held, 40);
    assert.equal(JSON.parse(p.rows[39])[0], 39);
    assert.equal(await page(b, 'token:b', v.id), null, 'another owner: no such handle');
  });

  test(`${name}: another owner, an unknown id and an expired handle all read as nothing`, async () => {
    let now = 0;
    const { store: h } = await open({ ttlMs: 1000 }, () => now);
    const v = await h.keep('token:a', rest(2, 30));
    assert.ok(v);
    assert.equal(await page(h, 'token:b', v.id), null);
    assert.equal(await page(h, 'local', v.id), null);
    assert.equal(await page(h, 'token:a', 'r_AAAAAAAAAAAAAAAA'), null);
    now = 900;
    assert.ok(await page(h, 'token:a', v.id), 'used within the time: kept, and the time starts again');
    now = 1800;
    assert.ok(await page(h, 'token:a', v.id));
    now = 2801;
    assert.equal(await page(h, 'token:a', v.id), null);
    assert.equal(await h.usedBytes(), 0);
  });

  test(`${name}: memory stays within max_bytes: a big result is held in part, older handles are evicted`, async () => {
    const maxBytes = 40_000;
    let now = 0;
    const { store: h } = await open({ maxBytes }, () => now);
    // One handle takes at most a quarter: 10,000 bytes of ~60-byte rows.
    const big = await h.keep('token:a', rest(10, 100_000));
    assert.ok(big);
    assert.equal(big.complete, false);
    assert.equal(big.moreThan, big.held);
    assert.ok(big.held > 150 && big.held < 300, `${big.held} rows held`);
    assert.ok((await h.usedBytes()) <= maxBytes / 4);
    const ids: string[] = [big.id];
    for (let i = 0; i < 10; i++) {
      now++;
      const v = await h.keep(`token:${i}`, rest(5, 120));
      assert.ok(v);
      ids.push(v.id);
      const used = await h.usedBytes();
      assert.ok(used <= maxBytes, `${used} bytes after handle ${i}`);
    }
    // The first handles made room for the later ones; the newest is still there.
    assert.equal(await page(h, 'token:a', big.id), null);
    assert.ok(await page(h, 'token:9', ids.at(-1)!));
  });

  test(`${name}: a principal at its cap loses its least recently used handle, others keep theirs`, async () => {
    let now = 0;
    const { store: h } = await open({ perPrincipal: 3 }, () => now);
    const mine = [];
    for (let i = 0; i < 3; i++) {
      now++;
      mine.push((await h.keep('token:a', rest(1, 5)))!.id);
    }
    now++;
    const theirs = (await h.keep('token:b', rest(1, 5)))!.id;
    now++;
    await page(h, 'token:a', mine[0]); // used: now the second one is the least recent
    now++;
    const fourth = (await h.keep('token:a', rest(1, 5)))!.id;
    assert.ok(await page(h, 'token:a', mine[0]));
    assert.equal(await page(h, 'token:a', mine[1]), null);
    assert.ok(await page(h, 'token:a', mine[2]));
    assert.ok(await page(h, 'token:a', fourth));
    assert.ok(await page(h, 'token:b', theirs));
  });

  test(`${name}: a statement that fails while the rest is read leaves what was read, count unknown`, async () => {
    const { store: h } = await open({});
    const v = await h.keep('local', rest(5, 100, { failAt: 45 }));
    assert.ok(v);
    assert.equal(v.complete, false);
    assert.equal(v.held, 45);
    assert.equal(v.moreThan, 44);
  });

  test(`${name}: no handle when not even the shown rows fit`, async () => {
    const { store: h } = await open({ maxBytes: 4000 });
    assert.equal(await h.keep('local', rest(50, 60, { width: 100 })), null);
    assert.equal(await h.usedBytes(), 0);
  });
}
