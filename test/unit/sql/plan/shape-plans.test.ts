import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ColumnInfo } from '../../../../src/core/types.js';
import type { Source } from '../../../../src/sources/types.js';
import type { Statement } from '../../../../src/sql/parse/index.js';
import { type Shape, StatementTemplates, shapeOf } from '../../../../src/sql/parse/templates.js';
import { bindTables } from '../../../../src/sql/plan/bind.js';
import { type Plan, planQuery } from '../../../../src/sql/plan/planner.js';
import {
  learnShapePlan,
  type ShapePlan,
  ShapePlans,
  shapePlanFor,
} from '../../../../src/sql/plan/shape-plans.js';
import { cutAtMarkers, fillableSlot, fillSlots, valueClass } from '../../../../src/sql/plan/shape-slots.js';

/** A parse that must have run inline (every statement here is short). */
function parsedNow(s: Statement | Promise<Statement>): Statement {
  if (s instanceof Promise) throw new Error('expected an inline parse');
  return s;
}

const isSource = (n: string) => ['pg', 'my'].includes(n.toLowerCase());
const col = (name: string, type: ColumnInfo['type']): ColumnInfo => ({
  name,
  type,
  nativeType: type.toLowerCase(),
  nullable: true,
});
const COLS = [col('id', 'INT'), col('name', 'VARCHAR'), col('flag', 'BOOLEAN'), col('at', 'DATETIME')];
const fakeSource = (name: string, dialect: 'postgres' | 'mysql') =>
  ({ name, dialect, engine: dialect, capabilities: { fullStatements: true } }) as unknown as Source;
const SOURCES = { pg: fakeSource('pg', 'postgres'), my: fakeSource('my', 'mysql') };

function planOf(ast: any): Promise<Plan> {
  return planQuery(ast, bindTables(ast, {}), {
    source: async (n) => SOURCES[n.toLowerCase() as 'pg' | 'my'],
    columns: async () => COLS,
  });
}

/** Plans `sql` the normal way and learns its shape's plan, as the engine does on a miss. */
async function learn(
  sql: string,
  planAst: (ast: any) => Promise<Plan> = planOf,
): Promise<{ learned: ShapePlan | null; plan: Plan; shape: Shape }> {
  const templates = new StatementTemplates();
  const shape = shapeOf(sql)!;
  const stmt = parsedNow(templates.parse(sql, isSource, '', shape));
  if (stmt.kind !== 'sql') throw new Error('expected sql');
  const plan = await planOf(structuredClone(stmt.ast));
  const template = templates.template(shape);
  if (!template) return { learned: null, plan, shape };
  const learned = await learnShapePlan({ shape, template, plan, labels: stmt.labels ?? null, planAst });
  return { learned, plan, shape };
}

/** The real compile of `sql`, for comparison with a filled-in shape plan. */
async function compiled(sql: string): Promise<string> {
  const templates = new StatementTemplates();
  const stmt = parsedNow(templates.parse(sql, isSource));
  if (stmt.kind !== 'sql') throw new Error('expected sql');
  const p = await planOf(stmt.ast);
  assert.equal(p.kind, 'pushdown');
  return (p as { sql: string }).sql;
}

/** Learns the first statement's shape, then checks every statement fills in to its own compile. */
async function shares(sqls: string[]): Promise<void> {
  const { learned } = await learn(sqls[0]);
  assert.ok(learned, `${sqls[0]} is shared`);
  for (const sql of sqls) {
    const p = shapePlanFor(learned, shapeOf(sql)!);
    assert.equal(p.kind === 'pushdown' && p.sql, await compiled(sql), sql);
  }
}

async function refused(sql: string): Promise<void> {
  const { learned } = await learn(sql);
  assert.equal(learned, null, sql);
}

