import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scriptStatements, splitStatements } from '../../../src/cli/statements.js';

describe('splitting a script into statements', () => {
  test('on ; outside quotes and comments, with the line each starts on', () => {
    const text =
      "-- header; not a statement\nUSE pg;\n/* c; */ SELECT 1\n;\n# x;\n--\nSELECT \"a;b\", `c;`, 'd\\';'; -- tail";
    assert.deepEqual(scriptStatements(text), [
      { sql: 'USE pg', line: 2 },
      { sql: 'SELECT 1', line: 3 },
      { sql: "SELECT \"a;b\", `c;`, 'd\\';'", line: 7 },
    ]);
    assert.deepEqual(scriptStatements('SELECT 1'), [{ sql: 'SELECT 1', line: 1 }]);
    assert.deepEqual(
      scriptStatements(
        `CREATE DATABASE x WITH ENGINE = 'postgres', PARAMETERS = {"password": "a;b"}; SELECT 2`,
      ).map((s) => s.sql),
      [`CREATE DATABASE x WITH ENGINE = 'postgres', PARAMETERS = {"password": "a;b"}`, 'SELECT 2'],
    );
  });

  test('an unfinished statement is kept for the next line (the shell)', () => {
    assert.deepEqual(splitStatements("SELECT 'a;\n").statements, []);
    const r = splitStatements('SELECT 1; SELECT\n  2');
    assert.deepEqual(
      r.statements.map((s) => s.sql),
      ['SELECT 1'],
    );
    assert.equal(r.rest.trim(), 'SELECT\n  2');
    assert.equal(splitStatements('SELECT 1; -- done\n').rest, '');
  });
});
