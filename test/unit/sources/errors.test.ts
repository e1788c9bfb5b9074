import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mapDuckError } from '../../../src/sources/duckdb/errors.js';
import { mapMysqlError } from '../../../src/sources/mysql/errors.js';
import { jsonColumnOfCheck } from '../../../src/sources/mysql/json-columns.js';
import { mapPgError } from '../../../src/sources/postgres/errors.js';
import { mapSqliteError } from '../../../src/sources/sqlite/errors.js';

const pgCtx = { source: 'pg1', host: 'db', port: 5432, user: 'u', database: 'd', password: 'hunter2-secret' };
const myCtx = { ...pgCtx, source: 'my1', port: 3306 };

// Driver errors as the drivers shape them (code/errno/sqlState/message), mapped to SPEC §2 codes.
describe('error mapping', () => {
  test('postgres', () => {
    const e = (code: string, message: string) => Object.assign(new Error(message), { code });
    assert.equal(mapPgError(pgCtx, e('ECONNREFUSED', 'connect ECONNREFUSED 1.2.3.4:5432'), true).code, 2003);
    assert.equal(mapPgError(pgCtx, e('28P01', 'password authentication failed for user "u"')).code, 1045);
    assert.equal(mapPgError(pgCtx, e('57014', 'canceling statement due to user request')).code, 1317);
    assert.equal(
      mapPgError(pgCtx, e('57P01', 'terminating connection due to administrator command')).code,
      2013,
    );
    assert.equal(
      mapPgError(pgCtx, e('42703', 'column t.x does not exist')).message,
      "Unknown column 't.x' in source 'pg1'",
    );
    // SQLSTATEs with a MySQL counterpart keep their meaning (SPEC section 2).
    for (const [state, code] of [
      ['23505', 1062],
      ['23503', 1452],
      ['23502', 1048],
      ['23514', 3819],
      ['22001', 1406],
      ['22P02', 1366],
      ['22003', 1264],
      ['22012', 1365],
      ['40001', 1213],
      ['40P01', 1213],
    ] as const)
      assert.equal(mapPgError(pgCtx, e(state, 'violated')).code, code, state);
    const other = mapPgError(pgCtx, e('XX000', 'bad thing near hunter2-secret'));
    assert.equal(other.code, 1105);
    assert.equal(other.message, "Source 'pg1' error: bad thing near *** (SQLSTATE XX000)");
  });

  test('mysql', () => {
    const e = (errno: number, sqlMessage: string, sqlState = 'HY000') =>
      Object.assign(new Error(sqlMessage), { errno, sqlMessage, sqlState, code: 'ER_X' });
    assert.equal(
      mapMysqlError(myCtx, e(1049, "Unknown database 'zz'")).message,
      "Unknown database 'zz' in source 'my1'",
    );
    assert.equal(
      mapMysqlError(myCtx, e(1146, "Table 'd.t' doesn't exist")).message,
      "Table 'my1.t' doesn't exist",
    );
    assert.equal(
      mapMysqlError(myCtx, e(1146, "Table 'other.t' doesn't exist")).message,
      "Table 'my1.other.t' doesn't exist",
    );
    assert.equal(mapMysqlError(myCtx, e(1317, 'Query execution was interrupted')).code, 1317);
    const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), {
      code: 'PROTOCOL_CONNECTION_LOST',
      fatal: true,
    });
    assert.equal(mapMysqlError(myCtx, lost).code, 2013);
    assert.equal(mapMysqlError(myCtx, lost, true).code, 2003);
    // A server error keeps its code: PyMySQL and JDBC tell IntegrityError by it.
    const dup = mapMysqlError(myCtx, e(1062, "Duplicate entry '1' for key 'PRIMARY'", '23000'));
    assert.deepEqual(
      [dup.code, dup.message],
      [1062, "Source 'my1' error: Duplicate entry '1' for key 'PRIMARY'"],
    );
    assert.equal(mapMysqlError(myCtx, e(1452, 'Cannot add or update a child row', '23000')).code, 1452);
    assert.equal(mapMysqlError(myCtx, e(1048, "Column 'a' cannot be null", '23000')).code, 1048);
  });

  test('sqlite and duckdb messages', () => {
    assert.equal(
      mapSqliteError('s', '/p', new Error('no such table: main.t')).message,
      "Table 's.t' doesn't exist",
    );
    assert.equal(
      mapSqliteError(
        's',
        '/p',
        new Error('no such column: "x" - should this be a string literal in single-quotes?'),
      ).code,
      1054,
    );
    assert.equal(mapDuckError('d', '/p', new Error('INTERRUPT Error: Interrupted!')).code, 1317);
    // Constraint violations, told by their text, keep MySQL's codes.
    for (const [msg, code] of [
      ['UNIQUE constraint failed: t.id', 1062],
      ['NOT NULL constraint failed: t.a', 1048],
      ['FOREIGN KEY constraint failed', 1452],
      ['CHECK constraint failed: positive', 3819],
    ] as const)
      assert.equal(mapSqliteError('s', '/p', new Error(msg)).code, code, msg);
    for (const [msg, code] of [
      ['Constraint Error: Duplicate key "id: 1" violates primary key constraint.', 1062],
      ['Constraint Error: NOT NULL constraint failed: t.a', 1048],
      ['Constraint Error: Violates foreign key constraint because key "id: 9" does not exist', 1452],
      ['Constraint Error: CHECK constraint failed on table t with expression CHECK((a > 0))', 3819],
    ] as const)
      assert.equal(mapDuckError('d', '/p', new Error(msg)).code, code, msg);
    assert.equal(
      mapDuckError('d', '/p', new Error('Conversion Error: bad\n\nLINE 1: select\n   ^')).message,
      "Source 'd' error: Conversion Error: bad",
    );
  });

  test('MariaDB JSON checks name their column', () => {
    assert.equal(jsonColumnOfCheck('json_valid(`tags`)'), 'tags');
    assert.equal(jsonColumnOfCheck('json_valid(`we``ird`)'), 'we`ird');
    assert.equal(jsonColumnOfCheck('json_valid(`a`) and 1'), null);
  });
});
