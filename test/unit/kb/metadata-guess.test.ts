import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MetadataKinds } from '../../../src/kb/metadata-guess.js';

test('a metadata column without a recorded type: guessed from its values, widened by later ones', () => {
  const k = new MetadataKinds();
  for (const v of [1, 2n, null]) k.observe('n', v);
  k.observe('flag', true);
  k.observe('team', 'a');
  assert.equal(k.type('n'), 'BIGINT');
  assert.equal(k.type('flag'), 'BOOLEAN');
  assert.equal(k.type('team'), 'VARCHAR');
  assert.equal(k.type('never'), 'VARCHAR');
  const later = new MetadataKinds();
  later.observe('n', 2.5);
  k.merge(later);
  assert.equal(k.type('n'), 'DOUBLE');
  later.observe('n', 'x');
  k.merge(later);
  assert.equal(k.type('n'), 'VARCHAR');
});
