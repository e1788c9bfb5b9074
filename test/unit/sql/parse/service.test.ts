import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SqlError } from '../../../../src/core/errors.js';
import { foldThreePartNames, SCHEMA_SEP } from '../../../../src/sql/parse/prepass.js';
import { parseServiceStatement } from '../../../../src/sql/parse/service.js';

describe('service statement grammar', () => {
  test('CREATE DATABASE with ENGINE and PARAMETERS in either order and quote style', () => {
    const a = parseServiceStatement(
      `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = {"host": "h", "port": "5432"};`,
    );
    assert.deepEqual(a, {
      kind: 'create_database',
      name: 'pg',
      engine: 'postgres',
      params: { host: 'h', port: '5432' },
      ifNotExists: false,
    });
    const b = parseServiceStatement(
      'create database if not exists `my db` with parameters = {"a": {"b": "}"}} engine = "mysql"',
    );
    assert.deepEqual(b, {
      kind: 'create_database',
      name: 'my db',
      engine: 'mysql',
      params: { a: { b: '}' } },
      ifNotExists: true,
    });
    const c = parseServiceStatement('CREATE DATABASE x ENGINE = postgres');
    assert.equal(c?.kind, 'create_database');
  });

  test('CREATE DATABASE errors are syntax errors that say what is wrong', () => {
    assert.throws(
      () => parseServiceStatement('CREATE DATABASE x WITH PARAMETERS = {"a":1}'),
      (e: SqlError) => e.code === 1064 && /ENGINE/.test(e.message),
    );
    assert.throws(
      () => parseServiceStatement("CREATE DATABASE x WITH ENGINE='pg', PARAMETERS = {bad json}"),
      (e: SqlError) => e.code === 1064 && /JSON/.test(e.message),
    );
    assert.throws(
      () => parseServiceStatement('CREATE DATABASE x WITH ENGINE=\'pg\', PARAMETERS = {"a":1'),
      (e: SqlError) => e.code === 1064,
    );
  });

  test('DROP, SHOW, DESCRIBE, USE, SET', () => {
    assert.deepEqual(parseServiceStatement('DROP DATABASE IF EXISTS pg'), {
      kind: 'drop_database',
      name: 'pg',
      ifExists: true,
    });
    assert.deepEqual(parseServiceStatement("SHOW DATABASES LIKE 'p%'"), {
      kind: 'show_databases',
      like: 'p%',
    });
    assert.deepEqual(parseServiceStatement('SHOW FULL TABLES FROM pg'), {
      kind: 'show_tables',
      from: 'pg',
      full: true,
      like: null,
    });
    assert.deepEqual(parseServiceStatement('show tables in `pg`'), {
      kind: 'show_tables',
      from: 'pg',
      full: false,
      like: null,
    });
    assert.deepEqual(parseServiceStatement('SHOW COLUMNS FROM orders FROM pg'), {
      kind: 'show_columns',
      table: { db: 'pg', schema: null, table: 'orders' },
      full: false,
      like: null,
    });
    assert.deepEqual(parseServiceStatement('DESCRIBE pg.public.orders'), {
      kind: 'describe',
      table: { db: 'pg', schema: 'public', table: 'orders' },
    });
    assert.deepEqual(parseServiceStatement('USE pg'), { kind: 'use', name: 'pg' });
    assert.deepEqual(parseServiceStatement('SET NAMES utf8mb4'), { kind: 'noop' });
    assert.deepEqual(parseServiceStatement('SHOW ENGINES'), { kind: 'show_engines' });
    assert.equal(parseServiceStatement('SELECT 1'), null);
  });
});

describe('three-part name pre-pass', () => {
  const isSource = (n: string) => n.toLowerCase() === 'pg';
  test('folds source.schema.table in table position only', () => {
    const out = foldThreePartNames('SELECT pg.orders.id FROM pg.sales.orders JOIN pg.t ON 1=1', isSource);
    assert.equal(out, `SELECT pg.orders.id FROM \`pg\`.\`sales${SCHEMA_SEP}orders\` JOIN pg.t ON 1=1`);
  });
  test('folds four-part column references and leaves strings alone', () => {
    const out = foldThreePartNames("SELECT pg.s.t.c, 'pg.s.t' FROM x", isSource);
    assert.equal(out, `SELECT \`pg\`.\`s${SCHEMA_SEP}t\`.\`c\`, 'pg.s.t' FROM x`);
  });
  test('leaves names of unknown sources alone', () => {
    const q = 'SELECT * FROM other.a.b';
    assert.equal(foldThreePartNames(q, isSource), q);
  });
});

