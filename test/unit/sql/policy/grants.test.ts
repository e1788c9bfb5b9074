import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SqlError } from '../../../../src/core/errors.js';
import { grantLines, grantRows } from '../../../../src/sql/policy/grants.js';
import { POLICY } from './fixture.js';

describe("SHOW GRANTS: the caller's rules as GRANT lines", () => {
  test('a support agent: its source rule, table rule with filter, mask and hidden column, KB rule', () => {
    assert.deepEqual(grantLines(POLICY, { user: 'agent-7', groups: ['support'], admin: false }), [
      "GRANT SELECT ON 'crm|files'.* TO 'agent-7' /* sources[0]: allow read */",
      "GRANT SELECT ON 'crm'.'tickets' TO 'agent-7' /* tables[0]; filter: region = 'EU' AND assignee = CURRENT_USER(); mask email: CONCAT(LEFT(email, 2), '***'); hidden: ssn */",
      "GRANT SELECT ON KNOWLEDGE_BASE 'tickets_kb' TO 'agent-7' /* knowledge_bases[0] */",
    ]);
  });

  test('a tool that may write: ALL PRIVILEGES where the source allows all', () => {
    const lines = grantLines(POLICY, { user: 'finance-tool', groups: [], admin: false });
    assert.equal(lines[0], "GRANT ALL PRIVILEGES ON 'erp'.* TO 'finance-tool' /* sources[2]: allow all */");
    assert.ok(
      lines.includes("GRANT SELECT, INSERT, UPDATE ON 'erp'.'invoices' TO 'finance-tool' /* tables[3] */"),
    );
  });

  test('allow none is a REVOKE; nobody matched is USAGE only', () => {
    assert.deepEqual(grantLines(POLICY, { user: 'blocked', groups: [], admin: false }), [
      "REVOKE ALL PRIVILEGES ON '.*'.* FROM 'blocked' /* sources[4]: allow none */",
    ]);
    assert.deepEqual(grantLines(POLICY, { user: 'nobody', groups: [], admin: false }), [
      "GRANT USAGE ON *.* TO 'nobody' /* no rule matches: no access */",
    ]);
  });

  test('the admin, and everyone without a policy, may do everything', () => {
    assert.deepEqual(grantLines(POLICY, { user: 'root', groups: [], admin: true }), [
      "GRANT ALL PRIVILEGES ON *.* TO 'root'",
    ]);
    assert.deepEqual(grantLines(null, { user: 'x', groups: [], admin: false }), [
      "GRANT ALL PRIVILEGES ON *.* TO 'x'",
    ]);
  });

  test('the result is one column named for the user; FOR another user is refused', () => {
    const t = grantRows(POLICY, { user: 'ann', groups: ['analysts'], admin: false }, 'ann');
    assert.deepEqual(
      t.columns.map((c) => c.name),
      ['Grants for ann'],
    );
    assert.equal(grantRows(null, undefined, null).columns[0].name, 'Grants for local');
    assert.throws(
      () => grantRows(POLICY, { user: 'ann', groups: [], admin: false }, 'root'),
      (e: unknown) => (e as SqlError).code === 1044,
    );
    assert.throws(
      () => grantRows(POLICY, { user: 'root', groups: [], admin: true }, 'ann'),
      (e: unknown) => (e as SqlError).code === 1235,
    );
  });
});
