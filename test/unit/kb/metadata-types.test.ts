import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KbDefinition } from '../../../src/kb/definition.js';
import { observeMetadataTypes, widen } from '../../../src/kb/metadata-types.js';

const def = (types?: KbDefinition['metadata_types']) =>
  ({ metadata_columns: ['amount', 'tier', 'n'], metadata_types: types }) as unknown as KbDefinition;

async function drain(rows: AsyncIterable<unknown[][]>): Promise<void> {
  for await (const _ of rows);
}
async function* once(rows: unknown[][]): AsyncIterable<unknown[][]> {
  yield rows;
}

describe('metadata types learned at INSERT', () => {
  test('a SELECT types its columns: a DECIMAL that arrives as text stays DECIMAL', async () => {
    const o = observeMetadataTypes(def(), {
      columns: ['id', 'content', 'amount', 'tier'],
      types: ['INT', 'TEXT', 'DECIMAL', 'VARCHAR'],
      batches: once([[1, 'x', '7.25', 'gold']]),
    });
    await drain(o.rows.batches);
    assert.deepEqual(o.merged(), { amount: 'DECIMAL', tier: 'VARCHAR' });
  });

  test('VALUES types numbers and booleans only; quoted text does not override a typed column', async () => {
    const o = observeMetadataTypes(def({ amount: 'DECIMAL' }), {
      columns: ['id', 'content', 'amount', 'n'],
      batches: once([
        [1, 'x', '7.25', 3],
        [2, 'y', '1.5', 4.5],
      ]),
    });
    await drain(o.rows.batches);
    assert.deepEqual(o.merged(), { amount: 'DECIMAL', n: 'DOUBLE' });
  });

  test('nothing new: null (the definition is not rewritten)', async () => {
    const o = observeMetadataTypes(def({ amount: 'DECIMAL' }), {
      columns: ['id', 'content', 'amount'],
      types: ['INT', 'TEXT', 'DECIMAL'],
      batches: once([[1, 'x', '7.25']]),
    });
    await drain(o.rows.batches);
    assert.equal(o.merged(), null);
  });

  test('widen: numbers to the wider, dates to DATETIME, mixed kinds to text', () => {
    assert.equal(widen('INT', 'DECIMAL'), 'DECIMAL');
    assert.equal(widen('DOUBLE', 'BIGINT'), 'DOUBLE');
    assert.equal(widen('DATE', 'DATETIME'), 'DATETIME');
    assert.equal(widen('INT', 'VARCHAR'), 'VARCHAR');
    assert.equal(widen(undefined, 'DATE'), 'DATE');
  });
});
