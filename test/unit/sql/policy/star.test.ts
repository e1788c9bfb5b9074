/** `SELECT *` without hidden columns (policy/star.ts), and SHOW GRANTS as parsed. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SqlStatement } from '../../../../src/sql/ast/nodes.js';
import { compile } from '../../../../src/sql/dialects/index.js';
import { parseStatement } from '../../../../src/sql/parse/index.js';
import { hasSelectStar, leaveOutHidden } from '../../../../src/sql/policy/star.js';

const COLUMNS: Record<string, string[]> = { tickets: ['id', 'region', 'SSN'], customers: ['id', 'name'] };

function ast(sql: string): SqlStatement {
  const s = parseStatement(sql, (n) => n === 'crm');
  assert.equal(s.kind, 'sql');
  return (s as { ast: SqlStatement }).ast;
}

async function expand(sql: string): Promise<{ changed: boolean; text: string }> {
  const tree = ast(sql);
  const changed = await leaveOutHidden(tree, {
    db: 'crm',
    user: 'agent-7',
    hidden: (t) => new Set(t.table === 'tickets' ? ['ssn'] : []),
    columns: async (t) => COLUMNS[t.table],
  });
  return { changed, text: compile(tree, 'mysql') };
}

describe('SELECT * leaves hidden columns out', () => {
  const cases: [string, string][] = [
    ['SELECT * FROM crm.tickets', 'SELECT `tickets`.`id`, `tickets`.`region` FROM'],
    ['SELECT t.* FROM crm.tickets t', 'SELECT `t`.`id`, `t`.`region` FROM'],
    [
      'SELECT *, 1 FROM crm.tickets JOIN crm.customers c ON c.id = tickets.id',
      'SELECT `tickets`.`id`, `tickets`.`region`, `c`.*, 1 FROM',
    ],
    ['SELECT c.* FROM crm.tickets JOIN crm.customers c ON c.id = tickets.id', 'SELECT `c`.* FROM'],
    ['SELECT id FROM (SELECT * FROM crm.tickets) x', '(SELECT `tickets`.`id`, `tickets`.`region` FROM'],
  ];
  for (const [sql, want] of cases)
    test(sql, async () => {
      const { text } = await expand(sql);
      assert.ok(text.includes(want), text);
      assert.ok(!/ssn/i.test(text), text);
    });

  test('nothing to do: no star, or a star over tables without hidden columns, or COUNT(*)', async () => {
    assert.equal(hasSelectStar(ast('SELECT COUNT(*) FROM crm.tickets')), false);
    assert.equal(hasSelectStar(ast('SELECT * FROM crm.customers')), true);
    assert.equal((await expand('SELECT * FROM crm.customers')).changed, false);
  });

  test('a * over a USING join that reaches a hidden column is 1143, naming it', async () => {
    await assert.rejects(
      expand('SELECT * FROM crm.tickets JOIN crm.customers USING (id)'),
      (e: Error & { code?: number }) => {
        assert.equal(e.code, 1143);
        assert.match(
          e.message,
          /^SELECT command denied to user 'agent-7' for column 'ssn' in table 'crm.tickets': name the columns/,
        );
        return true;
      },
    );
  });
});

describe('SHOW GRANTS parses', () => {
  const cases: [string, string | null][] = [
    ['SHOW GRANTS', null],
    ['show grants for current_user', null],
    ['SHOW GRANTS FOR CURRENT_USER()', null],
    ["SHOW GRANTS FOR 'ann'@'%'", 'ann'],
    ['SHOW GRANTS FOR ann', 'ann'],
  ];
  for (const [sql, user] of cases)
    test(sql, () =>
      assert.deepEqual(
        parseStatement(sql, () => false),
        { kind: 'show_grants', user },
      ),
    );
});
