import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStatement } from '../../../../src/sql/parse/index.js';

const labels = (sql: string) => {
  const st = parseStatement(sql, (n) => n === 'pg');
  assert.equal(st.kind, 'sql');
  return (st as { labels?: string[] | null }).labels;
};

test('result columns are named as MySQL names them: alias, column as written, string value, text as typed', () => {
  assert.deepEqual(
    labels("SELECT t.ID, `name`, qty*2 AS `Q q`, 'O\\'Brien', qty  +  1, COUNT(*), -3, NULL FROM t"),
    ['ID', 'name', 'Q q', "O'Brien", 'qty  +  1', 'COUNT(*)', '-3', 'NULL'],
  );
});

test('labels skip options, comments, CTEs and nested select lists; a set operation takes its first member', () => {
  assert.deepEqual(
    labels(
      'WITH x AS (SELECT a, b FROM t) SELECT DISTINCT /* c */ EXTRACT(YEAR FROM d), (SELECT MAX(a) FROM x), CASE WHEN a THEN 1 END FROM x',
    ),
    ['EXTRACT(YEAR FROM d)', '(SELECT MAX(a) FROM x)', 'CASE WHEN a THEN 1 END'],
  );
  assert.deepEqual(labels('(SELECT id, qty + 1 FROM a) UNION (SELECT 1, 2)'), ['id', 'qty + 1']);
  assert.deepEqual(labels('SELECT pg.public.t.col, pg.t.x + 1 FROM pg.public.t'), ['col', 'pg.t.x + 1']);
});

test('no labels where the columns cannot be told from the text', () => {
  assert.equal(labels('SELECT * FROM t'), null);
  assert.equal(labels('SELECT t.*, 1 FROM t'), null);
});
