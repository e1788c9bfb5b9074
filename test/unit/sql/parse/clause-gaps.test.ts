import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SqlError } from '../../../../src/core/errors.js';
import type { SelectStmt } from '../../../../src/sql/ast/nodes.js';
import { NATURAL_MARK, RANGE_MARK, rewriteClauseGaps } from '../../../../src/sql/parse/clause-gaps.js';
import { parseStatement } from '../../../../src/sql/parse/index.js';
import { resolveNaturalJoins } from '../../../../src/sql/plan/natural.js';

const isSource = (n: string) => n === 'pg';
const select = (sql: string): SelectStmt => {
  const s = parseStatement(sql, isSource);
  assert.equal(s.kind, 'sql');
  return (s as { ast: SelectStmt }).ast;
};
const refused = (sql: string, what: RegExp) =>
  assert.throws(
    () => parseStatement(sql, isSource),
    (e: unknown) => e instanceof SqlError && e.code === 1235 && what.test(e.message),
  );

test('NATURAL JOIN becomes a marked USING join after the whole table factor', () => {
  const mark = `\`${NATURAL_MARK}\``;
  assert.equal(rewriteClauseGaps('SELECT * FROM a NATURAL JOIN b'), `SELECT * FROM a JOIN b USING (${mark})`);
  assert.equal(
    rewriteClauseGaps('SELECT * FROM a NATURAL LEFT OUTER JOIN pg.b AS x WHERE 1'),
    `SELECT * FROM a LEFT JOIN pg.b AS x USING (${mark}) WHERE 1`,
  );
  assert.equal(
    rewriteClauseGaps('SELECT * FROM a natural right join `b` y natural inner join c'),
    `SELECT * FROM a RIGHT JOIN \`b\` y USING (${mark}) JOIN c USING (${mark})`,
  );
  assert.equal(rewriteClauseGaps("SELECT 'NATURAL JOIN x'"), "SELECT 'NATURAL JOIN x'");
});

test('a NATURAL JOIN parses to a flag, and the planner fills the shared columns', () => {
  const ast = select('SELECT * FROM pg.a NATURAL JOIN pg.b NATURAL LEFT JOIN pg.c');
  assert.equal(ast.from![1].natural, true);
  assert.equal(ast.from![1].using, null);
  const cols: Record<string, string[]> = { a: ['id', 'Name', 'x'], b: ['ID', 'name', 'y'], c: ['q'] };
  resolveNaturalJoins(ast, (item) => cols[item.table as string] ?? null);
  assert.deepEqual(ast.from![1].using, ['id', 'Name']);
  // No shared column: a join without a condition, as MySQL does.
  assert.equal(ast.from![2].using, null);
  assert.equal(ast.from![2].natural, false);
  // A derived table or a CTE: the names of its select list (a `*` there: its own FROM's).
  const derived = select('SELECT * FROM pg.a NATURAL JOIN (SELECT 1 AS id, x AS Name, y FROM pg.b) d');
  resolveNaturalJoins(derived, (item) => (item.table ? cols[item.table as string] : null));
  assert.deepEqual(derived.from![1].using, ['id', 'Name']);
  const starred = select('SELECT * FROM (SELECT * FROM pg.b) AS s NATURAL JOIN pg.a');
  resolveNaturalJoins(starred, (item) => (item.table ? cols[item.table as string] : null));
  assert.deepEqual(starred.from![1].using, ['ID', 'name']);
  const cte = select('WITH w (x, q) AS (SELECT 1, 2) SELECT * FROM pg.a NATURAL JOIN w');
  resolveNaturalJoins(cte, (item) => (item.db ? cols[item.table as string] : null));
  assert.deepEqual(cte.from![1].using, ['x']);
});

