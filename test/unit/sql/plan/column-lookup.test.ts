import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ColumnInfo } from '../../../../src/core/types.js';
import { ColumnLookup } from '../../../../src/sql/plan/planner.js';

const col = (name: string, type: ColumnInfo['type']): ColumnInfo => ({
  name,
  type,
  nativeType: type.toLowerCase(),
  nullable: true,
});

test('an unqualified column the same table repeats in a subquery still has its type', () => {
  const products = [col('id', 'INT'), col('category', 'VARCHAR')];
  const lookup = new ColumnLookup([
    { qualifier: 'products', cols: products },
    { qualifier: 'products', cols: products },
  ]);
  assert.equal(lookup.find({ table: null, column: 'CATEGORY' })?.type, 'VARCHAR');
});

test('an unqualified column two tables disagree on stays unknown', () => {
  const lookup = new ColumnLookup([
    { qualifier: 'a', cols: [col('v', 'INT')] },
    { qualifier: 'b', cols: [col('v', 'VARCHAR')] },
  ]);
  assert.equal(lookup.find({ table: null, column: 'v' }), undefined);
  assert.equal(lookup.find({ table: 'b', column: 'v' })?.type, 'VARCHAR');
});
