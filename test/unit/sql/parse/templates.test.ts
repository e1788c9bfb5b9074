import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseStatement } from '../../../../src/sql/parse/index.js';
import { StatementTemplates } from '../../../../src/sql/parse/templates.js';

const isSource = (n: string) => ['pg', 'my'].includes(n.toLowerCase());

/** Cached shapes: true = template, false = known unsafe. */
function shapes(t: StatementTemplates): boolean[] {
  const m = (t as unknown as { cache: { map: Map<string, { value: unknown }> } }).cache.map;
  return [...m.values()].map((v) => v.value !== null);
}

/** Parses each text through the templates and checks it equals a full parse. */
function same(t: StatementTemplates, sqls: string[]): void {
  for (const sql of sqls) assert.deepStrictEqual(t.parse(sql, isSource), parseStatement(sql, isSource), sql);
}

describe('statement templates', () => {
  test('statements differing only in literals share one template and parse exactly', () => {
    const t = new StatementTemplates();
    same(t, [
      'SELECT id, name FROM pg.t WHERE id = 17',
      'SELECT id, name FROM pg.t WHERE id = 18',
      'SELECT id, name FROM pg.t WHERE id = 0',
      'SELECT id, name FROM pg.t WHERE id = 999999999999999',
    ]);
    assert.deepEqual(shapes(t), [true]);
    const s = t.parse("SELECT id FROM pg.t WHERE name = 'bob' AND qty > 3 LIMIT 5", isSource);
    assert.equal(s.kind, 'sql');
    same(t, ["SELECT id FROM pg.t WHERE name = 'alice' AND qty > 40 LIMIT 10"]);
    assert.deepEqual(shapes(t), [true, true]);
  });

  test('a hit returns its own AST: changing it does not change the next hit', () => {
    const t = new StatementTemplates();
    const a = t.parse('SELECT id FROM pg.t WHERE id = 1', isSource);
    if (a.kind !== 'sql') throw new Error('expected sql');
    (a.ast as any).where.right.value = 42;
    (a.ast as any).columns.length = 0;
    same(t, ['SELECT id FROM pg.t WHERE id = 2']);
  });

  test('labels come from the real text', () => {
    const t = new StatementTemplates();
    const one = t.parse('SELECT 1', isSource);
    const two = t.parse("SELECT 22, 'abc', 3 + 4", isSource);
    const three = t.parse("SELECT 5, 'xyz', 10 + 20", isSource);
    assert.deepEqual(one.kind === 'sql' && one.labels, ['1']);
    assert.deepEqual(two.kind === 'sql' && two.labels, ['22', 'abc', '3 + 4']);
    assert.deepEqual(three.kind === 'sql' && three.labels, ['5', 'xyz', '10 + 20']);
    assert.deepEqual(shapes(t), [true, true]);
  });

  test('different literal kinds, spacing or sources are different shapes', () => {
    const t = new StatementTemplates();
    same(t, ["SELECT id FROM pg.t WHERE id = '1'", 'SELECT id FROM pg.t WHERE id = 1']);
    assert.equal(shapes(t).length, 2);
    t.parse('SELECT id FROM pg.t WHERE id = 1', isSource, 'other sources');
    assert.equal(shapes(t).length, 3);
  });

  test('shapes whose literals do not land as plain literal nodes are not templated', () => {
    const t = new StatementTemplates();
    same(t, [
      'SELECT CAST(qty AS DECIMAL(10, 2)) FROM pg.t',
      'SELECT CAST(qty AS DECIMAL(12, 4)) FROM pg.t',
      'SELECT id FROM pg.t WHERE qty = -5',
      'SELECT id FROM pg.t WHERE qty = -6',
      "SELECT 1 AS 'one'",
      "SELECT 2 AS 'two'",
      "SELECT id FROM pg.t WHERE d = DATE '2020-01-01'",
      "SELECT id FROM pg.t WHERE d = DATE '2021-02-03'",
    ]);
    assert.deepEqual(shapes(t), [false, false, false, false]);
  });

  test('literals that need decoding or exact text keep their text in the shape', () => {
    const t = new StatementTemplates();
    same(t, [
      "SELECT id FROM pg.t WHERE name = 'it''s'",
      "SELECT id FROM pg.t WHERE name = 'a\\'b'",
      "SELECT id FROM pg.t WHERE name = 'a\\%'",
      "SELECT id FROM pg.t WHERE name = N'x'",
      "SELECT id FROM pg.t WHERE name = X'41'",
      'SELECT id FROM pg.t WHERE qty = 007',
      'SELECT id FROM pg.t WHERE qty = 1.5',
      'SELECT id FROM pg.t WHERE qty = 1e3',
      'SELECT id FROM pg.t WHERE qty = 12345678901234567890',
      'SELECT id FROM pg.t WHERE qty = 0.1234567890123456789',
      'SELECT .5',
      'SELECT id FROM pg.t WHERE name = "dq"',
    ]);
    // None of these had a literal that could become a slot.
    assert.deepEqual(shapes(t), []);
  });

  test('service statements, EXPLAIN and errors behave as a full parse', () => {
    const t = new StatementTemplates();
    same(t, ['SHOW TABLES', 'DESCRIBE pg.t', 'EXPLAIN SELECT id FROM pg.t WHERE id = 3', "SET x = 'a'"]);
    assert.throws(() => t.parse('SELECT FROM WHERE 1', isSource), /syntax/i);
    assert.throws(() => t.parse("SELECT 'unterminated", isSource), /syntax/i);
    assert.throws(() => t.parse('SELECT FROM WHERE 2', isSource), /syntax/i);
  });

  test('writes are templated too', () => {
    const t = new StatementTemplates();
    same(t, [
      "INSERT INTO pg.t (id, name) VALUES (1, 'a'), (2, 'b')",
      "INSERT INTO pg.t (id, name) VALUES (3, 'c'), (4, 'd')",
      "UPDATE pg.t SET name = 'z' WHERE id = 9",
      "UPDATE pg.t SET name = 'y' WHERE id = 10",
      'DELETE FROM pg.t WHERE id = 11',
    ]);
    assert.deepEqual(shapes(t), [true, true, true]);
  });
});
