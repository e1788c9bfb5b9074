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
