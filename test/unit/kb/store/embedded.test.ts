import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileConditions } from '../../../../src/kb/filters.js';
import { EmbeddedStore, type StoredDoc } from '../../../../src/kb/store/embedded.js';
import { filterMask, vectorTop } from '../../../../src/kb/store/embedded-search.js';

const DIM = 4;
function doc(id: string, team: string | number | null, contents: string[], seed: number): StoredDoc {
  return {
    id,
    contentHash: `c${id}${contents.join()}`,
    rowHash: `r${id}${team}${contents.join()}`,
    metadata: { team },
    chunks: contents.map((content, i) => {
      const v = new Float32Array(DIM).map((_, j) => Math.sin(seed + i * 7 + j));
      return { chunkId: `${id}:${i}`, content, vector: v };
    }),
  };
}

const teamsOf = (s: EmbeddedStore, mask: Uint8Array) => {
  const out: string[] = [];
  for (let slot = 0; slot < mask.length; slot++) if (mask[slot]) out.push(s.chunkIdOf(slot));
  return out.sort();
};

test('filters are bitmaps kept right through growth, updates, deletes, a reopen and a compaction', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kb-store-'));
  try {
    let s = await EmbeddedStore.open(dir, 'k', DIM);
    const docs: StoredDoc[] = [];
    for (let i = 0; i < 1500; i++)
      docs.push(doc(`d${i}`, i % 3 === 0 ? 'red' : i % 3 === 1 ? 'blue' : null, [`text ${i}`], i));
    await s.put(docs.slice(0, 10));
    // The column is dictionary-encoded on first use, then kept up to date as slots grow.
    const eq = (v: string) => [{ column: 'team', op: '=' as const, value: v }];
    assert.equal(
      teamsOf(s, filterMask(s, compileConditions('k', eq('RED'), { metadata: ['team'] }))).length,
      4,
    );
    await s.put(docs.slice(10));
    assert.equal(
      teamsOf(s, filterMask(s, compileConditions('k', eq('red'), { metadata: ['team'] }))).length,
      500,
    );
    // An update moves a document to new slots with its new metadata; a delete clears it.
    await s.put([doc('d0', 'blue', ['new text a', 'new text b'], 99)]);
    await s.delete(['d3']);
    const red = teamsOf(s, filterMask(s, compileConditions('k', eq('red'), { metadata: ['team'] })));
    assert.equal(red.length, 498);
    assert.ok(!red.includes('d0:0') && !red.includes('d3:0'));
    assert.ok(
      teamsOf(s, filterMask(s, compileConditions('k', eq('blue'), { metadata: ['team'] }))).includes('d0:1'),
    );
    const nulls = filterMask(
      s,
      compileConditions('k', [{ column: 'team', op: 'NOT IN', value: ['red', 'blue'] }], {
        metadata: ['team'],
      }),
    );
    assert.equal(teamsOf(s, nulls).length, 0); // NULL is neither in nor not in, as in SQL
    assert.throws(
      () =>
        filterMask(
          s,
          compileConditions('k', [{ column: 'colour', op: '=', value: 'x' }], { metadata: ['team'] }),
        ),
      /colour/,
    );
    // Top k equals a full sort of every kept chunk.
    const q = new Float32Array([0.5, -0.5, 0.5, 0.5]);
    const keep = filterMask(s, compileConditions('k', eq('blue'), { metadata: ['team'] }));
    const all: [number, number][] = [];
    for (let slot = 0; slot < keep.length; slot++)
      if (keep[slot]) all.push([slot, s.vectorOf(slot).reduce((a, x, j) => a + x * q[j], 0)]);
    all.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    assert.deepEqual(
      vectorTop(s, q, keep, 10).map(([slot]) => slot),
      all.slice(0, 10).map(([slot]) => slot),
    );
    // Many rewrites, then a reopen: the log is compacted and reads back the same.
    for (let r = 0; r < 3; r++)
      await s.put(docs.slice(0, 1000).map((d) => ({ ...d, rowHash: `${d.rowHash}${r}` })));
    const before = {
      rows: s.rows,
      chunks: s.chunks,
      red: teamsOf(s, filterMask(s, compileConditions('k', eq('red'), { metadata: ['team'] }))),
    };
    await s.close();
    s = await EmbeddedStore.open(dir, 'k', DIM);
    assert.deepEqual(
      {
        rows: s.rows,
        chunks: s.chunks,
        red: teamsOf(s, filterMask(s, compileConditions('k', eq('red'), { metadata: ['team'] }))),
      },
      before,
    );
    assert.equal(s.docs.get('d5')?.metadata.team, null);
    assert.equal(readFileSync(join(dir, 'k.log'), 'utf8').trim().split('\n').length, s.rows);
    await s.close();
    s = await EmbeddedStore.open(dir, 'k', DIM);
    assert.equal(s.rows, 1500); // d3 came back with the rewrites
    await s.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
