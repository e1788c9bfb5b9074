/**
 * A select list of plain literals (`SELECT 1`) is answered without the local engine
 * (sql/plan/constant.ts). The same statement with `FROM DUAL` still runs in DuckDB, so
 * each pair must give the same names and values.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { constantSelect } from '../../../../src/sql/plan/constant.js';
import { startTestServer, type TestServer } from '../../../helpers/server.js';

const SAME = [
  'SELECT 1',
  'SELECT 0',
  'SELECT -0',
  'SELECT -5',
  'SELECT 2147483647',
  'SELECT -2147483647',
  'SELECT 007',
  "SELECT 'ok'",
  "SELECT 'it''s'",
  'SELECT "dq"',
  "SELECT 1 AS one, 'a' AS `the letter`, -3 AS neg",
  'select 1 as X',
  "SELECT 1, 'x', 2",
];

describe('constant SELECT', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    const dir = s?.storageDir;
    await s?.stop();
    if (dir) (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
  });

  for (const q of SAME) {
    test(`${q} answers as the local engine does`, async () => {
      assert.ok(constantSelect(q), 'takes the constant path');
      assert.deepEqual(await s.sql(q), await s.sql(`${q} FROM DUAL`));
    });
  }

  test("SELECT '' is a column named '' holding ''", async () => {
    assert.deepEqual(await s.sql("SELECT ''"), { type: 'table', column_names: [''], data: [['']] });
  });

  test('anything else is left to the planner', () => {
    for (const q of [
      'SELECT 1.0',
      'SELECT 1.',
      'SELECT 1e3',
      'SELECT 2147483648',
      'SELECT NULL',
      'SELECT TRUE',
      "SELECT 'a' 'b'",
      "SELECT 'a\\nb'",
      'SELECT 1 + 1',
      'SELECT 1 x',
      'SELECT 1 FROM DUAL',
      'SELECT 1 /*!50000 FROM t */',
      'SELECT 1 -- comment',
      'SELECT DISTINCT 1',
      'SELECT 1 UNION SELECT 2',
      'SELECT 1 LIMIT 0',
      "SELECT - 'a'",
      'SELECT',
      'SHOW TABLES',
    ]) {
      assert.equal(constantSelect(q), null, q);
    }
  });
});