test('INTERSECT ALL / EXCEPT ALL parse to their set operators; DISTINCT is the plain one', () => {
  const all = select('SELECT a FROM pg.t INTERSECT ALL SELECT b FROM pg.u');
  assert.equal(all.set_op, 'INTERSECT ALL');
  assert.equal((all._next as SelectStmt).options ?? null, null);
  assert.equal(select('SELECT a FROM pg.t EXCEPT ALL SELECT SQL_NO_CACHE b FROM pg.u').set_op, 'EXCEPT ALL');
  assert.equal(select('SELECT a FROM pg.t EXCEPT DISTINCT SELECT b FROM pg.u').set_op, 'EXCEPT');
  assert.equal(select("SELECT 'INTERSECT ALL' FROM pg.t").set_op ?? null, null);
});

test('RANGE frames read as ROWS plus a mark, and come back as RANGE', () => {
  assert.equal(
    rewriteClauseGaps('SELECT SUM(a) OVER (ORDER BY a RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t'),
    `SELECT SUM(a) OVER (PARTITION BY \`${RANGE_MARK}\` ORDER BY a ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t`,
  );
  const ast = select(
    'SELECT SUM(a) OVER (PARTITION BY b ORDER BY a RANGE UNBOUNDED PRECEDING), SUM(a) OVER w FROM pg.t WINDOW w AS (ORDER BY a RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING)',
  );
  const spec = (ast.columns[0].expr as any).over.as_window_specification.window_specification;
  assert.equal(spec.window_frame_clause.type, 'RANGE');
  assert.equal(spec.partitionby.length, 1);
  assert.equal(spec.partitionby[0].expr.column, 'b');
  const named = (ast.window as any).expr[0].as_window_specification.window_specification;
  assert.equal(named.partitionby, null);
  assert.equal(named.window_frame_clause.left.value, 'RANGE');
  refused(
    'SELECT SUM(a) OVER (ORDER BY d RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW) FROM pg.t',
    /RANGE window frames with INTERVAL bounds/,
  );
});

test('select modifiers are dropped, DISTINCTROW is DISTINCT, introducers leave the string', () => {
  assert.equal(
    rewriteClauseGaps('SELECT HIGH_PRIORITY DISTINCT SQL_NO_CACHE STRAIGHT_JOIN a FROM t'),
    'SELECT DISTINCT a FROM t',
  );
  assert.equal(rewriteClauseGaps('SELECT DISTINCTROW a FROM t'), 'SELECT DISTINCT a FROM t');
  // A column named like a modifier elsewhere is untouched.
  assert.equal(rewriteClauseGaps('SELECT a, sql_cache FROM t'), 'SELECT a, sql_cache FROM t');
  assert.equal(
    rewriteClauseGaps("SELECT _utf8mb4'a' COLLATE utf8mb4_bin, _latin1 'b', _unknown 'c'"),
    "SELECT 'a' COLLATE utf8mb4_bin, 'b', _unknown 'c'",
  );
  const ast = select("SELECT a FROM pg.t WHERE a = _utf8mb4'A' COLLATE utf8mb4_bin");
  const right = (ast.where as any).right;
  assert.equal(right.type, 'string');
  assert.equal(right.collate.collate.name, 'utf8mb4_bin');
});

test('SOUNDS LIKE is SOUNDEX equality; constructs without an equivalent answer 1235 by name', () => {
  assert.equal(
    rewriteClauseGaps("SELECT a SOUNDS LIKE 'robert' FROM t"),
    "SELECT (SOUNDEX(a) = SOUNDEX('robert')) FROM t",
  );
  refused("SELECT 1 MEMBER OF ('[1, 2]')", /MEMBER OF/);
  refused("SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (x INT PATH '$')) j", /JSON_TABLE/);
  refused('SELECT * FROM (VALUES ROW(1, 2)) v', /VALUES ROW/);
});

test('TIMESTAMPADD is DATE_ADD with an interval', () => {
  const ast = select('SELECT TIMESTAMPADD(SQL_TSI_MONTH, 2, d) FROM pg.t');
  const f = ast.columns[0].expr as any;
  assert.equal(f.name, 'DATE_ADD');
  assert.equal(f.args.value[1].type, 'interval');
  assert.equal(f.args.value[1].unit, 'MONTH');
});
