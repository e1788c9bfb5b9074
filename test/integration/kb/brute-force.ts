/**
 * The reference a KB search is checked against: every stored chunk read straight from its
 * table, its cosine to the question computed here, the filter applied in JS, all sorted.
 */
import assert from 'node:assert/strict';
import { BuiltinEmbedder } from '../../../src/kb/embed/builtin.js';

export interface RawChunk {
  chunk_id: string;
  /** `embedding::text`: pgvector's `[..]` or an array's `{..}`. */
  e: string;
  metadata: Record<string, unknown>;
  seq: string | number;
}

export const WORDS =
  'refund order invoice shipping delay password login error account billing payment card bank transfer customer support ticket priority urgent weekly report server outage latency database backup restore contract renewal discount coupon delivery warehouse return policy'.split(
    ' ',
  );

/** A document of ~30 words, different for every i (its number is one of its words). */
export function docText(i: number): string {
  let x = (i + 1) * 2654435761;
  const words = [`doc${i}`];
  for (let w = 0; w < 30; w++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(WORDS[x % WORDS.length]);
  }
  return words.join(' ');
}

export function bruteForce(
  chunks: RawChunk[],
  question: string,
  keep: (m: Record<string, unknown>) => boolean,
  k: number,
): { chunkId: string; distance: number }[] {
  const q = new BuiltinEmbedder().embedOne(question);
  return chunks
    .filter((c) => keep(c.metadata))
    .map((c) => {
      const v = c.e.slice(1, -1).split(',').map(Number);
      let s = 0;
      for (let j = 0; j < v.length; j++) s += v[j] * q[j];
      return { chunkId: c.chunk_id, distance: 1 - s, seq: Number(c.seq) };
    })
    .sort((a, b) => a.distance - b.distance || a.seq - b.seq)
    .slice(0, k)
    .map(({ chunkId, distance }) => ({ chunkId, distance }));
}

/** The KB's rows (chunk_id, distance) equal the brute-force list: same chunks, same distances. */
export function assertSameTopK(
  got: unknown[][],
  want: { chunkId: string; distance: number }[],
  what: string,
): void {
  assert.equal(got.length, want.length, `${what}: row count`);
  for (let i = 0; i < want.length; i++)
    assert.ok(
      Math.abs(Number(got[i][1]) - want[i].distance) < 1e-5,
      `${what}: distance at ${i}: ${got[i][1]} vs ${want[i].distance}`,
    );
  // A chunk whose distance no neighbour shares (within float32 rounding) must be the same
  // one; chunks at equal distances may come in either order.
  const near = (i: number, j: number) =>
    j >= 0 && j < want.length && Math.abs(want[i].distance - want[j].distance) < 1e-5;
  const boundary = want.length > 0 ? want[want.length - 1].distance : 0;
  for (let i = 0; i < want.length; i++) {
    if (near(i, i - 1) || near(i, i + 1) || Math.abs(want[i].distance - boundary) < 1e-5) continue;
    assert.equal(String(got[i][0]), want[i].chunkId, `${what}: chunk at ${i}`);
  }
}
