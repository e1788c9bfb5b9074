import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseStatement, type Statement } from '../../../../src/sql/parse/index.js';
import { findMarkers } from '../../../../src/sql/parse/markers.js';
import { StatementParser } from '../../../../src/sql/parse/parse-pool.js';
import { StatementTemplates, shapeOf } from '../../../../src/sql/parse/templates.js';

const isSource = (n: string) => ['pg', 'my'].includes(n.toLowerCase());

/** Cached shapes: true = template, false = known unsafe. */
function shapes(t: StatementTemplates): boolean[] {
  const m = (t as unknown as { cache: { map: Map<string, { value: unknown }> } }).cache.map;
  return [...m.values()].map((v) => v.value !== null);
}

/** A parse that must have run inline (every statement here is short). */
function now(s: Statement | Promise<Statement>): Statement {
  if (s instanceof Promise) throw new Error('expected an inline parse');
  return s;
}

/** Parses each text through the templates and checks it equals a full parse. */
function same(t: StatementTemplates, sqls: string[]): void {
  for (const sql of sqls)
    assert.deepStrictEqual(now(t.parse(sql, isSource)), parseStatement(sql, isSource), sql);
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
    const s = now(t.parse("SELECT id FROM pg.t WHERE name = 'bob' AND qty > 3 LIMIT 5", isSource));
    assert.equal(s.kind, 'sql');
    same(t, ["SELECT id FROM pg.t WHERE name = 'alice' AND qty > 40 LIMIT 10"]);
    assert.deepEqual(shapes(t), [true, true]);
  });

  test('a hit returns its own AST: changing it does not change the next hit', () => {
    const t = new StatementTemplates();
    const a = now(t.parse('SELECT id FROM pg.t WHERE id = 1', isSource));
    if (a.kind !== 'sql') throw new Error('expected sql');
    (a.ast as any).where.right.value = 42;
    (a.ast as any).columns.length = 0;
    same(t, ['SELECT id FROM pg.t WHERE id = 2']);
  });

  test('labels come from the real text', () => {
    const t = new StatementTemplates();
    const one = now(t.parse('SELECT 1', isSource));
    const two = now(t.parse("SELECT 22, 'abc', 3 + 4", isSource));
    const three = now(t.parse("SELECT 5, 'xyz', 10 + 20", isSource));
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

  test('strings with escapes and short decimals are slots, decoded as a full parse decodes them', () => {
    const t = new StatementTemplates();
    same(t, [
      "SELECT id FROM pg.t WHERE name = 'it''s'",
      "SELECT id FROM pg.t WHERE name = 'a\\'b'",
      "SELECT id FROM pg.t WHERE name = 'a\\%'",
      "SELECT id FROM pg.t WHERE name = 'a\\\\b\\n\\0'",
      'SELECT id FROM pg.t WHERE name = "dq"',
      'SELECT id FROM pg.t WHERE name = "d""q"',
    ]);
    assert.deepEqual(shapes(t), [true]);
    same(t, ['SELECT id FROM pg.t WHERE qty = 1.5', 'SELECT id FROM pg.t WHERE qty = 0.25']);
    assert.deepEqual(shapes(t), [true, true]);
  });

  test('literals that need exact text keep their text in the shape', () => {
    const t = new StatementTemplates();
    same(t, [
      "SELECT id FROM pg.t WHERE name = N'x'",
      "SELECT id FROM pg.t WHERE name = X'4'",
      "SELECT id FROM pg.t WHERE name = _binary'x'",
      'SELECT id FROM pg.t WHERE qty = 007',
      'SELECT id FROM pg.t WHERE qty = 1e3',
      'SELECT id FROM pg.t WHERE qty = 12345678901234567890',
      'SELECT id FROM pg.t WHERE qty = 0.1234567890123456789',
      'SELECT .5',
      "SELECT id FROM pg.t WHERE name = _utf8mb4'x'",
    ]);
    // None of these had a literal that could become a slot.
    assert.deepEqual(shapes(t), []);
  });

  test('hex literals (binary values) are slots: one template whatever their bytes', () => {
    const t = new StatementTemplates();
    same(t, [
      "SELECT id FROM pg.t WHERE v = X'41'",
      "SELECT id FROM pg.t WHERE v = X''",
      `SELECT id FROM pg.t WHERE v = X'${Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('hex')}'`,
    ]);
    same(t, [
      "INSERT INTO pg.t (id, v) VALUES (1, X'00'), (2, X'ff')",
      "INSERT INTO pg.t (id, v) VALUES (3, X'0102'), (4, x''), (5, X'FE')",
    ]);
    assert.deepEqual(shapes(t), [true, true]);
  });

  test('service statements, EXPLAIN and errors behave as a full parse', () => {
    const t = new StatementTemplates();
    same(t, ['SHOW TABLES', 'DESCRIBE pg.t', 'EXPLAIN SELECT id FROM pg.t WHERE id = 3', "SET x = 'a'"]);
    assert.throws(() => now(t.parse('SELECT FROM WHERE 1', isSource)), /syntax/i);
    assert.throws(() => now(t.parse("SELECT 'unterminated", isSource)), /syntax/i);
    assert.throws(() => now(t.parse('SELECT FROM WHERE 2', isSource)), /syntax/i);
    assert.throws(() => now(t.parse('SELECT id FROM pg.t WHERE id IN (1, 2,)', isSource)), /syntax/i);
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

/** A parser that counts the texts it parses. */
class CountingParser extends StatementParser {
  texts: string[] = [];
  override parseMarked(...args: Parameters<StatementParser['parseMarked']>) {
    this.texts.push(args[0]);
    return super.parseMarked(...args);
  }
  override parse(...args: Parameters<StatementParser['parse']>) {
    this.texts.push(args[0]);
    return super.parse(...args);
  }
}

const ints = (n: number, from = 1) => Array.from({ length: n }, (_, i) => String(from + i * 3)).join(', ');

describe('lists of literals as one slot', () => {
  test('IN lists of any length share one template, parsed once, and equal a full parse', () => {
    const parser = new CountingParser();
    const t = new StatementTemplates(500, 60_000, parser);
    const sqls = [1, 2, 3, 50, 1000].map(
      (n) => `SELECT id FROM pg.t WHERE id IN (${ints(n)}) AND name NOT IN ('a', 'b')`,
    );
    same(t, sqls);
    assert.deepEqual(shapes(t), [true]);
    assert.equal(parser.texts.length, 1);
    assert.ok(parser.texts[0].length < 120, parser.texts[0]);
  });

  test('VALUES rows of any count share one template per row width', () => {
    const parser = new CountingParser();
    const t = new StatementTemplates(500, 60_000, parser);
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => `(${i}, 'n''${i}', ${i}.25, ${i % 3 ? 'NULL' : '-7'}, TRUE)`).join(
        ', ',
      );
    same(
      t,
      [1, 2, 500].map((n) => `INSERT INTO pg.t (a, b, c, d, e) VALUES ${rows(n)}`),
    );
    same(t, [
      "REPLACE INTO pg.t VALUES (1, 'x'), (2, 'y')",
      "INSERT INTO pg.t VALUES (1, 'x') ON DUPLICATE KEY UPDATE b = VALUES(b)",
    ]);
    assert.equal(parser.texts.length, 3);
    assert.ok(parser.texts[0].length < 120, parser.texts[0]);
  });

  test('every kind of list element becomes the node a full parse makes', () => {
    const t = new StatementTemplates();
    const elems = [
      '0',
      '7',
      '999999999999999',
      '-0',
      '-5',
      '-0.5',
      '12.50',
      '0.25',
      "'x'",
      "''",
      "'it''s'",
      "'a\\'b'",
      "'\\\\%'",
      "'\\n\\t\\0\\Z'",
      '"dq"',
      '"d""q"',
      'NULL',
      'null',
      'TRUE',
      'false',
      '0.25e0',
      '-1.25e0',
      '1e3',
      '1e-05',
      '-2.5E+10',
      '123456789012345e7',
      "X'00ff'",
      "x''",
      "X'AbCd'",
    ];
    for (const e of elems) {
      same(t, [`SELECT id FROM pg.t WHERE x IN (${e}, 1)`, `SELECT id FROM pg.t WHERE x IN (1, ${e})`]);
      same(t, [`INSERT INTO pg.t (x, y) VALUES (${e}, 1), (1, ${e})`]);
    }
    // One template for each list position, whatever the elements.
    assert.equal(shapes(t).length, 2);
  });

  test('lists holding anything but literals stay in the text', () => {
    const t = new StatementTemplates();
    same(t, [
      'SELECT id FROM pg.t WHERE x IN (1, id + 2)',
      'SELECT id FROM pg.t WHERE x IN (1, - 2)',
      "SELECT id FROM pg.t WHERE x IN (1, N'a')",
      'SELECT id FROM pg.t WHERE x IN (1, 12345678901234567890)',
      'SELECT id FROM pg.t WHERE x IN (SELECT 1)',
      'INSERT INTO pg.t VALUES (1, NOW()), (2, NOW())',
      'INSERT INTO pg.t VALUES (1, 2), (3, 4, 5)',
      'SELECT (1, 2) IN ((1, 2), (3, 4))',
    ]);
  });

  test('finding the markers is one walk: twice the literals, at most twice the steps', () => {
    const steps = (n: number) => {
      const chain = Array.from(
        { length: n },
        (_, i) => `WHEN id = ${987_654_320_000 + 2 * i} THEN 'tbq${2 * i + 1}m7x'`,
      );
      const stmt = parseStatement(`SELECT CASE ${chain.join(' ')} END FROM pg.t`, isSource);
      if (stmt.kind !== 'sql') throw new Error('expected sql');
      const stats = { visited: 0 };
      const kinds = Array.from({ length: 2 * n }, (_, i) => (i % 2 ? 's' : 'n') as 'n' | 's');
      const found = findMarkers(stmt.ast, kinds, stats);
      assert.ok(found.every((p) => p !== null));
      return stats.visited;
    };
    const [a, b, c] = [200, 400, 800].map(steps);
    assert.ok(b <= 2 * a && c <= 2 * b, `${a} ${b} ${c}`);
  });
});

describe('positional ORDER BY and GROUP BY', () => {
  test('select-item positions stay in the text; values elsewhere are slots', () => {
    const kinds = (sql: string) =>
      shapeOf(sql)!
        .slots.map((s) => s.kind)
        .join('');
    assert.equal(kinds('SELECT a, b FROM pg.t WHERE a = 5 GROUP BY 1, 2 ORDER BY 2 DESC, 1 LIMIT 3'), 'nn');
    assert.equal(kinds('SELECT a FROM pg.t WHERE a = 5 ORDER BY a + 1, (SELECT 2) LIMIT 3'), 'nnnn');
    assert.equal(kinds('SELECT a FROM (SELECT a FROM pg.t ORDER BY 1) x WHERE a > 4'), 'n');
    const t = new StatementTemplates();
    same(t, ['SELECT a, b FROM pg.t WHERE a = 5 GROUP BY 1, 2 ORDER BY 2 DESC, 1 LIMIT 3']);
  });
});
