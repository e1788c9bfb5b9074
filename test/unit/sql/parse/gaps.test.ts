import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rewriteSyntaxGaps } from '../../../../src/sql/parse/gaps.js';
import { parseStatement } from '../../../../src/sql/parse/index.js';

const isSource = (n: string) => n === 'pg';

test('index hints are dropped, in every form MySQL takes', () => {
  assert.equal(
    rewriteSyntaxGaps('SELECT a FROM t USE INDEX (i1, i2) WHERE a = 1'),
    'SELECT a FROM t  WHERE a = 1',
  );
  assert.equal(
    rewriteSyntaxGaps(
      'SELECT a FROM t AS x FORCE KEY FOR JOIN (PRIMARY) JOIN u IGNORE INDEX FOR GROUP BY (k) ON 1',
    ),
    'SELECT a FROM t AS x  JOIN u  ON 1',
  );
  // Words in strings are not syntax.
  assert.equal(rewriteSyntaxGaps("SELECT 'USE INDEX (x)'"), "SELECT 'USE INDEX (x)'");
});

test('<=> becomes an expression that is 1 or 0, with whole operands', () => {
  assert.equal(
    rewriteSyntaxGaps('SELECT a <=> b FROM t'),
    'SELECT ((((a) = (b)) OR ((a) IS NULL AND (b) IS NULL)) IS TRUE) FROM t',
  );
  assert.match(rewriteSyntaxGaps('SELECT t.qty + 1 <=> ABS(x) FROM t'), /\(\(t\.qty \+ 1\) = \(ABS\(x\)\)\)/);
  assert.equal(rewriteSyntaxGaps("SELECT '<=>' FROM t"), "SELECT '<=>' FROM t");
});

test('the statements parse (1064 before)', () => {
  for (const sql of [
    'SELECT 1 <=> NULL',
    'SELECT id FROM pg.orders USE INDEX (PRIMARY) WHERE id <=> 3',
    'SELECT o.id FROM pg.orders o FORCE INDEX FOR ORDER BY (k) ORDER BY o.id',
  ])
    assert.equal(parseStatement(sql, isSource).kind, 'sql', sql);
});

test('CONVERT(x, type) becomes CAST(x AS type); CONVERT(x USING cs) stays', () => {
  assert.equal(
    rewriteSyntaxGaps('SELECT CONVERT(CASE WHEN a THEN f(1, 2) END, UNSIGNED INTEGER) d FROM t'),
    'SELECT CAST(CASE WHEN a THEN f(1, 2) END AS  UNSIGNED INTEGER) d FROM t',
  );
  assert.equal(rewriteSyntaxGaps('SELECT CONVERT(x USING utf8mb4)'), 'SELECT CONVERT(x USING utf8mb4)');
  for (const sql of [
    'SELECT CONVERT(CASE WHEN a THEN 1 ELSE 2 END, UNSIGNED INTEGER) FROM t',
    'SELECT CONVERT(a <=> b, SIGNED) FROM t',
  ])
    assert.equal(parseStatement(sql, isSource).kind, 'sql', sql);
});

test('the BINARY operator becomes CAST(x AS BINARY); BINARY as a type stays', () => {
  assert.equal(
    rewriteSyntaxGaps("SELECT BINARY 'a' = 'A', name = BINARY t.c FROM t WHERE BINARY f(x) <> 'b'"),
    "SELECT CAST('a' AS BINARY) = 'A', name = CAST(t.c AS BINARY) FROM t WHERE CAST(f(x) AS BINARY) <> 'b'",
  );
  assert.equal(rewriteSyntaxGaps("SELECT BINARY('b') = 'b'"), "SELECT CAST(('b') AS BINARY) = 'b'");
  assert.equal(rewriteSyntaxGaps('SELECT CONVERT(a, BINARY) FROM t'), 'SELECT CAST(a AS  BINARY) FROM t');
  assert.equal(rewriteSyntaxGaps('CREATE TABLE t (id BINARY(16))'), 'CREATE TABLE t (id BINARY(16))');
  assert.equal(rewriteSyntaxGaps('SELECT CAST(a AS BINARY) FROM t'), 'SELECT CAST(a AS BINARY) FROM t');
});
