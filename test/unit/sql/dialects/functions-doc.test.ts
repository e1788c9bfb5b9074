/**
 * docs/reference/functions.md is made from the function matrix and the compilers
 * (test/integration/sql/dialects/function-doc.ts): it must say what the code does. After a
 * change to a function map or to the matrix, run `node --import tsx scripts/gen-functions-doc.ts`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { functionsDoc } from '../../../integration/sql/dialects/function-doc.js';
import { FUNCTIONS } from '../../../integration/sql/dialects/function-matrix.js';

test('docs/reference/functions.md is what the function matrix and the compilers say', () => {
  const onDisk = readFileSync('docs/reference/functions.md', 'utf8');
  assert.ok(
    onDisk === functionsDoc(),
    'docs/reference/functions.md differs from the code: run node --import tsx scripts/gen-functions-doc.ts',
  );
});

test('the matrix names each function once', () => {
  const names = FUNCTIONS.map((f) => f.name);
  assert.deepEqual(
    names.filter((n, i) => names.indexOf(n) !== i),
    [],
  );
});
