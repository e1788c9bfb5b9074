/**
 * The pushdown contract (sql/plan/fragments.ts, dynamic-filters.ts): which conjuncts each
 * source is offered and how it answers, where a LIMIT may go, and which joins narrow their
 * big side by the small side's keys. Planning only: the sources are descriptions, never run.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ColumnInfo } from '../../../../src/core/types.js';
import type { Source } from '../../../../src/sources/types.js';
import { parseStatement } from '../../../../src/sql/parse/index.js';
import { bindTables } from '../../../../src/sql/plan/bind.js';
import { type Plan, planQuery } from '../../../../src/sql/plan/planner.js';

const col = (name: string, type: ColumnInfo['type']): ColumnInfo => ({
  name,
  type,
  nativeType: type.toLowerCase(),
  nullable: true,
});
const TABLES: Record<string, ColumnInfo[]> = {
  orders: [col('id', 'INT'), col('customer_id', 'INT'), col('status', 'VARCHAR'), col('amount', 'DECIMAL')],
  customers: [col('id', 'INT'), col('name', 'VARCHAR'), col('city', 'VARCHAR')],
};
const source = (
  name: string,
  dialect: Source['dialect'],
  filters: 'exact' | 'inexact' | 'none' = 'exact',
  fullStatements = true,
) =>
  ({
    name,
    dialect,
    engine: dialect,
    defaultSchema: 'public',
    capabilities: { fullStatements, projection: true, filters, limit: true },
  }) as unknown as Source;
const SOURCES: Record<string, Source> = {
  pg: source('pg', 'postgres'),
  my: source('my', 'mysql'),
  lite: source('lite', 'sqlite'),
  loose: source('loose', 'postgres', 'inexact'),
  // Takes fragments only: a single-table statement on it still runs locally.
  frag: source('frag', 'postgres', 'exact', false),
};

async function plan(sql: string): Promise<Extract<Plan, { kind: 'local' }>> {
  const stmt = parseStatement(sql, (n) => n.toLowerCase() in SOURCES);
  if (stmt.kind !== 'sql') throw new Error('expected sql');
  const p = await planQuery(stmt.ast, bindTables(stmt.ast, {}), {
    source: async (n) => SOURCES[n.toLowerCase()],
    columns: async (_s, _schema, table) => TABLES[table],
  });
  assert.equal(p.kind, 'local', 'a cross-source statement runs locally');
  return p as Extract<Plan, { kind: 'local' }>;
}

const agreed = (p: Awaited<ReturnType<typeof plan>>, i: number) =>
  p.fragments[i].filters.map((f) => `${f.support}: ${f.text}`);

describe('filters: each conjunct that touches one table is offered to its source', () => {
  test('WHERE conjuncts pushed exactly leave the local statement', async () => {
    const p = await plan(
      "SELECT c.name, o.amount FROM my.customers c JOIN pg.orders o ON o.customer_id = c.id WHERE o.status = 'paid' AND c.city = 'Paris' AND o.amount > c.id",
    );
    assert.deepEqual(agreed(p, 0), ["exact: c.city = 'Paris'"]);
    assert.deepEqual(agreed(p, 1), ["exact: o.status = 'paid'"]);
    assert.match(p.localSql, /WHERE "o"."amount" > "c"."id"$/);
    assert.doesNotMatch(p.localSql, /paid|Paris/);
  });

  test('ON conjuncts of an inner join are pushed like WHERE conjuncts', async () => {
    const p = await plan(
      "SELECT c.name FROM my.customers c JOIN pg.orders o ON o.customer_id = c.id AND o.status = 'paid' AND c.city <> 'Oslo'",
    );
    assert.deepEqual(agreed(p, 0), ["exact: c.city <> 'Oslo'"]);
    assert.deepEqual(agreed(p, 1), ["exact: o.status = 'paid'"]);
    assert.match(p.localSql, /ON "o"."customer_id" = "c"."id"( |$)/);
  });

  test("a LEFT JOIN's own ON conjuncts filter its right side, never its left", async () => {
    const p = await plan(
      "SELECT c.name, o.id FROM my.customers c LEFT JOIN pg.orders o ON o.customer_id = c.id AND o.status = 'paid' AND c.city = 'Paris'",
    );
    assert.deepEqual(agreed(p, 0), []);
    assert.deepEqual(agreed(p, 1), ["exact: o.status = 'paid'"]);
    assert.match(p.localSql, /LEFT JOIN "__f1" AS "o" ON \("o"."customer_id" = "c"."id"\) AND .*'PARIS'/);
  });

  test("WHERE conjuncts on an outer join's null side are not pushed (they reject its NULL rows)", async () => {
    const p = await plan(
      "SELECT c.name FROM my.customers c LEFT JOIN pg.orders o ON o.customer_id = c.id WHERE o.status = 'paid' AND c.city = 'Paris'",
    );
    assert.deepEqual(agreed(p, 0), ["exact: c.city = 'Paris'"]);
    assert.deepEqual(agreed(p, 1), []);
    assert.match(p.localSql, /WHERE .*PAID/);
  });

  test('a target that only approximates MySQL answers inexact, and the conjunct stays local', async () => {
    const p = await plan(
      "SELECT c.name FROM lite.customers c JOIN pg.orders o ON o.customer_id = c.id WHERE c.name = 'Zoë'",
    );
    assert.deepEqual(agreed(p, 0), ["inexact: c.name = 'Zoë'"]);
    assert.match(p.fragments[0].filters[0].why ?? '', /accents/);
    assert.match(p.localSql, /Zoë|zoe/i);
  });

  test('a source that declares inexact filters gets a local re-check', async () => {
    const p = await plan(
      'SELECT c.name FROM my.customers c JOIN loose.orders o ON o.customer_id = c.id WHERE o.amount > 5',
    );
    assert.deepEqual(agreed(p, 1), ['inexact: o.amount > 5']);
    assert.match(p.localSql, /WHERE "o"."amount" > 5/);
  });

  test('a conjunct with a subquery is not offered', async () => {
    const p = await plan(
      'SELECT c.name FROM my.customers c JOIN pg.orders o ON o.customer_id = c.id WHERE o.amount > (SELECT 1)',
    );
    assert.deepEqual(agreed(p, 1), []);
  });
});

describe('limit: pushed only when guaranteed', () => {
  test('one fragment, every conjunct exact, nothing above: count plus offset goes to the source', async () => {
    const p = await plan("SELECT id, status FROM frag.orders WHERE status = 'paid' LIMIT 5, 10");
    assert.equal(p.fragments[0].limit, 15);
    assert.match(p.fragments[0].sql, / LIMIT 15$/);
    assert.match(p.localSql, /LIMIT 10 OFFSET 5$/);
  });

  test('a conjunct left local, an ORDER BY, DISTINCT or an aggregate keeps the limit local', async () => {
    for (const sql of [
      'SELECT id FROM frag.orders WHERE id IN (SELECT 1) LIMIT 5',
      'SELECT id FROM frag.orders ORDER BY id LIMIT 5',
      'SELECT DISTINCT status FROM frag.orders LIMIT 5',
      'SELECT COUNT(*) FROM frag.orders LIMIT 5',
    ]) {
      const p = await plan(sql);
      assert.equal(p.fragments[0].limit, null, sql);
    }
  });

  test('a join, an ORDER BY or an aggregate above the fragment keeps the limit local', async () => {
    for (const sql of [
      'SELECT c.name FROM my.customers c JOIN pg.orders o ON o.customer_id = c.id LIMIT 3',
      'SELECT o.id FROM pg.orders o WHERE EXISTS (SELECT 1 FROM my.customers) LIMIT 3',
    ]) {
      const p = await plan(sql);
      assert.ok(
        p.fragments.every((f) => f.limit === null),
        sql,
      );
    }
  });
});

describe('dynamic filters: a filtered side narrows an unfiltered one through the join keys', () => {
  test('inner join: the unfiltered side is the probe', async () => {
    const p = await plan(
      "SELECT c.name, SUM(o.amount) FROM my.customers c JOIN pg.orders o ON o.customer_id = c.id WHERE c.city = 'Paris' GROUP BY c.name",
    );
    assert.equal(p.dynamic.length, 1);
    const d = p.dynamic[0];
    assert.equal(p.fragments[d.build].ref.qualifier, 'c');
    assert.equal(d.buildColumn, 'id');
    assert.equal(p.fragments[d.probe].ref.qualifier, 'o');
    assert.equal(d.probeColumn, 'customer_id');
    assert.match(
      p.fragments[d.probe].withKeys('customer_id', [1, 2, 3]) ?? '',
      /"customer_id" IN \(1, 2, 3\)/,
    );
  });

  test('LEFT JOIN: only its right side may be narrowed; its preserved left side never', async () => {
    const right = await plan(
      "SELECT c.name, o.id FROM my.customers c LEFT JOIN pg.orders o ON o.customer_id = c.id WHERE c.city = 'Paris'",
    );
    assert.equal(right.dynamic.length, 1);
    assert.equal(right.fragments[right.dynamic[0].probe].ref.qualifier, 'o');
    const left = await plan(
      "SELECT c.name, o.id FROM my.customers c LEFT JOIN pg.orders o ON o.customer_id = c.id AND o.status = 'paid'",
    );
    assert.equal(left.dynamic.length, 0);
  });

  test('keys of different kinds, or both sides filtered, get no dynamic filter', async () => {
    const kinds = await plan(
      "SELECT c.name FROM my.customers c JOIN pg.orders o ON o.status = c.id WHERE c.city = 'Paris'",
    );
    assert.equal(kinds.dynamic.length, 0);
    const both = await plan(
      "SELECT c.name FROM my.customers c JOIN pg.orders o ON o.customer_id = c.id WHERE c.city = 'Paris' AND o.amount > 1",
    );
    assert.equal(both.dynamic.length, 0);
  });

  test('text keys are compared as MySQL compares them at the probe', async () => {
    const p = await plan(
      "SELECT c.name FROM my.customers c JOIN pg.orders o ON o.status = c.city WHERE c.name = 'x'",
    );
    const d = p.dynamic[0];
    const sql = p.fragments[d.probe].withKeys(d.probeColumn, ['Paris', 'oslo ']) ?? '';
    assert.match(sql, /upper/, 'folded, not compared byte for byte');
  });
});
