import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PolicyError, parsePolicy } from '../../../../src/sql/policy/load.js';

const refused = (file: unknown, message: RegExp) =>
  assert.throws(
    () => parsePolicy(JSON.stringify(file)),
    (e: unknown) => {
      assert.ok(e instanceof PolicyError, String(e));
      assert.match((e as Error).message, message);
      return true;
    },
  );

describe('policy file: the shape of SPEC section 12', () => {
  test('the SPEC example loads: rules in order, regexes, privileges, filter, mask, hidden column', () => {
    const p = parsePolicy(
      JSON.stringify({
        sources: [{ user: 'agent-.*', group: 'support', source: 'crm|files', allow: 'read' }],
        tables: [
          {
            group: 'support',
            source: 'crm',
            table: 'tickets',
            privileges: ['SELECT'],
            filter: "region = 'EU' AND deleted_at IS NULL",
            columns: [
              { name: 'email', mask: "CONCAT(LEFT(email, 2), '***')" },
              { name: 'ssn', allow: false },
            ],
          },
        ],
        knowledge_bases: [{ group: 'support', name: 'tickets_kb', privileges: ['SELECT'] }],
      }),
    );
    assert.equal(p.sources[0].id, 'sources[0]');
    assert.equal(p.sources[0].allow, 'read');
    const t = p.tables[0];
    assert.equal(t.id, 'tables[0]');
    assert.deepEqual([...t.privileges], ['SELECT']);
    assert.equal(t.filter?.type, 'binary_expr');
    assert.equal(t.columns.get('email')?.mask?.type, 'function');
    assert.equal(t.columns.get('ssn')?.allow, false);
    assert.equal(p.knowledgeBases[0].id, 'knowledge_bases[0]');
  });

  test('regexes match whole names (Trino): crm is not crm_archive; object names ignore case, users do not', () => {
    const p = parsePolicy(JSON.stringify({ sources: [{ user: 'ann', source: 'crm', allow: 'all' }] }));
    const r = p.sources[0];
    assert.equal(r.source?.test('crm'), true);
    assert.equal(r.source?.test('CRM'), true);
    assert.equal(r.source?.test('crm_archive'), false);
    assert.equal(r.source?.test('old_crm'), false);
    assert.equal(r.user?.test('ann'), true);
    assert.equal(r.user?.test('Ann'), false);
    assert.equal(r.user?.test('joanne'), false);
  });

  test('an empty file section means no rules (no access)', () => {
    const p = parsePolicy('{}');
    assert.deepEqual([p.sources, p.tables, p.knowledgeBases], [[], [], []]);
  });

  const bad: [string, unknown, RegExp][] = [
    ['not JSON', undefined, /^not valid JSON/],
    ['an unknown top-level key', { rules: [] }, /^\(file\): unknown key 'rules'/],
    [
      'an unknown rule key',
      { tables: [{ privileges: [], filters: 'x' }] },
      /^tables\[0\]: unknown key 'filters'/,
    ],
    [
      'a bad allow',
      { sources: [{ allow: 'read-only' }] },
      /^sources\[0\]\.allow: expected one of all, read, none/,
    ],
    [
      'a bad privilege',
      { tables: [{}, { privileges: ['SELECT', 'GRANT'] }] },
      /^tables\[0\]\.privileges|^tables\[1\]\.privileges\[1\]/,
    ],
    [
      'a bad regex',
      { sources: [{ source: 'crm(', allow: 'all' }] },
      /^sources\[0\]\.source: not a valid regular expression/,
    ],
    [
      'a filter that does not parse',
      {
        tables: [
          { privileges: ['SELECT'] },
          { privileges: ['SELECT'] },
          { privileges: ['SELECT'], filter: 'region = = 1' },
        ],
      },
      /^tables\[2\]\.filter: .*syntax/i,
    ],
    [
      'a filter with a subquery',
      { tables: [{ privileges: ['SELECT'], filter: 'id IN (SELECT id FROM crm.vip)' }] },
      /^tables\[0\]\.filter: a subquery is not allowed/,
    ],
    [
      'a filter that escapes its parenthesis',
      { tables: [{ privileges: ['SELECT'], filter: '1) UNION SELECT (1' }] },
      /^tables\[0\]\.filter: /,
    ],
    [
      'a filter with a comment eating the close',
      { tables: [{ privileges: ['SELECT'], filter: '1=1 -- ' }] },
      /^tables\[0\]\.filter: /,
    ],
    [
      'a filter naming another table',
      { tables: [{ privileges: ['SELECT'], filter: 'other.region = 1' }] },
      /^tables\[0\]\.filter: write columns unqualified/,
    ],
    [
      'a filter with an aggregate',
      { tables: [{ privileges: ['SELECT'], filter: 'COUNT(*) > 1' }] },
      /^tables\[0\]\.filter: an aggregate/,
    ],
    [
      'a filter with a variable',
      { tables: [{ privileges: ['SELECT'], filter: 'id = @x' }] },
      /^tables\[0\]\.filter: a variable/,
    ],
    [
      'a mask of two expressions',
      { tables: [{ privileges: ['SELECT'], columns: [{ name: 'e', mask: "'a', 'b'" }] }] },
      /^tables\[0\]\.columns\[0\]\.mask: /,
    ],
    [
      'a mask reading another table',
      {
        tables: [{ privileges: ['SELECT'], columns: [{ name: 'e', mask: 'e) FROM crm.secrets WHERE (1' }] }],
      },
      /^tables\[0\]\.columns\[0\]\.mask: /,
    ],
    [
      'a mask with a window',
      { tables: [{ privileges: ['SELECT'], columns: [{ name: 'e', mask: 'ROW_NUMBER() OVER ()' }] }] },
      /^tables\[0\]\.columns\[0\]\.mask: /,
    ],
    [
      'a masked hidden column',
      { tables: [{ privileges: ['SELECT'], columns: [{ name: 'e', allow: false, mask: "'x'" }] }] },
      /^tables\[0\]\.columns\[0\]: a hidden column/,
    ],
    [
      'a column named twice',
      { tables: [{ privileges: ['SELECT'], columns: [{ name: 'e' }, { name: 'E' }] }] },
      /^tables\[0\]\.columns\[1\]\.name: column 'E' is named twice/,
    ],
  ];
  for (const [what, file, message] of bad)
    test(`refused, naming the rule: ${what}`, () => {
      if (file === undefined)
        assert.throws(
          () => parsePolicy('{"sources": ['),
          (e: unknown) => message.test((e as Error).message),
        );
      else refused(file, message);
    });

  test('CURRENT_USER() and CURRENT_GROUPS() are allowed in filters', () => {
    const p = parsePolicy(
      JSON.stringify({
        tables: [
          { privileges: ['SELECT'], filter: 'owner = CURRENT_USER() OR FIND_IN_SET(team, CURRENT_GROUPS())' },
        ],
      }),
    );
    assert.ok(p.tables[0].filter);
  });
});
