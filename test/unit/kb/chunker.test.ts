import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chunkText } from '../../../src/kb/chunker.js';
import { BuiltinEmbedder } from '../../../src/kb/embed/builtin.js';

test('short text is one chunk; long text is cut on paragraph, then word boundaries, with overlap', () => {
  assert.deepEqual(chunkText('  hello world  ', 100, 10), ['hello world']);
  const para = `${'a '.repeat(40).trim()}\n\n${'b '.repeat(40).trim()}`;
  const chunks = chunkText(para, 100, 20);
  assert.equal(chunks[0], 'a '.repeat(40).trim());
  const words =
    'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau';
  const cs = chunkText(words, 40, 10);
  for (const c of cs) {
    assert.ok(c.length <= 40);
    for (const w of c.split(' ')) assert.ok(words.split(' ').includes(w), `cut word '${w}'`);
  }
  assert.ok(cs.length > 2);
  assert.deepEqual(chunkText(words, 40, 10), cs);
});

test('builtin embedding is deterministic, unit length, and closer for shared words', async () => {
  const e = new BuiltinEmbedder();
  const [a, b, c, a2] = await e.embed([
    'late refund for order',
    'refunds arrive late',
    'zebra jazz quiz',
    'late refund for order',
  ]);
  assert.deepEqual(a, a2);
  const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i], 0);
  assert.ok(Math.abs(dot(a, a) - 1) < 1e-5);
  assert.ok(dot(a, b) > dot(a, c));
});
