/**
 * A knowledge-base search as a relation, planned (no KB runs): which conjuncts a block offers
 * which item (conjuncts.ts), how many hits a search fetches (kb-k.ts), and what the planner
 * takes from a search's own block (kb-search.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ColumnInfo } from '../../../../src/core/types.js';
import type { Source } from '../../../../src/sources/types.js';
import type { SelectStmt } from '../../../../src/sql/ast/nodes.js';
import { displayName } from '../../../../src/sql/dialects/display.js';
import type { KbCondition } from '../../../../src/sql/kb-port.js';
import { parseStatement } from '../../../../src/sql/parse/index.js';
import { bindTables } from '../../../../src/sql/plan/bind.js';
import { candidateConjuncts } from '../../../../src/sql/plan/conjuncts.js';
import { decideK, type KShape } from '../../../../src/sql/plan/kb-k.js';
import type { KbPart, Plan } from '../../../../src/sql/plan/plan-types.js';
import { planQuery } from '../../../../src/sql/plan/planner.js';

function select(sql: string): SelectStmt {
  const stmt = parseStatement(sql, () => true);
  if (stmt.kind !== 'sql' || stmt.ast.type !== 'select') throw new Error('expected a SELECT');
  return stmt.ast as SelectStmt;
}

describe('conjuncts.ts: which conjuncts may filter which FROM item', () => {
  const offered = (sql: string) => {
    const ast = select(sql);
    const map = candidateConjuncts(ast, ast);
    return (ast.from ?? []).map((item) => (map.get(item) ?? []).map((c) => displayName(c.node)));
  };
  test('WHERE and inner ON conjuncts filter every item', () => {
    assert.deepEqual(offered('SELECT 1 FROM a JOIN b ON a.x = b.x WHERE a.y = 1'), [
      ['a.y = 1', 'a.x = b.x'],
      ['a.y = 1', 'a.x = b.x'],
    ]);
  });
  test("a LEFT JOIN's right side: only its own ON; WHERE conjuncts never", () => {
    assert.deepEqual(offered('SELECT 1 FROM a LEFT JOIN b ON a.x = b.x AND b.z = 2 WHERE b.y = 1'), [
      ['b.y = 1'],
      ['a.x = b.x', 'b.z = 2'],
    ]);
  });
  test('RIGHT/FULL joins: nothing', () => {
    assert.deepEqual(offered('SELECT 1 FROM a RIGHT JOIN b ON a.x = b.x WHERE a.y = 1'), [[], []]);
  });
  test('drop removes the conjunct from the block', () => {
    const ast = select('SELECT 1 FROM a WHERE a.y = 1 AND a.z = 2');
    const [first] = candidateConjuncts(ast, ast).get(ast.from![0])!;
    first.drop();
    assert.equal(displayName(ast.where!), 'a.z = 2');
  });
});

describe('kb-k.ts: how many hits a search fetches', () => {
  const base: KShape = {
    alone: true,
    allExact: true,
    grouped: false,
    rankOrder: true,
    limit: null,
    count: null,
    search: true,
    topLevel: true,
    rowsFollowHits: true,
    threshold: null,
    maxResults: 10000,
  };
  const k = (s: Partial<KShape>) => decideK({ ...base, ...s }, 'kb');
  test('alone: the LIMIT (with its offset), the threshold, else 10', () => {
    assert.deepEqual(k({ limit: 7, count: 5 }), {
      kind: 'k',
      k: 7,
      why: "k 7 (LIMIT of the search's block)",
    });
    assert.equal(k({ threshold: 0.5 }).kind, 'all');
    assert.deepEqual(k({}), { kind: 'k', k: 10, why: 'k 10 (default)' });
  });
  test('a LIMIT above kb.max_results is 1210 naming it', () => {
    assert.throws(
      () => k({ limit: 20000, count: 20000 }),
      (e: Error & { code?: number }) => {
        return e.code === 1210 && /kb\.max_results/.test(e.message);
      },
    );
  });
  test("a join's LIMIT: growing batches; grouped or nested: every hit; no LIMIT: 10", () => {
    assert.deepEqual(k({ alone: false, limit: 50, count: 50 }), {
      kind: 'batches',
      first: 50,
      want: 50,
      why: 'growing batches from 50 (LIMIT of a join)',
    });
    assert.equal(k({ alone: false, limit: 2, count: 2, grouped: true }).kind, 'all');
    assert.equal(k({ alone: false, limit: 5, count: 5, topLevel: false }).kind, 'all');
    assert.equal(k({ alone: false, limit: 5, count: 5, rankOrder: false }).kind, 'all');
    assert.equal(k({ alone: false, limit: 5, count: 5, rowsFollowHits: false }).kind, 'all');
    assert.deepEqual(k({ alone: false }), { kind: 'k', k: 10, why: 'k 10 (default)' });
    assert.equal(k({ alone: false, limit: 5, count: 5, threshold: 0.3 }).kind, 'all');
  });
  test('a grouped block over the search alone: its LIMIT counts groups, not hits', () => {
    assert.equal(k({ grouped: true, limit: 1, count: 1, search: false }).kind, 'all');
  });
  test('without a question the KB is a table: every row unless its LIMIT is guaranteed', () => {
    assert.equal(k({ search: false }).kind, 'all');
    assert.deepEqual(k({ search: false, limit: 3, count: 3 }).kind, 'k');
  });
});

describe('kb-search.ts: a search takes its part of its own block', () => {
  const KB_COLS: ColumnInfo[] = [
    'id',
    'chunk_id',
    'chunk_content',
    'metadata',
    'priority',
    'amount',
    'distance',
    'relevance',
  ].map((name) => ({
    name,
    type:
      name === 'amount'
        ? 'DECIMAL'
        : name === 'distance' || name === 'relevance'
          ? 'DOUBLE'
          : name === 'metadata'
            ? 'JSON'
            : 'VARCHAR',
    nativeType: '',
    nullable: true,
  }));
  const pg = {
    name: 'pg',
    dialect: 'postgres',
    engine: 'postgres',
    defaultSchema: 'public',
    capabilities: { fullStatements: true, projection: true, filters: 'exact', limit: true },
  } as unknown as Source;
  const leafOnly = (c: KbCondition) =>
    ('column' in c && !c.op.includes('BETWEEN') && !c.op.includes('NULL') ? 'exact' : 'unsupported') as
      | 'exact'
      | 'unsupported';
  async function plan(sql: string): Promise<Extract<Plan, { kind: 'local' }>> {
    const stmt = parseStatement(sql, (n) => n === 'pg');
    if (stmt.kind !== 'sql') throw new Error('expected sql');
    const refs = bindTables(stmt.ast, {}, (n) => n.toLowerCase() === 'kb');
    const p = await planQuery(stmt.ast, refs, {
      source: async () => pg,
      columns: async () => [
        { name: 'id', type: 'INT', nativeType: 'int', nullable: false },
        { name: 'tier', type: 'VARCHAR', nativeType: 'text', nullable: true },
      ],
      kb: { columns: async () => KB_COLS, filterSupport: (_n, c) => leafOnly(c), maxResults: 10000 },
    });
    assert.equal(p.kind, 'local');
    return p as Extract<Plan, { kind: 'local' }>;
  }
  const only = (p: { kb: KbPart[] }) => p.kb[0];

  test('in a derived table: the question, filters and LIMIT of that block; rows ordered by rank there', async () => {
    const p = await plan(
      `SELECT d.id FROM (SELECT id, relevance FROM kb WHERE content = 'q' AND priority = 'high' LIMIT 4) d`,
    );
    const k = only(p);
    assert.equal(k.search.query, 'q');
    assert.deepEqual(k.search.filters, [{ column: 'priority', op: '=', value: 'high' }]);
    assert.equal(k.k.why, "k 4 (LIMIT of the search's block)");
    assert.doesNotMatch(p.localSql, /content|priority/);
    assert.match(p.localSql, /ORDER BY "kb"\."rowid"/);
  });

  test('content IN / OR: one search per question; content LIKE: a condition on chunk_content', async () => {
    assert.deepEqual(only(await plan(`SELECT id FROM kb WHERE content IN ('a', 'b')`)).queries, ['a', 'b']);
    assert.deepEqual(only(await plan(`SELECT id FROM kb WHERE content = 'a' OR content = 'b'`)).queries, [
      'a',
      'b',
    ]);
    const like = only(await plan(`SELECT id FROM kb WHERE content = 'a' AND content NOT LIKE '%x%'`));
    assert.deepEqual(like.search.filters, [{ column: 'chunk_content', op: 'NOT LIKE', value: '%x%' }]);
  });

  test('NOT folds into the leaves; a numeric string against DECIMAL metadata is a number', async () => {
    const k = only(
      await plan(`SELECT id FROM kb WHERE content = 'a' AND NOT (priority = 'x' OR amount <= '400')`),
    );
    assert.deepEqual(k.search.filters, []);
    assert.equal(k.k.kind, 'k');
    const k2 = only(await plan(`SELECT id FROM kb WHERE content = 'a' AND amount > '400'`));
    assert.deepEqual(k2.search.filters, [{ column: 'amount', op: '>', value: 400 }]);
  });

  test('an unsupported condition stays and filters the hits before k (prefilter)', async () => {
    const k = only(await plan(`SELECT id FROM kb WHERE content = 'a' AND amount BETWEEN 1 AND 2 LIMIT 3`));
    assert.equal(k.k.kind, 'k');
    assert.match(k.prefilter ?? '', /BETWEEN/);
  });

  test('the KB on the null side of a LEFT JOIN takes only its own ON; a threshold in WHERE stays too', async () => {
    const p = await plan(
      `SELECT c.id FROM pg.c c LEFT JOIN kb ON kb.id = c.id AND kb.priority = 'urgent' WHERE kb.content = 'q' AND kb.relevance >= 0.4 AND kb.amount > 3`,
    );
    const k = only(p);
    assert.deepEqual(k.search.filters, [{ column: 'priority', op: '=', value: 'urgent' }]);
    assert.equal(k.search.minRelevance, 0.4);
    assert.match(p.localSql, /relevance" >= 0\.4/);
    assert.match(p.localSql, /amount/);
  });

  test('parameters that are not conditions: 1235 naming the KB; bad values 1210', async () => {
    await assert.rejects(plan(`SELECT content FROM kb WHERE content = 'a'`), /1235|'kb'/);
    await assert.rejects(
      plan(`SELECT id FROM kb WHERE content = 'a' AND hybrid_search = 'yes'`),
      (e: Error & { code?: number }) => e.code === 1210,
    );
    await assert.rejects(
      plan(`SELECT id FROM kb WHERE content = 'a' AND hybrid_search_alpha = 1.5`),
      (e: Error & { code?: number }) => e.code === 1210,
    );
    const r = only(await plan(`SELECT id FROM kb WHERE content = 'a' AND reranking = false`));
    assert.equal(r.search.reranking, false);
  });
});
