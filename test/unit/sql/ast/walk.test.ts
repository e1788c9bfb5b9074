import assert from 'node:assert/strict';
import { test } from 'node:test';
import { columnRefs, cteNames, tableItems, visit } from '../../../../src/sql/ast/walk.js';
import { parseStatement } from '../../../../src/sql/parse/index.js';

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

const ast = (sql: string): any => {
  const st = parseStatement(sql, () => false);
  assert.equal(st.kind, 'sql');
  return (st as { ast: any }).ast;
};

test('table items: FROM, joins and subqueries anywhere, DML targets, CTE bodies', () => {
  const names = (sql: string) => tableItems(ast(sql)).map((t) => [t.db, t.table].filter(Boolean).join('.'));
  assert.deepEqual(
    names(
      'SELECT (SELECT 1 FROM s1) FROM a JOIN db.b ON 1 WHERE x IN (SELECT y FROM s2) AND EXISTS (SELECT 1 FROM (SELECT 1 FROM s3) q)',
    ).sort(),
    ['a', 'db.b', 's1', 's2', 's3'],
  );
  assert.deepEqual(names('SELECT a FROM t UNION SELECT b FROM u').sort(), ['t', 'u']);
  assert.deepEqual(names('INSERT INTO dst (a) SELECT a FROM src').sort(), ['dst', 'src']);
  assert.deepEqual(names('DELETE FROM t WHERE id IN (SELECT id FROM u)').sort(), ['t', 't', 'u']);
  assert.deepEqual(names('WITH c AS (SELECT * FROM base) SELECT * FROM c JOIN other ON 1').sort(), [
    'base',
    'c',
    'other',
  ]);
});

test('the items are the tree nodes themselves', () => {
  const tree = ast('SELECT * FROM t');
  tableItems(tree)[0].table = 'renamed';
  assert.equal(tree.from[0].table, 'renamed');
});

test('cteNames, columnRefs, and visit skipping children', () => {
  assert.deepEqual([...cteNames(ast('WITH a AS (SELECT 1), B AS (SELECT 2) SELECT * FROM a'))], ['a', 'b']);
  const where = ast('SELECT 1 FROM t WHERE a = 1 AND b IN (SELECT c FROM u)').where;
  assert.deepEqual(
    columnRefs(where).map((c) => c.column),
    ['a', 'b', 'c'],
  );
  const seen: string[] = [];
  visit(ast('SELECT f(a, g(b)) FROM t').columns, (n) => {
    if (n.type === 'column_ref') seen.push(String(n.column));
    if (n.type === 'function' && n.name === 'G') return false;
  });
  assert.deepEqual(seen, ['a']);
});