describe('shape plans', () => {
  test('point lookups, ranges, IN lists and LIMIT fill in to exactly what they compile to', async () => {
    await shares([
      'SELECT id, name FROM pg.t WHERE id = 17',
      'SELECT id, name FROM pg.t WHERE id = 18',
      'SELECT id, name FROM pg.t WHERE id = 999999',
    ]);
    await shares([
      'SELECT id FROM pg.t WHERE id BETWEEN 17 AND 1016',
      'SELECT id FROM pg.t WHERE id BETWEEN 2 AND 3',
    ]);
    await shares(['SELECT id FROM pg.t WHERE id IN (4, 5, 6)', 'SELECT id FROM pg.t WHERE id IN (7, 8, 9)']);
    await shares(['SELECT id FROM pg.t WHERE id > 5 LIMIT 10', 'SELECT id FROM pg.t WHERE id > 6 LIMIT 20']);
    // `LIMIT o, n` becomes `LIMIT n OFFSET o`: slots are filled in text order of the output.
    await shares(['SELECT id FROM pg.t LIMIT 30, 10', 'SELECT id FROM pg.t LIMIT 40, 20']);
    await shares([
      'SELECT id FROM my.t WHERE id = 3 AND NOT (id IN (4, 5)) LIMIT 2, 3',
      'SELECT id FROM my.t WHERE id = 8 AND NOT (id IN (9, 10)) LIMIT 11, 12',
    ]);
    await shares([
      "SELECT id FROM pg.t WHERE name = 'bob' AND id < 9",
      "SELECT id FROM pg.t WHERE name = 'bob' AND id < 10",
    ]);
  });

  test('a boolean column compared with 0 and with 1', async () => {
    await shares([
      'SELECT id FROM pg.t WHERE flag = 1 AND id > 7',
      'SELECT id FROM pg.t WHERE flag = 1 AND id > 8',
    ]);
    await shares(['SELECT id FROM pg.t WHERE flag = 0', 'SELECT id FROM pg.t WHERE flag = 0']);
  });

  test('0, 1, 32-bit and bigger integers are verified as separate classes', () => {
    assert.deepEqual(
      ['0', '1', '2', '10', '2147483647', '2147483648', '9999999999', '99999999999'].map(valueClass),
      ['0', '1', 'n', 'n', 'n', 'b', 'b', 'b'],
    );
    const plans = new ShapePlans(10, 60_000);
    const key = (sql: string) => plans.key(shapeOf(sql)!, undefined);
    assert.equal(key('SELECT id FROM pg.t WHERE id = 5'), key('SELECT id FROM pg.t WHERE id = 6'));
    assert.notEqual(key('SELECT id FROM pg.t WHERE id = 0'), key('SELECT id FROM pg.t WHERE id = 5'));
    assert.notEqual(key('SELECT id FROM pg.t WHERE id = 1'), key('SELECT id FROM pg.t WHERE id = 0'));
    assert.notEqual(
      key('SELECT id FROM pg.t WHERE id = 3000000000'),
      key('SELECT id FROM pg.t WHERE id = 5'),
    );
    // Strings are part of the key, the default database too; no integer, no key.
    assert.notEqual(
      key("SELECT id FROM pg.t WHERE name = 'a' AND id = 5"),
      key("SELECT id FROM pg.t WHERE name = 'b' AND id = 5"),
    );
    assert.notEqual(
      plans.key(shapeOf('SELECT id FROM t WHERE id = 5')!, 'pg'),
      plans.key(shapeOf('SELECT id FROM t WHERE id = 5')!, 'my'),
    );
    assert.equal(key("SELECT id FROM pg.t WHERE name = 'a'"), null);
  });

  test('slots whose value a compiler reads are refused', async () => {
    // ORDER BY 1 names a select item: it stays in the shape's text, so the WHERE slot is shared.
    await shares([
      'SELECT id FROM pg.t WHERE id > 3 ORDER BY 1',
      'SELECT id FROM pg.t WHERE id > 4 ORDER BY 1',
    ]);
    await refused('SELECT id FROM pg.t WHERE id > 3 ORDER BY id + 1');
    await shares([
      'SELECT name, COUNT(*) FROM pg.t WHERE id > 3 GROUP BY 1',
      'SELECT name, COUNT(*) FROM pg.t WHERE id > 9 GROUP BY 1',
    ]);
    await refused('SELECT name, COUNT(*) FROM pg.t WHERE id > 3 GROUP BY name, 1 + 1');
    await refused('SELECT id + 1 FROM pg.t WHERE id = 3');
    await refused('SELECT 5 AS x, id FROM pg.t WHERE id = 3');
    await refused('SELECT id FROM pg.t WHERE SUBSTRING(name, 2) = name');
    await refused('SELECT id FROM pg.t WHERE ROUND(id, 2) = 3');
    await refused('SELECT id FROM pg.t WHERE at > NOW() - INTERVAL 5 DAY');
    await refused('SELECT id FROM pg.t WHERE 5');
    await refused('SELECT id FROM pg.t WHERE id = 5 + 1');
    await refused('SELECT id FROM pg.t WHERE id IN (SELECT id FROM pg.t WHERE id > 4)');
    // A later UNION member's WHERE is a WHERE too.
    await shares([
      'SELECT id FROM pg.t WHERE id = 5 UNION SELECT id FROM pg.t WHERE id = 6',
      'SELECT id FROM pg.t WHERE id = 7 UNION SELECT id FROM pg.t WHERE id = 8',
    ]);
  });

  test('where a slot lands is checked on the template AST', () => {
    const templates = new StatementTemplates();
    const slots = (sql: string) => {
      const shape = shapeOf(sql)!;
      templates.parse(sql, isSource, '', shape);
      const tpl = templates.template(shape)!;
      return shape.slots.map((l, i) => l.kind === 'n' && fillableSlot(tpl.ast, tpl.paths[i]));
    };
    assert.deepEqual(slots('SELECT id FROM pg.t WHERE id = 1 OR (id BETWEEN 2 AND 3 AND 4 < id) LIMIT 5'), [
      true,
      true,
      true,
      true,
      true,
    ]);
    // ORDER BY 1 is not a slot (a select item's position).
    assert.deepEqual(slots('SELECT id, 7 FROM pg.t WHERE id IN (8, id + 9) ORDER BY 1'), [
      false,
      true,
      false,
    ]);
  });

  test('a marker that vanishes, repeats or lands in a string is refused', async () => {
    const sql = 'SELECT id FROM pg.t WHERE id = 17';
    const rewrite = (f: (s: string) => string) => async (ast: any) => {
      const p = await planOf(ast);
      return p.kind === 'pushdown' ? { ...p, sql: f(p.sql) } : p;
    };
    assert.ok((await learn(sql)).learned);
    assert.equal(
      (
        await learn(
          sql,
          rewrite((s) => s.replace(/\d{12}/, 'TRUE')),
        )
      ).learned,
      null,
    );
    assert.equal(
      (
        await learn(
          sql,
          rewrite((s) => `${s} OR id = ${/\d{12}/.exec(s)![0]}`),
        )
      ).learned,
      null,
    );
    assert.equal(
      (
        await learn(
          sql,
          rewrite((s) => s.replace(/(\d{12})/, "'$1'")),
        )
      ).learned,
      null,
    );
    // Pasting the real value must give what the normal path compiled.
    assert.equal(
      (
        await learn(
          sql,
          rewrite((s) => s.replace('"id" =', '"id" >=')),
        )
      ).learned,
      null,
    );
  });

  test('cutting compiled text at markers', () => {
    const m = [
      { slot: 0, text: '987654320000' },
      { slot: 2, text: '987654320002' },
    ];
    const cut = cutAtMarkers('SELECT * FROM t LIMIT 987654320002 OFFSET 987654320000', m, false)!;
    assert.deepEqual(cut.slots, [2, 0]);
    assert.equal(
      fillSlots(cut, (s) => String(s + 40)),
      'SELECT * FROM t LIMIT 42 OFFSET 40',
    );
    const refuse = (sql: string, mysql = false) => assert.equal(cutAtMarkers(sql, m, mysql), null, sql);
    refuse('x = 987654320000');
    refuse('x = 987654320000 AND y = 987654320002 AND z = 987654320002');
    refuse('x = 1987654320000 AND y = 987654320002');
    refuse('x = 987654320000.5 AND y = 987654320002');
    refuse('x = c987654320000 AND y = 987654320002');
    refuse("x = '987654320000' AND y = 987654320002");
    refuse("x = 'a '' 987654320000' AND y = 987654320002");
    refuse('x = "987654320000" AND y = 987654320002');
    refuse('x = 1 /* 987654320000 */ AND y = 987654320002');
    refuse("x = 'a\\' AND y = 987654320000 AND z = 987654320002 '", true);
    // In PostgreSQL a backslash does not escape: the string ends at the second quote.
    assert.ok(cutAtMarkers("x = 'a\\' AND y = 987654320000 AND z = 987654320002", m, false));
    assert.ok(cutAtMarkers('x = 1 # 987654320000 AND y = 987654320002', m, false));
    refuse('x = 1 # 987654320000\nAND y = 987654320002', true);
  });
});

