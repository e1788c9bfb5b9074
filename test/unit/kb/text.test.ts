import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BuiltinEmbedder, stemOf } from '../../../src/kb/embed/builtin.js';
import { tokenize } from '../../../src/kb/text.js';

const WORD = /[\p{L}\p{N}]+/gu;
const COMPOUND = /[\p{L}\p{N}]+(?:[-_.:/#][\p{L}\p{N}]+)+/gu;
function byRegex(text: string): string[] {
  const lower = text.toLowerCase();
  const out: string[] = lower.match(WORD) ?? [];
  for (const c of lower.match(COMPOUND) ?? []) out.push(c);
  return out;
}

test('the ASCII tokenizer cuts exactly as the Unicode regexes do', () => {
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 4294967296;
  };
  const alphabet = 'aZ09 -_.:/#,\n\t!x';
  for (let n = 0; n < 20000; n++) {
    let s = '';
    const len = Math.floor(next() * 30);
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(next() * alphabet.length)];
    assert.deepEqual(tokenize(s), byRegex(s), JSON.stringify(s));
  }
  assert.deepEqual(tokenize('Error ACME-213 at E_CONN.42'), [
    'error',
    'acme',
    '213',
    'at',
    'e',
    'conn',
    '42',
    'acme-213',
    'e_conn.42',
  ]);
  assert.deepEqual(tokenize('Café naïve-été'), byRegex('Café naïve-été'));
});

test('builtin v2 meets inflections; v1 (for KBs made with it) is unchanged', async () => {
  assert.equal(stemOf('refunded'), 'refund');
  assert.equal(stemOf('refunds'), 'refund');
  assert.equal(stemOf('refunding'), 'refund');
  assert.equal(stemOf('planned'), 'plan');
  const v2 = new BuiltinEmbedder();
  assert.equal(v2.model, 'lexical-hash-v2');
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
  const [a, b] = await v2.embed(['refunds delayed', 'refund delay']);
  assert.ok(dot(a, b) > 0.6, String(dot(a, b)));
  const v1 = new BuiltinEmbedder(256, 'lexical-hash-v1');
  const [c] = await v1.embed(['refund']);
  assert.equal(c.length, 256);
  // v1 features of one 6-letter word: the word and its 5-letter prefix.
  assert.equal(Array.from(c).filter((x) => x !== 0).length, 2);
});
