/**
 * The policy's decisions as tables: (principal, object) → what the first matching rule
 * says. Pure: no engine, no file.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Expr } from '../../../../src/sql/ast/nodes.js';
import { compilerFor } from '../../../../src/sql/dialects/index.js';
import {
  decideKb,
  decideSource,
  decideTable,
  filterFor,
  hiddenColumns,
  masksFor,
} from '../../../../src/sql/policy/decide.js';
import { PolicyGate } from '../../../../src/sql/policy/gate.js';
import type { Principal } from '../../../../src/sql/policy/model.js';
import { POLICY } from './fixture.js';

const compile = (e: Expr, target: 'mysql') => compilerFor(target).expr(e);

const who = (user: string, groups: string[] = [], admin = false): Principal => ({ user, groups, admin });
const agent = who('agent-7', ['support']);
const analyst = who('ann', ['analysts', 'staff']);
const finance = who('finance-tool');
const admin = who('root', [], true);

describe('sources: the first matching rule decides, no match is none', () => {
  const cases: [Principal, string, string, string | null][] = [
    [agent, 'crm', 'read', 'sources[0]'],
    [agent, 'CRM', 'read', 'sources[0]'],
    [agent, 'files', 'read', 'sources[0]'],
    [agent, 'erp', 'none', null],
    [agent, 'crm_archive', 'none', null],
    [who('agent-7', ['sales']), 'crm', 'none', null],
    [who('bot', ['support']), 'crm', 'none', null],
    [analyst, 'erp', 'read', 'sources[1]'],
    [finance, 'erp', 'all', 'sources[2]'],
    [finance, 'crm', 'read', 'sources[3]'],
    [finance, 'files', 'none', null],
    [who('blocked', ['analysts']), 'crm', 'read', 'sources[1]'],
    [admin, 'anything', 'all', null],
  ];
  for (const [p, source, allow, rule] of cases)
    test(`${p.user} [${p.groups}] on ${source}: ${allow}`, () => {
      assert.deepEqual(decideSource(POLICY, p, source), { allow, rule });
    });
});

describe('tables: privileges of the first matching rule, narrowed by the source', () => {
  const cases: [Principal, string, string, string[], string | null][] = [
    [agent, 'crm', 'tickets', ['SELECT'], 'tables[0]'],
    [agent, 'crm', 'customers', [], null],
    [agent, 'files', 'tickets', [], null],
    [agent, 'erp', 'tickets', [], null],
    [analyst, 'crm', 'customers', ['SELECT'], 'tables[1]'],
    [analyst, 'erp', 'ledger', ['SELECT'], 'tables[2]'],
    [finance, 'erp', 'invoices', ['SELECT', 'INSERT', 'UPDATE'], 'tables[3]'],
    [finance, 'erp', 'ledger', ['SELECT', 'INSERT', 'DELETE', 'OWNERSHIP'], 'tables[4]'],
    // crm is `read` for the finance tool: its rule's writes do not count there.
    [finance, 'crm', 'tickets', ['SELECT'], 'tables[4]'],
    [finance, 'files', 'x', [], null],
    [admin, 'erp', 'ledger', ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'OWNERSHIP'], null],
  ];
  for (const [p, source, table, privileges, rule] of cases)
    test(`${p.user} on ${source}.${table}: ${privileges.join(',') || 'nothing'}`, () => {
      const d = decideTable(POLICY, p, { source, schema: null, table });
      assert.deepEqual([...d.privileges].sort(), [...privileges].sort());
      assert.equal(d.rule?.id ?? null, rule);
    });
});

describe('columns, filters and masks', () => {
  test('hidden columns of the deciding rule only', () => {
    assert.deepEqual(
      [...hiddenColumns(decideTable(POLICY, agent, { source: 'crm', schema: null, table: 'tickets' }))],
      ['ssn'],
    );
    assert.deepEqual(
      [...hiddenColumns(decideTable(POLICY, analyst, { source: 'crm', schema: null, table: 'tickets' }))],
      [],
    );
    assert.deepEqual(
      [...hiddenColumns(decideTable(POLICY, admin, { source: 'crm', schema: null, table: 'tickets' }))],
      [],
    );
  });

  test('the filter names its rule and has CURRENT_USER() bound to the principal', () => {
    const f = filterFor(POLICY, agent, { source: 'crm', schema: null, table: 'tickets' });
    assert.equal(f?.rule, 'tables[0]');
    assert.equal(compile(f!.value, 'mysql'), "(`region` = 'EU') AND (`assignee` = 'agent-7')");
    assert.equal(filterFor(POLICY, analyst, { source: 'crm', schema: null, table: 'tickets' }), null);
    assert.equal(filterFor(POLICY, admin, { source: 'crm', schema: null, table: 'tickets' }), null);
  });

  test('a principal name with a quote stays a string literal', () => {
    const f = filterFor(POLICY, who("agent-o'brien", ['support']), {
      source: 'crm',
      schema: null,
      table: 'tickets',
    });
    assert.match(compile(f!.value, 'mysql'), /'agent-o\\'brien'|'agent-o''brien'/);
  });

  test('masks name their column and rule', () => {
    const m = masksFor(POLICY, analyst, { source: 'crm', schema: null, table: 'contacts' });
    assert.deepEqual(
      m.map((x) => [x.column, x.rule, compile(x.expr, 'mysql')]),
      [['email', 'tables[1]', "'***'"]],
    );
    assert.deepEqual(masksFor(POLICY, admin, { source: 'crm', schema: null, table: 'contacts' }), []);
  });
});

describe('knowledge bases', () => {
  const cases: [Principal, string, string[], string | null][] = [
    [agent, 'tickets_kb', ['SELECT'], 'knowledge_bases[0]'],
    [agent, 'hr_kb', [], null],
    [analyst, 'tickets_kb', [], null],
    [finance, 'any_kb', ['SELECT', 'INSERT', 'OWNERSHIP'], 'knowledge_bases[1]'],
  ];
  for (const [p, name, privileges, rule] of cases)
    test(`${p.user} on ${name}`, () => {
      const d = decideKb(POLICY, p, name);
      assert.deepEqual([...d.privileges].sort(), [...privileges].sort());
      assert.equal(d.rule, rule);
    });
});

describe("the gate hands the planner filters and masks for the statement's principal", () => {
  const gate = new PolicyGate(
    { current: () => POLICY },
    { defaultSchemaNow: () => null, defaultSchema: async () => null, isKb: () => false },
  );
  const t = { source: 'crm', schema: null, table: 'tickets' };

  test("bound principal: the rule's filter and masks, each with its rule", () => {
    assert.equal(gate.filterFor({ principal: agent }, t)?.rule, 'tables[0]');
    assert.deepEqual(
      gate.masksFor({ principal: agent }, t).map((m) => [m.column, m.rule]),
      [['email', 'tables[0]']],
    );
  });

  test('the admin, `local` (no principal) and no policy: none', () => {
    assert.equal(gate.filterFor({ principal: admin }, t), null);
    assert.equal(gate.filterFor({}, t), null);
    assert.deepEqual(gate.masksFor({}, t), []);
    const off = new PolicyGate(undefined, {
      defaultSchemaNow: () => null,
      defaultSchema: async () => null,
      isKb: () => false,
    });
    assert.equal(off.filterFor({ principal: agent }, t), null);
  });
});
