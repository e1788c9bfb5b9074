import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compile } from '../../../../src/sql/dialects/index.js';
import { parseStatement } from '../../../../src/sql/parse/index.js';

const toMysql = (sql: string): string => {
  const st = parseStatement(sql, () => false);
  assert.equal(st.kind, 'sql');
  return compile((st as { ast: any }).ast, 'mysql');
};

test('JSON -> and ->> become JSON_EXTRACT / JSON_UNQUOTE, which MariaDB also reads', () => {
  const sql = toMysql("SELECT profile->'$.a.b', profile->>'$.c' FROM t WHERE profile->>'$.z' = '1'");
  assert.doesNotMatch(sql, /->/);
  assert.match(sql, /JSON_EXTRACT\(`profile`, '\$\.a\.b'\)/);
  assert.match(sql, /JSON_UNQUOTE\(JSON_EXTRACT\(`profile`, '\$\.c'\)\)/);
  assert.match(sql, /WHERE \(?JSON_UNQUOTE\(JSON_EXTRACT\(`profile`, '\$\.z'\)\)\)? = '1'/);
});

test('functions with a unit keyword argument keep their commas; TRIM ... FROM keeps its words', () => {
  // TIMESTAMPADD is read as DATE_ADD (parse/normalize.ts), which every target can say.
  const sql = toMysql(
    "SELECT TIMESTAMPDIFF(DAY, '2021-01-01', d), TIMESTAMPADD(HOUR, 2, d), TRIM(BOTH 'x' FROM s), TRIM(LEADING FROM s) FROM t",
  );
  assert.match(sql, /TIMESTAMPDIFF\(DAY, '2021-01-01', `d`\)/);
  assert.match(sql, /DATE_ADD\(`d`, INTERVAL 2 HOUR\)/);
  assert.match(sql, /TRIM\(BOTH 'x' FROM `s`\)/);
  assert.match(sql, /TRIM\(LEADING FROM `s`\)/);
});
