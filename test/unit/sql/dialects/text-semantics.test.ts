/**
 * MySQL's collation at the source's speed: how text equality is said (collation.ts),
 * the ASCII fast path of the fold, grouping in two phases (two-phase.ts), and a source that
 * keeps its own collation. Results against real databases are in the differential suites;
 * these pin down the shapes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pkg from 'node-sql-parser/build/mysql.js';
import type { MysqlType } from '../../../../src/core/types.js';
import { likeSuperset, splitKnown } from '../../../../src/sql/dialects/collation.js';
import { compile } from '../../../../src/sql/dialects/index.js';
import { twoPhase } from '../../../../src/sql/dialects/two-phase.js';
import type { CompileOptions, Target } from '../../../../src/sql/dialects/types.js';
import { normalizeAst } from '../../../../src/sql/parse/normalize.js';

const { Parser } = pkg as unknown as { Parser: new () => { astify(sql: string, o: object): any } };
const parser = new Parser();
const parse = (sql: string) => normalizeAst(parser.astify(sql, { database: 'MySQL' }));

const TYPES: Record<string, MysqlType> = {
  kind: 'VARCHAR',
  channel: 'VARCHAR',
  name: 'VARCHAR',
  id: 'BIGINT',
  qty: 'INT',
  amount: 'DECIMAL',
  price: 'DOUBLE',
};
const MARKER: Partial<Record<Target, string>> = { postgres: 'ctid', duckdb: 'rowid' };
const opts = (target: Target, extra: CompileOptions = {}): CompileOptions => ({
  columnType: (r) => TYPES[r.column] ?? null,
  rowMarker: () => MARKER[target] ?? null,
  autoAlias: false,
  ...extra,
});
const sql = (q: string, target: Target = 'postgres', extra: CompileOptions = {}) =>
  compile(parse(q), target, opts(target, extra));

describe('text equality', () => {
  test('the LIKE superset keeps caseless characters and escapes LIKE metacharacters', () => {
    assert.equal(likeSuperset('user-4242'), '____-4242%');
    assert.equal(likeSuperset('u4242@example.com'), '_4242@_______.___%');
    assert.equal(likeSuperset('50%_off\\x'), '50\\%\\____\\\\_%');
    assert.equal(likeSuperset('purchase'), null, 'nothing kept: a pattern would only count characters');
  });

  test('known spellings: ASCII ones only, split by whether they fold to the literal', () => {
    const fold = (s: string) => s.toLowerCase();
    assert.deepEqual(
      splitKnown(['view', 'Purchase', 'PURCHASE ', 'purchasé', 'purchase'], new Set(['purchase']), fold),
      {
        all: ['view', 'Purchase', 'PURCHASE ', 'purchase'],
        equal: ['Purchase', 'PURCHASE ', 'purchase'],
      },
    );
  });

  test('with known spellings: decided by plain comparisons, any other value folded after a length test', () => {
    const q = "SELECT 1 FROM events WHERE kind = 'Purchase'";
    const got = sql(q, 'postgres', { knownValues: () => ['view', 'click', 'purchase', 'PURCHASE '] });
    assert.match(
      got,
      /WHERE octet_length\("kind"\) >= 8 AND \("kind" IN \('purchase', 'PURCHASE '\) OR \("kind" NOT IN \('view', 'click', 'purchase', 'PURCHASE '\) AND CASE WHEN .* END = 'PURCHASE'\)\)$/,
    );
  });

  test('<> and NOT IN negate the whole test (NULL stays NULL: every part is NULL on NULL)', () => {
    const got = sql("SELECT 1 FROM events WHERE kind <> 'view'", 'postgres', {
      knownValues: () => ['view', 'click'],
    });
    assert.match(got, /WHERE NOT \(octet_length\("kind"\) >= 4 AND \("kind" IN \('view'\) OR /);
    const list = sql("SELECT 1 FROM events WHERE kind NOT IN ('a', 'View ')");
    assert.match(list, /WHERE NOT \(CASE WHEN .* END IN \('A', 'VIEW'\)\)$/);
  });

  test('a literal with caseless characters is filtered by LIKE before the fold, on every target', () => {
    assert.match(sql("SELECT 1 FROM t WHERE name = 'user-42'"), /"name" LIKE '____-42%' AND /);
    assert.match(
      sql("SELECT 1 FROM t WHERE name = 'user-42'", 'duckdb'),
      /"name" LIKE '____-42%' ESCAPE '\\' AND /,
    );
    assert.match(
      sql("SELECT 1 FROM t WHERE name = 'user-42'", 'sqlite'),
      /"name" LIKE '____-42%' ESCAPE '\\' AND /,
    );
  });

  test('the fold maps one character to one (upper case, İ stays İ), so the supersets hold beyond ASCII', () => {
    const got = sql("SELECT 1 FROM t WHERE name = 'İx-1'");
    assert.match(got, /octet_length\("name"\) >= 4 AND "name" LIKE '__-1%' AND .* END = 'İX-1'$/);
  });

  test("MySQL's weights are upper case: '_' and '[' sort after letters ('ab' < 'aZ' < 'a_')", () => {
    assert.match(sql('SELECT name FROM t ORDER BY name'), /THEN upper\("name" COLLATE "C"\)/);
    assert.match(sql("SELECT 1 FROM t WHERE name < 'a_'"), /END < 'A_'$/);
  });
});

describe('the fold of a column takes an ASCII branch', () => {
  test('PostgreSQL: upper() under the C collation for ASCII, translate() only for the rest', () => {
    assert.match(
      sql('SELECT name FROM t ORDER BY name'),
      /ORDER BY CASE WHEN octet_length\("name"\) = char_length\("name"\) THEN upper\("name" COLLATE "C"\) ELSE translate\(upper\("name"\), /,
    );
  });

  test('the last sort key keeps trailing spaces (PAD SPACE ties are free); a key before another trims them', () => {
    const got = sql('SELECT name FROM t ORDER BY name, id');
    assert.match(
      got,
      /ORDER BY CASE WHEN .* THEN upper\(rtrim\("name"\) COLLATE "C"\) .* END NULLS FIRST, "id"/,
    );
    assert.doesNotMatch(sql('SELECT name FROM t ORDER BY id, name'), /rtrim/);
  });

  test('DuckDB: strlen = length is the ASCII test', () => {
    assert.match(
      sql('SELECT name FROM t ORDER BY name', 'duckdb'),
      /CASE WHEN strlen\("name"\) = length\("name"\) THEN upper\("name"\) ELSE translate/,
    );
  });

  test('an expression is folded once, without a branch (it is not repeated)', () => {
    assert.match(
      sql("SELECT 1 FROM t WHERE CONCAT(name, 'x') = 'ab'"),
      /WHERE translate\(upper\(rtrim\(\("name" \|\| 'x'\)\)\)/,
    );
  });
});

describe('grouping on text in two phases', () => {
  test('raw groups first, merged by the fold: COUNT, SUM, MIN/MAX, AVG', () => {
    const got = sql(
      'SELECT kind, COUNT(*), SUM(qty), MAX(amount), AVG(price), AVG(qty) FROM events WHERE id > 5 GROUP BY kind',
    );
    assert.match(
      got,
      /FROM \(SELECT "kind" AS "k1", MIN\("events"\."ctid"\) AS "__first", COUNT\(\*\) AS "a1", SUM\("qty"\) AS "a2", MAX\("amount"\) AS "a3", SUM\("price"\) AS "a4", COUNT\("price"\) AS "c4", SUM\("qty"\) AS "a5", COUNT\("qty"\) AS "c5" FROM "events" WHERE "id" > 5 GROUP BY "kind"\) AS "__grouped" GROUP BY CASE/,
    );
    assert.match(
      got,
      /^SELECT \(array_agg\("__grouped"\."k1" ORDER BY "__grouped"\."__first"\)\)\[1\] AS "kind", CAST\(SUM\("__grouped"\."a1"\) AS bigint\) AS "COUNT\(\*\)", CAST\(SUM\("__grouped"\."a2"\) AS bigint\) AS "SUM\(qty\)", MAX\("__grouped"\."a3"\)/,
    );
    assert.match(
      got,
      /CAST\(CAST\(SUM\("__grouped"\."a4"\) AS numeric\) \/ NULLIF\(SUM\("__grouped"\."c4"\), 0\) AS double precision\) AS "AVG\(price\)"/,
    );
  });

  test('DuckDB takes the first-seen spelling with arg_min_null', () => {
    assert.match(
      sql('SELECT kind, COUNT(*) FROM events GROUP BY kind', 'duckdb'),
      /^SELECT arg_min_null\("__grouped"\."k1", "__grouped"\."__first"\) AS "kind"/,
    );
  });

  test('a DISTINCT aggregate adds its argument to the raw keys and runs in phase 2', () => {
    const got = sql('SELECT COUNT(DISTINCT kind) FROM events');
    assert.match(
      got,
      /^SELECT COUNT\(DISTINCT CASE .*"__grouped"\."k1".* END\) AS "COUNT\(DISTINCT kind\)" FROM \(SELECT "kind" AS "k1", MIN\("events"\."ctid"\) AS "__first" FROM "events" GROUP BY "kind"\) AS "__grouped"$/,
    );
  });

  test('HAVING and ORDER BY read the merged aggregates and the select aliases', () => {
    const got = sql(
      'SELECT kind AS k, COUNT(*) AS n FROM events GROUP BY k HAVING n > 1 ORDER BY COUNT(*) DESC, k',
    );
    assert.match(
      got,
      /HAVING \(CAST\(SUM\("__grouped"\."a1"\) AS bigint\)\) > 1 ORDER BY CAST\(SUM\("__grouped"\."a1"\) AS bigint\) DESC/,
    );
  });

  test('one phase where merging would change the answer or the chosen spelling', () => {
    const ast = (q: string) => parse(q);
    const o = opts('postgres');
    for (const q of [
      'SELECT kind, GROUP_CONCAT(channel) FROM events GROUP BY kind',
      'SELECT kind, COUNT(*) FROM events GROUP BY kind WITH ROLLUP',
      'SELECT kind, COUNT(*), RANK() OVER (ORDER BY COUNT(*)) FROM events GROUP BY kind',
      'SELECT kind, (SELECT 1) FROM events GROUP BY kind',
      'SELECT id, COUNT(*) FROM events GROUP BY id',
      'SELECT * FROM events',
    ])
      assert.equal(twoPhase(ast(q), o), null, q);
    // No row position (a view, SQLite): one phase keeps MySQL's choice of spelling.
    assert.equal(
      twoPhase(ast('SELECT kind, COUNT(*) FROM events GROUP BY kind'), { ...o, rowMarker: () => null }),
      null,
    );
    assert.doesNotMatch(sql('SELECT kind, COUNT(*) FROM events GROUP BY kind', 'sqlite'), /__grouped/);
  });
});

describe("collation = 'source': the source's own comparisons", () => {
  const src: CompileOptions = { collation: 'source' };
  test('nothing folded: equality, IN, LIKE, GROUP BY, ORDER BY and DISTINCT run raw', () => {
    assert.equal(
      sql(
        "SELECT kind, COUNT(*) FROM events WHERE kind = 'Purchase' AND name LIKE 'a%' AND channel IN ('web') GROUP BY kind ORDER BY kind",
        'postgres',
        src,
      ),
      `SELECT "kind", COUNT(*) FROM "events" WHERE (("kind" = 'Purchase') AND ("name" LIKE 'a%')) AND ("channel" IN ('web')) GROUP BY "kind" ORDER BY "kind" NULLS FIRST`,
    );
    assert.equal(
      sql('SELECT DISTINCT kind FROM events', 'duckdb', src),
      'SELECT DISTINCT "kind" FROM "events"',
    );
  });
});
