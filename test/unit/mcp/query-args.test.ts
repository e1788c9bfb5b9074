import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQueryArgs, queryInput } from '../../../src/mcp/query-tool.js';

test('parseQueryArgs accepts and shapes exactly what the zod schema does', () => {
  const inputs: unknown[] = [
    { query: 'SELECT 1' },
    { query: '' },
    { query: 'SELECT 1', extra: true },
    { query: 'SELECT 1', context: {} },
    { query: 'SELECT 1', context: { db: 'pg' } },
    { query: 'SELECT 1', context: { db: 'pg', other: 1 } },
    { query: 'SELECT 1', context: { db: 5 } },
    { query: 'SELECT 1', context: { db: null } },
    { query: 'SELECT 1', context: null },
    { query: 'SELECT 1', context: [] },
    { query: 'SELECT 1', context: 'pg' },
    { query: 'SELECT 1', context: undefined },
    { query: 'SELECT 1', context: { db: undefined } },
    { query: 5 },
    { query: null },
    {},
    [],
    null,
    'SELECT 1',
    42,
  ];
  for (const input of inputs) {
    const z = queryInput.safeParse(input);
    assert.deepEqual(parseQueryArgs(input), z.success ? z.data : null, JSON.stringify(input));
  }
});
