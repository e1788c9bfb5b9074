import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { SqlError } from '../../../src/core/errors.js';
import type { EngineSpec } from '../../../src/sources/engine-spec.js';
import { describeEngines, engines, getEngine, registerEngine } from '../../../src/sources/registry.js';

describe('engine registry', () => {
  test('holds the SQL engines, found in any case', () => {
    for (const name of ['postgres', 'mysql', 'mariadb', 'sqlite', 'duckdb'])
      assert.ok(engines.has(name), name);
    assert.equal(getEngine('PostgreS').name, 'postgres');
  });

  test('an unknown engine is 1105 listing the known ones, sorted, including ones registered later', () => {
    const spec: EngineSpec<{ x: string }> = {
      name: 'aaa_test',
      description: 'test engine',
      params: z.strictObject({ x: z.string() }),
      secrets: ['x'],
      paramDocs: { x: 'an x' },
      create: () => {
        throw new Error('not used');
      },
    };
    registerEngine(spec);
    assert.throws(
      () => getEngine('oracle'),
      (e: unknown) =>
        e instanceof SqlError &&
        e.code === 1105 &&
        e.message ===
          "Unknown engine 'oracle'. Known engines: aaa_test, duckdb, mariadb, mysql, postgres, sqlite",
    );
    const rows = describeEngines();
    assert.equal(rows[0].engine, 'aaa_test');
    assert.equal(rows[0].parameters, 'x: an x (secret)');
  });

  test('SHOW ENGINES rows name every parameter and mark secrets', () => {
    const pg = describeEngines().find((r) => r.engine === 'postgres');
    assert.ok(pg);
    assert.match(
      pg.parameters,
      /^host: .*; port: .*5432.*; user: .*; password: .*secret.*; database: .*; schema: .*public.*; sslmode: /,
    );
    assert.deepEqual(getEngine('mysql').secrets, ['password']);
  });
});
