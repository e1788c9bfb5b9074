/** CURRENT_USER(), CURRENT_GROUPS() and USER() written into statements as the principal's values. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inlinePrincipalValues } from '../../../src/sql/principal-values.js';

const ana = { user: "ana'o", groups: ['support', 'eu'], admin: false };

test('the principal functions become literals; names, strings and SHOW are left alone', () => {
  const cases: [string, string][] = [
    ['SELECT CURRENT_USER()', "SELECT 'ana\\'o' AS `CURRENT_USER()`"],
    ['select current_user, 1', "select 'ana\\'o' AS `current_user`, 1"],
    ['SELECT CURRENT_GROUPS() AS g', "SELECT 'support,eu' AS g"],
    [
      'SELECT * FROM t WHERE owner = CURRENT_USER() AND FIND_IN_SET(team, CURRENT_GROUPS())',
      "SELECT * FROM t WHERE owner = 'ana\\'o' AND FIND_IN_SET(team, 'support,eu')",
    ],
    [
      'SELECT USER(), SESSION_USER(), SYSTEM_USER() FROM t',
      "SELECT 'ana\\'o' AS `USER()`, 'ana\\'o' AS `SESSION_USER()`, 'ana\\'o' AS `SYSTEM_USER()` FROM t",
    ],
    [
      "SELECT t.user, `current_user`, 'CURRENT_USER()', user FROM t",
      "SELECT t.user, `current_user`, 'CURRENT_USER()', user FROM t",
    ],
    ['SHOW GRANTS FOR CURRENT_USER()', 'SHOW GRANTS FOR CURRENT_USER()'],
    ['SELECT 1', 'SELECT 1'],
  ];
  for (const [sql, want] of cases) assert.equal(inlinePrincipalValues(sql, ana), want, sql);
  // No principal (an internal statement): untouched.
  assert.equal(inlinePrincipalValues('SELECT CURRENT_USER()', undefined), 'SELECT CURRENT_USER()');
});
