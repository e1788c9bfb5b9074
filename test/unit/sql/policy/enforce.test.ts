/**
 * A statement against the policy: what it asks (access.ts) and the answer (enforce.ts),
 * MySQL's error and wording for each refusal. Pure: parsed text, no engine.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SqlError } from '../../../../src/core/errors.js';
import { parseStatement } from '../../../../src/sql/parse/index.js';
import { statementAccess } from '../../../../src/sql/policy/access.js';
import { authorize, PolicyDenied, viewOf } from '../../../../src/sql/policy/enforce.js';
import type { Principal } from '../../../../src/sql/policy/model.js';
import { POLICY, POLICY_UNFILTERED } from './fixture.js';

const SOURCES = new Set(['crm', 'erp', 'files']);
const KBS = new Set(['tickets_kb', 'hr_kb']);
const agent: Principal = { user: 'agent-7', groups: ['support'], admin: false };
const analyst: Principal = { user: 'ann', groups: ['analysts'], admin: false };
const finance: Principal = { user: 'finance-tool', groups: [], admin: false };
const admin: Principal = { user: 'root', groups: [], admin: true };

function check(p: Principal, sql: string, db?: string) {
  const stmt = parseStatement(sql, (n) => SOURCES.has(n.toLowerCase()));
  return authorize(POLICY_UNFILTERED, p, statementAccess(stmt, { db, isKb: (n) => KBS.has(n) }));
}

function denied(p: Principal, sql: string, code: number, message: string, rule: string, db?: string) {
  assert.throws(
    () => check(p, sql, db),
    (e: unknown) => {
      assert.ok(e instanceof PolicyDenied && e instanceof SqlError, String(e));
      assert.equal((e as SqlError).code, code);
      assert.equal((e as Error).message, message);
      assert.equal((e as PolicyDenied).rule, rule);
      return true;
    },
  );
}

describe('allowed statements name the rules that decided them', () => {
  const cases: [Principal, string, string[], number, string?][] = [
    [agent, 'SELECT id, email FROM crm.tickets WHERE region = 1', ['sources[0]', 'tables[0]'], 0],
    [agent, 'SELECT * FROM crm.tickets t', ['sources[0]', 'tables[0]'], 1],
    [agent, 'SELECT COUNT(*) FROM tickets', ['sources[0]', 'tables[0]'], 0, 'crm'],
    [agent, 'WITH x AS (SELECT id FROM crm.tickets) SELECT * FROM x', ['sources[0]', 'tables[0]'], 0],
    [agent, "SELECT * FROM tickets_kb WHERE content = 'refund'", ['knowledge_bases[0]'], 0],
    [agent, 'SELECT * FROM information_schema.tables', [], 0],
    [
      analyst,
      'SELECT c.name FROM crm.customers c JOIN erp.ledger l ON l.cid = c.id',
      ['sources[1]', 'tables[1]', 'tables[2]'],
      0,
    ],
    [finance, 'INSERT INTO erp.invoices (id, amount) VALUES (1, 2)', ['sources[2]', 'tables[3]'], 0],
    [finance, 'UPDATE erp.invoices SET amount = 3 WHERE id = 1', ['sources[2]', 'tables[3]'], 0],
    [
      finance,
      'INSERT INTO erp.ledger SELECT * FROM crm.tickets',
      ['sources[2]', 'tables[4]', 'sources[3]'],
      0,
    ],
    [finance, 'DELETE FROM erp.ledger WHERE id = 1', ['sources[2]', 'tables[4]'], 0],
    [finance, 'CREATE TABLE erp.summary AS SELECT 1 AS x', ['sources[2]', 'tables[4]'], 0],
    [finance, 'DROP DATABASE erp', ['sources[2]'], 0],
    [finance, 'CREATE KNOWLEDGE_BASE new_kb', ['knowledge_bases[1]'], 0],
    [admin, 'DROP DATABASE crm', [], 0],
    [agent, 'SHOW DATABASES', [], 0],
    [agent, 'USE crm', ['sources[0]'], 0],
    [agent, 'DESCRIBE crm.tickets', ['sources[0]', 'tables[0]'], 0],
  ];
  for (const [p, sql, rules, stars, db] of cases)
    test(`${p.user}: ${sql}`, () => {
      const a = check(p, sql, db);
      assert.deepEqual(a.rules, rules);
      assert.equal(a.hiddenStars, stars);
    });
});

describe('refusals: 1142 for a table, 1143 for a column, 1044 for a database', () => {
  const cases: [string, Principal, string, number, string, string, string?][] = [
    [
      'a table no rule grants',
      agent,
      'SELECT * FROM crm.customers',
      1142,
      "SELECT command denied to user 'agent-7' for table 'crm.customers'",
      'sources[0]',
    ],
    [
      'a source no rule grants',
      agent,
      'SELECT * FROM erp.ledger',
      1142,
      "SELECT command denied to user 'agent-7' for table 'erp.ledger'",
      'no-match',
    ],
    [
      'a denied table inside a subquery',
      agent,
      'SELECT id FROM crm.tickets WHERE id IN (SELECT tid FROM erp.ledger)',
      1142,
      "SELECT command denied to user 'agent-7' for table 'erp.ledger'",
      'no-match',
    ],
    [
      'a denied table in a UNION',
      agent,
      'SELECT id FROM crm.tickets UNION SELECT id FROM crm.customers',
      1142,
      "SELECT command denied to user 'agent-7' for table 'crm.customers'",
      'sources[0]',
    ],
    [
      'a denied table in a CTE',
      agent,
      'WITH c AS (SELECT * FROM crm.customers) SELECT * FROM c',
      1142,
      "SELECT command denied to user 'agent-7' for table 'crm.customers'",
      'sources[0]',
    ],
    [
      'a write with SELECT only',
      agent,
      'INSERT INTO crm.tickets (id) VALUES (1)',
      1142,
      "INSERT command denied to user 'agent-7' for table 'crm.tickets'",
      'tables[0]',
    ],
    [
      'a delete with SELECT only',
      agent,
      'DELETE FROM crm.tickets',
      1142,
      "DELETE command denied to user 'agent-7' for table 'crm.tickets'",
      'tables[0]',
    ],
    [
      'an update of a table granted INSERT only elsewhere',
      finance,
      'UPDATE erp.ledger SET x = 1',
      1142,
      "UPDATE command denied to user 'finance-tool' for table 'erp.ledger'",
      'tables[4]',
    ],
    [
      'a write where the source is read',
      finance,
      'DELETE FROM crm.tickets',
      1142,
      "DELETE command denied to user 'finance-tool' for table 'crm.tickets'",
      'tables[4]',
    ],
    [
      'a hidden column in the select list',
      agent,
      'SELECT ssn FROM crm.tickets',
      1143,
      "SELECT command denied to user 'agent-7' for column 'ssn' in table 'crm.tickets'",
      'tables[0]',
    ],
    [
      'a hidden column through an alias',
      agent,
      'SELECT t.SSN FROM crm.tickets t',
      1143,
      "SELECT command denied to user 'agent-7' for column 'ssn' in table 'crm.tickets'",
      'tables[0]',
    ],
    [
      'a hidden column in WHERE',
      agent,
      "SELECT id FROM crm.tickets WHERE ssn LIKE '1%'",
      1143,
      "SELECT command denied to user 'agent-7' for column 'ssn' in table 'crm.tickets'",
      'tables[0]',
    ],
    [
      'a hidden column in ORDER BY',
      agent,
      'SELECT id FROM crm.tickets ORDER BY ssn',
      1143,
      "SELECT command denied to user 'agent-7' for column 'ssn' in table 'crm.tickets'",
      'tables[0]',
    ],
    [
      'a hidden column in a subquery',
      agent,
      'SELECT (SELECT MAX(ssn) FROM crm.tickets) AS m',
      1143,
      "SELECT command denied to user 'agent-7' for column 'ssn' in table 'crm.tickets'",
      'tables[0]',
    ],
    [
      'a hidden column as a USING key',
      agent,
      'SELECT id FROM crm.tickets JOIN files.x USING (ssn)',
      1143,
      "SELECT command denied to user 'agent-7' for column 'ssn' in table 'crm.tickets'",
      'tables[0]',
    ],
    [
      'a NATURAL join that may compare a hidden column',
      agent,
      'SELECT id FROM crm.tickets NATURAL JOIN crm.tickets t2',
      1143,
      "SELECT command denied to user 'agent-7' for column 'ssn' in table 'crm.tickets'",
      'tables[0]',
    ],
    [
      'a KB without a rule',
      agent,
      "SELECT * FROM hr_kb WHERE content = 'x'",
      1142,
      "SELECT command denied to user 'agent-7' for table 'hr_kb'",
      'no-match',
    ],
    [
      'a KB DDL',
      agent,
      'DROP KNOWLEDGE_BASE tickets_kb',
      1142,
      "CREATE command denied to user 'agent-7' for table 'tickets_kb'",
      'knowledge_bases[0]',
    ],
    [
      'CREATE DATABASE without allow all',
      agent,
      'CREATE DATABASE crm2 WITH ENGINE = \'sqlite\', PARAMETERS = {"path": "x"}',
      1044,
      "Access denied for user 'agent-7' to database 'crm2'",
      'no-match',
    ],
    [
      'DROP DATABASE of a read source',
      agent,
      'DROP DATABASE crm',
      1044,
      "Access denied for user 'agent-7' to database 'crm'",
      'sources[0]',
    ],
    [
      'USE of a source it may not read',
      agent,
      'USE erp',
      1044,
      "Access denied for user 'agent-7' to database 'erp'",
      'no-match',
    ],
    [
      'DROP TABLE without OWNERSHIP',
      analyst,
      'DROP TABLE crm.customers',
      1142,
      "DROP command denied to user 'ann' for table 'crm.customers'",
      'tables[1]',
    ],
    [
      'DESCRIBE of a table it may not read',
      agent,
      'DESCRIBE crm.customers',
      1142,
      "SELECT command denied to user 'agent-7' for table 'crm.customers'",
      'sources[0]',
    ],
    [
      'EXPLAIN of a denied read',
      agent,
      'EXPLAIN SELECT * FROM crm.customers',
      1142,
      "SELECT command denied to user 'agent-7' for table 'crm.customers'",
      'sources[0]',
    ],
    [
      'an unqualified table in the default database',
      agent,
      'SELECT * FROM customers',
      1142,
      "SELECT command denied to user 'agent-7' for table 'crm.customers'",
      'sources[0]',
      'crm',
    ],
    [
      'a three-part name',
      agent,
      'SELECT * FROM files.x.y',
      1142,
      "SELECT command denied to user 'agent-7' for table 'files.y'",
      'sources[0]',
    ],
  ];
  for (const [what, p, sql, code, message, rule, db] of cases)
    test(what, () => denied(p, sql, code, message, rule, db));

  test('a user name with a quote is quoted in the message', () => {
    denied(
      { user: "o'neil", groups: [], admin: false },
      'SELECT 1 FROM crm.t',
      1142,
      "SELECT command denied to user 'o''neil' for table 'crm.t'",
      'no-match',
    );
  });

  test('the admin is never refused', () => {
    check(admin, 'SELECT ssn FROM crm.tickets JOIN erp.secret');
    check(admin, 'DROP DATABASE erp');
  });
});

describe('UPDATE and DELETE that read the target need SELECT too (MySQL)', () => {
  const cleaner: Principal = { user: 'cleaner', groups: [], admin: false };
  test('without reading columns: the write privilege alone', () => {
    assert.deepEqual(check(cleaner, 'DELETE FROM erp.trash').rules, ['sources[5]', 'tables[5]']);
    assert.deepEqual(check(cleaner, 'UPDATE erp.trash SET flag = 1').rules, ['sources[5]', 'tables[5]']);
  });
  test('reading them (WHERE, SET x = y) is 1142 SELECT', () => {
    for (const sql of ['DELETE FROM erp.trash WHERE secret = 1', 'UPDATE erp.trash SET a = b'])
      denied(
        cleaner,
        sql,
        1142,
        "SELECT command denied to user 'cleaner' for table 'erp.trash'",
        'tables[5]',
      );
  });
});

describe('filters and masks: reads are rewritten, changes refused', () => {
  test('a read of a table whose rule filters or masks counts as a rewrite; a change through it is 1235', () => {
    const check = (p: Principal, sql: string) =>
      authorize(
        POLICY,
        p,
        statementAccess(
          parseStatement(sql, (n) => SOURCES.has(n)),
          { db: undefined },
        ),
      );
    for (const [p, sql, rule] of [
      [agent, 'SELECT id FROM crm.tickets', 'tables[0]'],
      [analyst, 'SELECT name FROM crm.customers', 'tables[1]'],
    ] as const) {
      const a = check(p, sql);
      assert.equal(a.rewrites, 1, sql);
      assert.ok(a.rules.includes(rule), JSON.stringify(a.rules));
    }
    // A rule without either is unaffected.
    const plain = check(analyst, 'SELECT 1 FROM erp.ledger');
    assert.deepEqual(plain.rules, ['sources[1]', 'tables[2]']);
    assert.equal(plain.rewrites, 0);
  });
});

describe('the view of listings', () => {
  test('sources, tables and columns that do not exist for a principal', () => {
    const v = viewOf(POLICY_UNFILTERED, agent)!;
    assert.deepEqual(
      ['crm', 'erp', 'files'].filter((s) => v.seesSource(s)),
      ['crm', 'files'],
    );
    assert.equal(v.seesTable('crm', null, 'tickets'), true);
    assert.equal(v.seesTable('crm', null, 'customers'), false);
    assert.deepEqual(
      v
        .visibleColumns('crm', null, 'tickets', [{ name: 'id' }, { name: 'SSN' }, { name: 'email' }])
        .map((c) => c.name),
      ['id', 'email'],
    );
    assert.deepEqual(v.visibleColumns('crm', null, 'customers', [{ name: 'id' }]), []);
    assert.equal(v.seesKb('tickets_kb'), true);
    assert.equal(v.seesKb('hr_kb'), false);
  });

  test('no policy, no principal or the admin: everything (null view)', () => {
    assert.equal(viewOf(null, agent), null);
    assert.equal(viewOf(POLICY, undefined), null);
    assert.equal(viewOf(POLICY, admin), null);
  });
});
