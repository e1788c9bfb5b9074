import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SqlError } from '../../../src/core/errors.js';
import { parseEngineParams } from '../../../src/sources/params.js';
import { getEngine } from '../../../src/sources/registry.js';

const pg = getEngine('postgres');
const my = getEngine('mysql');
const duck = getEngine('duckdb');

function fails(fn: () => unknown, re: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof SqlError);
    assert.equal(e.code, 1105);
    assert.match(e.message, re);
    return true;
  });
}

describe('parseEngineParams', () => {
  test('accepts numbers given as strings and fills defaults', () => {
    const p = parseEngineParams(pg, { host: 'db', port: '6543', user: 'u', database: 'd' });
    assert.deepEqual(p, {
      host: 'db',
      port: 6543,
      user: 'u',
      database: 'd',
      schema: 'public',
      sslmode: 'prefer',
      collation: 'mysql',
      read_only: false,
    });
  });

  test('every SQL engine takes collation: mysql (default) or source, and nothing else', () => {
    assert.equal(
      parseEngineParams(pg, { host: 'h', user: 'u', database: 'd', collation: 'source' }).collation,
      'source',
    );
    assert.equal(parseEngineParams(my, { host: 'h', user: 'u', database: 'd' }).collation, 'mysql');
    assert.equal(parseEngineParams(duck, { path: '/x.duckdb', collation: 'source' }).collation, 'source');
    fails(
      () => parseEngineParams(pg, { host: 'h', user: 'u', database: 'd', collation: 'utf8mb4_bin' }),
      /Invalid parameter 'collation' for engine 'postgres': expected one of 'mysql', 'source'/,
    );
  });

  test('accepts booleans given as strings', () => {
    assert.equal(parseEngineParams(duck, { path: '/x.duckdb', read_only: 'false' }).read_only, false);
    assert.equal(parseEngineParams(duck, { path: '/x.duckdb', read_only: 'YES' }).read_only, true);
    assert.equal(parseEngineParams(duck, { path: '/x.duckdb' }).read_only, true);
  });

  test('is idempotent: parsed parameters parse again to the same value', () => {
    const once = parseEngineParams(my, {
      host: 'h',
      user: 'u',
      password: 12345,
      database: 'd',
      ssl: '{"rejectUnauthorized": "false"}',
    });
    assert.deepEqual(once, {
      host: 'h',
      port: 3306,
      user: 'u',
      password: '12345',
      database: 'd',
      ssl: { rejectUnauthorized: false },
      collation: 'mysql',
      read_only: false,
    });
    assert.deepEqual(parseEngineParams(my, once), once);
  });

  test('mysql ssl takes a boolean or its text', () => {
    assert.equal(parseEngineParams(my, { host: 'h', user: 'u', database: 'd', ssl: 'true' }).ssl, true);
    assert.equal(parseEngineParams(my, { host: 'h', user: 'u', database: 'd' }).ssl, false);
  });

  test('names the parameter and the engine when a value has the wrong type', () => {
    fails(
      () => parseEngineParams(pg, { host: 'h', port: 'abc', user: 'u', database: 'd' }),
      /^Invalid parameter 'port' for engine 'postgres': expected a number$/,
    );
    fails(
      () => parseEngineParams(duck, { path: '/x', read_only: 'maybe' }),
      /Invalid parameter 'read_only' for engine 'duckdb': expected a boolean/,
    );
    fails(
      () => parseEngineParams(pg, { host: 'h', port: 70000, user: 'u', database: 'd' }),
      /'port' for engine 'postgres': at most 65535/,
    );
    fails(
      () => parseEngineParams(pg, { host: 'h', user: 'u', database: 'd', sslmode: 'sometimes' }),
      /'sslmode'/,
    );
  });

  test('names missing required parameters', () => {
    fails(
      () => parseEngineParams(pg, { host: 'h', user: 'u' }),
      /Missing required parameter 'database' for engine 'postgres'/,
    );
  });

  test('refuses unknown parameters by name and lists the known ones', () => {
    fails(
      () => parseEngineParams(pg, { host: 'h', user: 'u', database: 'd', hostname: 'x', pass: 'y' }),
      /Unknown parameters 'hostname', 'pass' for engine 'postgres'\. Known parameters: host, port, user, password, database, schema, sslmode/,
    );
  });

  test('treats null as absent and refuses non-objects', () => {
    const p = parseEngineParams(pg, { host: 'h', user: 'u', database: 'd', password: null });
    assert.equal('password' in p, false);
    fails(() => parseEngineParams(pg, [1, 2]), /PARAMETERS for engine 'postgres' must be a JSON object/);
  });

  test('never echoes a value in its messages', () => {
    try {
      parseEngineParams(my, { host: 'h', user: 'u', database: 'd', password: { secret: 'hunter22' } });
      assert.fail('should throw');
    } catch (e) {
      assert.ok(e instanceof SqlError);
      assert.doesNotMatch(e.message, /hunter22/);
      assert.match(e.message, /'password'/);
    }
  });
});
