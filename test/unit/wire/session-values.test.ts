/** The connection's values written into statements the engine runs (table-driven). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionInfo } from '../../../src/wire/chatter.js';
import { inlineSessionValues, UnknownVariable } from '../../../src/wire/session-values.js';

const s: SessionInfo = {
  db: 'pg',
  user: 'ada',
  host: '127.0.0.1',
  connectionId: 7,
  serverVersion: '8.0.40-tributary-0.1.0',
  productVersion: '0.1.0',
  port: 47335,
  tls: false,
  readOnly: false,
  vars: new Map(),
  principal: { user: 'ada', groups: ['support', 'eu'], admin: false },
};

const CASES: [string, string][] = [
  ['SELECT USER(), 1+1', "SELECT 'ada@127.0.0.1' AS `USER()`, 1+1"],
  ['SELECT @@version, NOW()', "SELECT '8.0.40-tributary-0.1.0' AS `@@version`, NOW()"],
  ['SELECT @@session.time_zone tz', "SELECT '+00:00' tz"],
  ["SELECT CONCAT(USER(), 'x') FROM t", "SELECT CONCAT('ada@127.0.0.1', 'x') FROM t"],
  [
    'SELECT a FROM t WHERE s = DATABASE() AND id IN (1, CONNECTION_ID(), 3)',
    "SELECT a FROM t WHERE s = 'pg' AND id IN (1, 7, 3)",
  ],
  ['SELECT (SELECT DATABASE()) AS d', "SELECT (SELECT 'pg' AS `DATABASE()`) AS d"],
  ['SELECT CURRENT_USER, 2', "SELECT 'ada' AS `CURRENT_USER`, 2"],
  ['SELECT CURRENT_GROUPS()', "SELECT 'support,eu' AS `CURRENT_GROUPS()`"],
  // Not ours: user variables, qualified names, strings, names that only look alike.
  ["SELECT @x, t.user, 'USER()', version FROM t", "SELECT @x, t.user, 'USER()', version FROM t"],
  ['SELECT * FROM user', 'SELECT * FROM user'],
];

test('session values become literals; a whole select item keeps its MySQL name', () => {
  for (const [sql, want] of CASES) assert.equal(inlineSessionValues(sql, s), want, sql);
});

test('an unknown system variable is refused as MySQL does (1193)', () => {
  assert.throws(() => inlineSessionValues('SELECT @@nope, 1', s), UnknownVariable);
});