/** A local plan's texts and structure, comparable with deepEqual (closures asked once with the same keys). */
function localView(p: Plan) {
  assert.equal(p.kind, 'local');
  if (p.kind !== 'local') throw new Error('expected a local plan');
  return {
    localSql: p.localSql,
    fragments: p.fragments.map((f) => ({
      source: f.source.name,
      sql: f.sql,
      filters: f.filters,
      limit: f.limit,
      columns: f.columns,
      withKeys: f.withKeys('id', [7, 8, 9]),
    })),
    dynamic: p.dynamic,
  };
}

describe('local (cross-source) shape plans', () => {
  const join = (a: number, b: number, c: number) =>
    `SELECT x.id, y.name FROM pg.t x JOIN my.t y ON y.id = x.id WHERE x.id > ${a} AND y.id IN (${b}, ${c}) AND x.name = 'k'`;

  test('statements differing in integers share one local plan that equals their own', async () => {
    const { learned } = await learn(join(5, 6, 7));
    assert.equal(learned?.kind, 'local');
    for (const sql of [join(5, 6, 7), join(40, 41, 42), join(123456, 2, 3)]) {
      const own = parsedNow(new StatementTemplates().parse(sql, isSource));
      if (own.kind !== 'sql') throw new Error('expected sql');
      assert.deepEqual(
        localView(shapePlanFor(learned!, shapeOf(sql)!)),
        localView(await planOf(own.ast)),
        sql,
      );
    }
  });

  test('a slot that changes more than a text (a pushed LIMIT) is not shared', async () => {
    const { learned } = await learn('SELECT id FROM pg.t WHERE id > 5 UNION ALL SELECT id FROM my.t LIMIT 3');
    assert.ok(learned === null || learned.kind === 'local');
    if (learned) {
      // Then the LIMIT is in a text only (the local statement), never a fragment's limit.
      const p = shapePlanFor(
        learned,
        shapeOf('SELECT id FROM pg.t WHERE id > 6 UNION ALL SELECT id FROM my.t LIMIT 4')!,
      );
      assert.match(p.kind === 'local' ? p.localSql : '', /LIMIT 4\b/);
    }
  });
});
