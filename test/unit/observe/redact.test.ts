import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readStatement, redactSql, sourcesIn, statementKind } from '../../../src/observe/redact.js';

describe('redactSql', () => {
  test('replaces string, number, hex and bit literals with ?', () => {
    assert.equal(
      redactSql(
        "SELECT * FROM pg.users WHERE email = 'a@b.c' AND age > 42 AND x = 1.5e3 AND h = X'ff' AND b = b'01'",
      ),
      'SELECT * FROM pg.users WHERE email = ? AND age > ? AND x = ? AND h = ? AND b = ?',
    );
  });

  test('handles escaped and doubled quotes inside strings', () => {
    assert.equal(redactSql("SELECT 'it''s', 'a\\'b', \"dq\"\"x\" FROM t"), 'SELECT ?, ?, ? FROM t');
  });

  test('keeps identifiers, including backticked ones and names with digits', () => {
    assert.equal(
      redactSql('SELECT t1.col2, `my table`.`col 3` FROM db1.t1 JOIN `my table` ON 1=1'),
      'SELECT t1.col2, `my table`.`col 3` FROM db1.t1 JOIN `my table` ON ?=?',
    );
  });

  test('drops comments, which may hold values', () => {
    assert.equal(redactSql("SELECT 1 -- password 'x'\n FROM t /* token abc */ # note"), 'SELECT ? FROM t');
  });

  test('hides secrets in CREATE DATABASE parameters', () => {
    const out = redactSql(
      `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = {"host": "db", "password": "hunter2", "port": 5432}`,
    );
    assert.ok(!out.includes('hunter2'));
    assert.ok(!out.includes('5432'));
    assert.equal(out, 'CREATE DATABASE pg WITH ENGINE = ?, PARAMETERS = {?: ?, ?: ?, ?: ?}');
  });

  test('an unterminated string hides the rest', () => {
    assert.equal(redactSql("SELECT 'abc"), 'SELECT ?');
  });

  test('long statements are cut', () => {
    const out = redactSql(`SELECT ${'a, '.repeat(1000)}b FROM t`);
    assert.ok(out.length <= 501);
    assert.ok(out.endsWith('…'));
  });
});

describe('statementKind', () => {
  test('is the first keyword, after comments and parentheses', () => {
    assert.equal(statementKind('  select 1'), 'SELECT');
    assert.equal(statementKind('/* hi */ INSERT INTO t VALUES (1)'), 'INSERT');
    assert.equal(statementKind('(SELECT 1) UNION (SELECT 2)'), 'SELECT');
    assert.equal(statementKind(''), 'UNKNOWN');
  });
});

describe('sourcesIn', () => {
  test('finds qualifiers that are known sources, case-insensitively, plus the default db', () => {
    const known = ['files', 'PG', 'shop db'];
    assert.deepEqual(
      sourcesIn('SELECT o.id FROM pg.orders o JOIN `shop db`.public.c ON o.x = c.y', known, 'files'),
      ['PG', 'shop db', 'files'],
    );
  });

  test('ignores qualifiers inside strings and aliases that are not sources', () => {
    assert.deepEqual(sourcesIn("SELECT t.a FROM t WHERE t.b = 'pg.x'", ['pg']), []);
  });

  test("ignores qualifiers inside comments; reads past the masked text's end", () => {
    assert.deepEqual(sourcesIn('SELECT 1 FROM t -- pg.x\n /* my.y */', ['pg', 'my']), []);
    const long = `SELECT ${'a, '.repeat(400)} b FROM pg.t JOIN \`My\`.u`;
    assert.deepEqual(sourcesIn(long, ['pg', 'my']), ['pg', 'my']);
  });
});

describe('readStatement', () => {
  test('reads the kind, the masked text and the qualifiers in one pass', () => {
    assert.deepEqual(readStatement("/* c */ (select a.x, 'p.q' FROM Pg . t a WHERE id = 17) -- pg.z"), {
      kind: 'SELECT',
      masked: '(select a.x, ? FROM Pg . t a WHERE id = ?)',
      qualifiers: ['a', 'pg'],
    });
    assert.equal(readStatement("x'41'").kind, 'UNKNOWN');
    assert.equal(statementKind("x'41'"), 'UNKNOWN');
  });
});
