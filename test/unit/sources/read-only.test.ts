import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkReadOnlySql } from '../../../src/sources/read-only.js';

const ok = (sql: string) => assert.doesNotThrow(() => checkReadOnlySql('s', sql), sql);
const refused = (sql: string, what: RegExp) =>
  assert.throws(
    () => checkReadOnlySql('s', sql),
    (e: { code: number; message: string }) => {
      assert.equal(e.code, 1290);
      assert.match(e.message, /^Source 's' is in read-only mode: /);
      assert.match(e.message, what);
      return true;
    },
  );

test('reads pass, values and names that only look like calls included', () => {
  ok('SELECT x FROM t');
  ok('WITH a AS (SELECT 1) SELECT * FROM a;');
  ok("SELECT 'sleep(1)', \"sleeper\" FROM t WHERE name = 'load_file(x)'");
  ok('SELECT sleep_time FROM t -- sleep(1)\n');
  ok('SELECT $$pg_sleep(1)$$ FROM t');
});

test('writes, second statements and side effects are refused', () => {
  refused('DELETE FROM t', /starting with delete/);
  refused('SELECT 1; DELETE FROM t', /more than one statement/);
  refused('SELECT 1 /* x */ ; COMMIT', /more than one statement/);
  refused('SELECT pg_catalog.pg_read_file($1)', /PG_READ_FILE/);
  refused('SELECT "pg_sleep"(1)', /PG_SLEEP/);
  refused("SELECT `LOAD_FILE` ('/etc/passwd')", /LOAD_FILE/);
  refused("SELECT x INTO OUTFILE '/tmp/x' FROM t", /OUTFILE/);
  refused('SELECT x FROM t FOR UPDATE', /locking/);
  refused('SELECT x FROM t LOCK IN SHARE MODE', /locking/);
});

test('a literal cannot hide a call, whichever way backslashes are read', () => {
  // PostgreSQL (standard strings) sees the call; MySQL would see one string.
  refused("SELECT 'a\\', pg_sleep(5) --'", /PG_SLEEP/);
  // MySQL sees the call; PostgreSQL would see one string.
  refused("SELECT 'a\\' , sleep(5), '\\'' ", /SLEEP/);
});
