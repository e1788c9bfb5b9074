import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dialectHint } from '../../../../src/sql/parse/hints.js';

test('PostgreSQL casts get CAST / DATE rewrites of the same expression', () => {
  assert.equal(
    dialectHint('SELECT created_at::date FROM t'),
    "MySQL has no '::' cast: write CAST(created_at AS DATE) or DATE(created_at).",
  );
  assert.match(dialectHint('SELECT o.total::numeric FROM o')!, /CAST\(o\.total AS DECIMAL\(18,2\)\)/);
  assert.match(dialectHint('SELECT (a + b)::text FROM t')!, /CAST\(\(a \+ b\) AS CHAR\)/);
  assert.equal(dialectHint("SELECT 'a::date' FROM t"), null);
});

test('date_trunc gets the DATE_FORMAT for its unit', () => {
  assert.match(dialectHint("SELECT date_trunc('month', d) FROM t")!, /DATE_FORMAT\(d, '%Y-%m-01'\)/);
  assert.match(dialectHint("SELECT DATE_TRUNC('year', t.d) FROM t")!, /DATE_FORMAT\(t\.d, '%Y-01-01'\)/);
  assert.match(dialectHint("SELECT date_trunc('day', d) FROM t")!, /DATE\(d\)/);
});

test('ILIKE and double-quoted names', () => {
  assert.match(dialectHint("SELECT * FROM t WHERE a ILIKE 'x%'")!, /LIKE already ignores case/);
  assert.match(dialectHint("SELECT * FROM t WHERE a NOT ILIKE 'x%'")!, /NOT LIKE/);
  assert.match(dialectHint('SELECT "city" FROM "pg"."customers"')!, /backticks, `city`/);
  assert.equal(dialectHint("SELECT * FROM t WHERE a = 'x'"), null);
});
