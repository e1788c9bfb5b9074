import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStatement } from '../../../src/sql/parse/index.js';
import { tableItems } from '../../../src/sql/plan/ast-walk.js';

const items = (sql: string) => {
  const st = parseStatement(sql, () => false);
  assert.equal(st.kind, 'sql');
  return tableItems((st as { ast: any }).ast).map((n) => n.table);
};

test('tables inside a parenthesised join are table items', () => {
  assert.deepEqual(
    items('SELECT 1 FROM a LEFT JOIN (b JOIN c ON c.x = b.x) ON b.y = a.y WHERE a.id IN (SELECT id FROM d)'),
    ['a', 'b', 'c', 'd'],
  );
});