test('LOCK TABLES ... READ and UNLOCK TABLES are accepted (mariadb-dump); WRITE is 1235', () => {
  assert.deepEqual(parseServiceStatement('LOCK TABLES `t` READ /*!32311 LOCAL */'), { kind: 'noop' });
  assert.deepEqual(parseServiceStatement('UNLOCK TABLES'), { kind: 'noop' });
  assert.throws(() => parseServiceStatement('LOCK TABLES t WRITE'), { code: 1235 });
});

test('SET GLOBAL and SET PERSIST are told apart from a session SET (read-only mode refuses them)', () => {
  assert.deepEqual(parseServiceStatement('SET NAMES utf8mb4'), { kind: 'noop' });
  assert.deepEqual(parseServiceStatement('SET @@session.sql_mode = ""'), { kind: 'noop' });
  for (const sql of [
    'SET GLOBAL max_connections = 1',
    'SET PERSIST x = 1',
    'SET @@GLOBAL.max_connections = 1',
  ])
    assert.deepEqual(parseServiceStatement(sql), { kind: 'set_global' }, sql);
});

test('SHOW CREATE DATABASE names the source (DBeaver, Superset)', () => {
  assert.deepEqual(parseServiceStatement('SHOW CREATE DATABASE `pg`'), {
    kind: 'show_create_database',
    name: 'pg',
  });
  assert.deepEqual(parseServiceStatement('SHOW CREATE SCHEMA IF NOT EXISTS pg'), {
    kind: 'show_create_database',
    name: 'pg',
  });
});

test("SHOW FULL TABLES ... WHERE Table_type = 'BASE TABLE' (DBeaver, SQLAlchemy)", () => {
  assert.deepEqual(parseServiceStatement("SHOW FULL TABLES FROM pg WHERE Table_type = 'BASE TABLE'"), {
    kind: 'show_tables',
    from: 'pg',
    full: true,
    like: null,
    where: [{ column: 'Table_type', op: '=', value: 'BASE TABLE' }],
  });
  assert.deepEqual(
    (
      parseServiceStatement(
        "SHOW FULL TABLES WHERE Table_type != 'VIEW' AND Tables_in_pg NOT LIKE 'x%'",
      ) as any
    ).where,
    [
      { column: 'Table_type', op: '<>', value: 'VIEW' },
      { column: 'Tables_in_pg', op: 'NOT LIKE', value: 'x%' },
    ],
  );
  assert.throws(() => parseServiceStatement('SHOW TABLES WHERE 1 = 1'), { code: 1064 });
});

test('SHOW [FULL] COLUMNS ... WHERE / LIKE (DBeaver, Superset)', () => {
  assert.deepEqual(parseServiceStatement("SHOW COLUMNS FROM t FROM pg WHERE Field = 'id' AND `Key` <> ''"), {
    kind: 'show_columns',
    table: { db: 'pg', schema: null, table: 't' },
    full: false,
    like: null,
    where: [
      { column: 'Field', op: '=', value: 'id' },
      { column: 'Key', op: '<>', value: '' },
    ],
  });
  assert.deepEqual(parseServiceStatement("SHOW FULL COLUMNS FROM pg.t LIKE 'i%'"), {
    kind: 'show_columns',
    table: { db: 'pg', schema: null, table: 't' },
    full: true,
    like: 'i%',
  });
});

test("SHOW DATABASES WHERE `Database` LIKE 'p%'", () => {
  assert.deepEqual(parseServiceStatement("SHOW DATABASES WHERE `Database` LIKE 'p%'"), {
    kind: 'show_databases',
    like: null,
    where: [{ column: 'Database', op: 'LIKE', value: 'p%' }],
  });
  test('transaction statements are refused with 1235 outside the MySQL listener', () => {
    for (const sql of [
      'START TRANSACTION',
      'begin',
      'COMMIT',
      'ROLLBACK',
      'SAVEPOINT a',
      'RELEASE SAVEPOINT a',
    ]) {
      assert.throws(
        () => parseServiceStatement(sql),
        (e: SqlError) =>
          e.code === 1235 &&
          /commits on its own/.test(e.message) &&
          /MySQL listener \(api\.mysql\.port/.test(e.message),
        sql,
      );
    }
    assert.equal(parseServiceStatement('SELECT 1'), null);
  });
});
