import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readExecutableComments } from '../../../../src/sql/parse/executable-comments.js';

test('executable comments are read as MySQL 8.0.36 reads them', () => {
  const cases: [string, string][] = [
    ['SELECT 1 /*!, 2 */', 'SELECT 1  , 2  '],
    ['/*!40101 SET NAMES utf8mb4 */', '  SET NAMES utf8mb4  '],
    ['SELECT /*!40001 SQL_NO_CACHE */ * FROM t', 'SELECT   SQL_NO_CACHE   * FROM t'],
    ['SELECT 1 /*!90000 , 2 */', 'SELECT 1   '],
    ['SELECT 1 /*!800361 */', 'SELECT 1  1  '],
    ['SELECT 1 /*M!100101 , 2 */', 'SELECT 1 /*M!100101 , 2 */'],
    ['SELECT 1 /* plain */', 'SELECT 1 /* plain */'],
    ["SELECT '/*!, 2 */' /*!, 3 */", "SELECT '/*!, 2 */'  , 3  "],
    ['SELECT `a/*!b*/` FROM t', 'SELECT `a/*!b*/` FROM t'],
    ["SELECT 'it''s /*!x*/'", "SELECT 'it''s /*!x*/'"],
    ['SELECT 1 -- /*!, 2 */\n', 'SELECT 1 -- /*!, 2 */\n'],
    ['SELECT 1 /*! unterminated', 'SELECT 1 /*! unterminated'],
  ];
  for (const [sql, want] of cases) assert.equal(readExecutableComments(sql), want, sql);
});
