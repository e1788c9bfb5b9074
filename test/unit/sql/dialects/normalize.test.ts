import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pkg from 'node-sql-parser/build/mysql.js';
import { columnName, limitOf } from '../../../../src/sql/ast/nodes.js';
import { normalizeAst, rewriteParserGaps, unescapeMysqlString } from '../../../../src/sql/parse/normalize.js';
import { SCHEMA_SEP } from '../../../../src/sql/parse/prepass.js';

const { Parser } = pkg as unknown as { Parser: new () => { astify(sql: string, o: object): any } };
const parser = new Parser();

function parse(sql: string): any {
  const ast = normalizeAst(parser.astify(sql, { database: 'MySQL' }));
  return Array.isArray(ast) ? ast[0] : ast;
}

const firstExpr = (sql: string) => parse(sql).columns[0].expr;

describe('normalizeAst: identifiers', () => {
  test('backtick qualifiers become plain strings', () => {
    const ast = parse('SELECT `b`.`y z`, `t`.x FROM `db`.`t` AS `b`');
    assert.deepEqual([ast.columns[0].expr.table, ast.columns[0].expr.column], ['b', 'y z']);
    assert.equal(ast.columns[1].expr.table, 't');
    assert.deepEqual([ast.from[0].db, ast.from[0].table, ast.from[0].as], ['db', 't', 'b']);
  });

  test('doubled backticks are undone', () => {
    const ast = parse('SELECT `a``b` FROM `my``t` `x y`');
    assert.equal(ast.columns[0].expr.column, 'a`b');
    assert.equal(ast.from[0].table, 'my`t');
    assert.equal(ast.from[0].as, 'x y');
  });

  test('a folded three-part name is split into schema and table', () => {
    const ast = parse(
      `SELECT \`pg\`.\`public${SCHEMA_SEP}orders\`.\`id\` FROM \`pg\`.\`public${SCHEMA_SEP}orders\``,
    );
    assert.deepEqual([ast.from[0].db, ast.from[0].schema, ast.from[0].table], ['pg', 'public', 'orders']);
    const ref = ast.columns[0].expr;
    assert.deepEqual([ref.db, ref.schema, ref.table, ref.column], ['pg', 'public', 'orders', 'id']);
  });

  test('USING lists, CTE names and INSERT columns are plain strings', () => {
    const ast = parse('WITH c (x) AS (SELECT 1) SELECT * FROM t JOIN u USING (id, `k`)');
    assert.equal(ast.with[0].name, 'c');
    assert.deepEqual(ast.with[0].columns, ['x']);
    assert.deepEqual(ast.from[1].using, ['id', 'k']);
    assert.deepEqual(parse('INSERT INTO t (`a`, b) VALUES (1, 2)').columns, ['a', 'b']);
  });

  test('columnName reads a column_ref', () => {
    assert.equal(columnName(firstExpr('SELECT t.`Name` FROM t')), 'Name');
    assert.equal(columnName(firstExpr('SELECT * FROM t')), '*');
  });
});

describe('normalizeAst: literals', () => {
  test('MySQL escapes in single-quoted strings are decoded', () => {
    assert.deepEqual(firstExpr(String.raw`SELECT 'it\'s'`), { type: 'string', value: "it's" });
    assert.equal(firstExpr(String.raw`SELECT 'a\\b'`).value, 'a\\b');
    assert.equal(firstExpr("SELECT 'a''b'").value, "a'b");
    assert.equal(firstExpr(String.raw`SELECT 'x\ny'`).value, 'x\ny');
    assert.equal(firstExpr(String.raw`SELECT 'nul\0'`).value, 'nul\0');
  });

  test('\\% and \\_ keep their backslash, as MySQL does, for LIKE', () => {
    assert.equal(firstExpr(String.raw`SELECT '50\%'`).value, '50\\%');
    assert.equal(firstExpr(String.raw`SELECT 'a\_b'`).value, 'a\\_b');
  });

  test('double-quoted strings are strings, not identifiers', () => {
    assert.deepEqual(firstExpr('SELECT "d""q"'), { type: 'string', value: 'd"q' });
    assert.equal(firstExpr(`SELECT "it's"`).value, "it's");
  });

  test('unescapeMysqlString handles quote doubling per quote kind', () => {
    assert.equal(unescapeMysqlString(`a''b""c`, "'"), `a'b""c`);
    assert.equal(unescapeMysqlString(`a''b""c`, '"'), `a''b"c`);
  });

  test('numbers keep exact text unless they are safe integers', () => {
    assert.deepEqual(firstExpr('SELECT 42'), { type: 'number', value: 42 });
    assert.equal(firstExpr('SELECT 1.50').value, '1.50');
    assert.equal(firstExpr('SELECT 12345678901234567890').value, '12345678901234567890');
    assert.deepEqual(firstExpr('SELECT 1e3'), { type: 'number', value: '1e3' });
  });

  test('normalizing twice changes nothing', () => {
    const once = parse("SELECT 'it\\'s', \"x\", 1.5, `a`.b FROM t LIMIT 2, 3");
    const twice = normalizeAst(structuredClone(once));
    assert.deepEqual(twice, once);
  });
});

describe('normalizeAst: expressions and clauses', () => {
  test('function names are upper-case strings', () => {
    const e = firstExpr("SELECT date_format(d, '%Y') FROM t");
    assert.equal(e.type, 'function');
    assert.equal(e.name, 'DATE_FORMAT');
  });

  test('NOT(x) and EXISTS(subquery) become unary expressions', () => {
    const w = parse('SELECT 1 FROM t WHERE NOT (a = 1) AND EXISTS (SELECT 1)').where;
    assert.equal(w.left.type, 'unary_expr');
    assert.equal(w.left.operator, 'NOT');
    assert.equal(w.right.operator, 'EXISTS');
    assert.equal(w.right.expr.type, 'subquery');
  });

  test('CONVERT(x, type) becomes a cast', () => {
    const e = firstExpr('SELECT CONVERT(a, CHAR) FROM t');
    assert.equal(e.type, 'cast');
    assert.equal(e.target[0].dataType, 'CHAR');
  });

  test('SUM(DISTINCT(x)) is a DISTINCT aggregate', () => {
    const e = firstExpr('SELECT SUM(DISTINCT(qty)) FROM t');
    assert.equal(e.args.distinct, 'DISTINCT');
    assert.equal(e.args.expr.column, 'qty');
  });

  test('subqueries carry type subquery in FROM and expressions', () => {
    const ast = parse('SELECT (SELECT 1) FROM (SELECT 2) x WHERE a IN (SELECT 3)');
    assert.equal(ast.columns[0].expr.type, 'subquery');
    assert.equal(ast.from[0].expr.type, 'subquery');
    assert.equal(ast.where.right.value[0].type, 'subquery');
  });

  test('LIMIT o, n and LIMIT n OFFSET o read the same', () => {
    const a: any = limitOf(parse('SELECT 1 FROM t LIMIT 2, 3'));
    const b: any = limitOf(parse('SELECT 1 FROM t LIMIT 3 OFFSET 2'));
    assert.deepEqual([a.count?.value, a.offset?.value], [3, 2]);
    assert.deepEqual([b.count?.value, b.offset?.value], [3, 2]);
    assert.deepEqual(limitOf(parse('SELECT 1 FROM t LIMIT 5')), {
      count: { type: 'number', value: 5 },
      offset: null,
    });
    assert.deepEqual(limitOf(parse('SELECT 1 FROM t')), { count: null, offset: null });
  });

  test('ORDER BY / LIMIT after a UNION belong to the whole union', () => {
    const ast = parse('SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1 LIMIT 5');
    assert.equal(ast.set_op, 'UNION ALL');
    assert.equal(ast._orderby.length, 1);
    assert.equal((limitOf(ast, '_limit').count as any)?.value, 5);
    assert.equal(ast._next.orderby, null);
    assert.equal(ast._next.limit, null);
  });

  test('a parenthesized member keeps its own ORDER BY / LIMIT', () => {
    const ast = parse('(SELECT a FROM t ORDER BY a LIMIT 1) UNION (SELECT b FROM u ORDER BY b LIMIT 2)');
    assert.equal((limitOf(ast._next).count as any)?.value, 2);
    assert.equal(ast._limit ?? null, null);
  });

  test('GROUP BY has columns and modifiers without nulls', () => {
    assert.deepEqual(parse('SELECT a FROM t GROUP BY a').groupby.modifiers, []);
    assert.equal(parse('SELECT a FROM t GROUP BY a WITH ROLLUP').groupby.modifiers[0].value, 'with rollup');
  });

  test('interval units are upper case', () => {
    const e = firstExpr('SELECT d + interval 2 day FROM t');
    assert.equal(e.right.unit, 'DAY');
  });
});

describe('rewriteParserGaps', () => {
  const parseGap = (sql: string) => parse(rewriteParserGaps(sql));

  test('a signed exponent without a point is one number (PyMySQL sends 1e-05), not a column minus 5', () => {
    const cols = parseGap('SELECT 1e-05, 2E+3, -3e-1, 4.5e-2 FROM t').columns;
    assert.deepEqual(
      cols.map((c: any) => [c.expr.type, c.expr.value]),
      [
        ['number', '1.0e-05'],
        ['number', '2.0E+3'],
        ['number', '-3.0e-1'],
        ['number', '4.5e-2'],
      ],
    );
  });

  test('aggregates with DISTINCT parse and come back as DISTINCT aggregates', () => {
    const cols = parseGap(
      'SELECT SUM(DISTINCT qty), AVG( distinct a + b ), MAX(DISTINCT(x)), COUNT(DISTINCT a) FROM t',
    ).columns;
    assert.deepEqual(
      cols.map((c: any) => [c.expr.name, c.expr.args.distinct]),
      [
        ['SUM', 'DISTINCT'],
        ['AVG', 'DISTINCT'],
        ['MAX', 'DISTINCT'],
        ['COUNT', 'DISTINCT'],
      ],
    );
    assert.equal(cols[1].expr.args.expr.type, 'binary_expr');
  });

  test('ALL, STD, SUBSTRING FROM/FOR, LOCALTIME and .5', () => {
    assert.equal(
      rewriteParserGaps('SELECT SUM(ALL x), STD(y), SUBSTRING(n FROM 2 FOR 3), LOCALTIME, .5 FROM t'),
      'SELECT SUM( x), STDDEV_POP(y), SUBSTRING(n , 2 , 3), LOCALTIME(), 0.5 FROM t',
    );
    const cols = parseGap(
      'SELECT SUM(ALL x), STD(y), SUBSTRING(n FROM 2 FOR 3), LOCALTIME, .5 FROM t',
    ).columns;
    assert.deepEqual(
      cols.map((c: any) => c.expr.name ?? c.expr.value),
      ['SUM', 'STDDEV_POP', 'SUBSTRING', 'LOCALTIME', '0.5'],
    );
  });

  test('long numeric literals stay exact', () => {
    const cols = parseGap('SELECT 1.123456789012345678901234567890, -9007199254740993, 2.5 FROM t').columns;
    assert.equal(cols[0].expr.type, 'cast');
    assert.deepEqual(cols[0].expr.expr, { type: 'string', value: '1.123456789012345678901234567890' });
    assert.deepEqual([cols[0].expr.target[0].length, cols[0].expr.target[0].scale], [31, 30]);
    assert.equal(cols[1].expr.type, 'unary_expr');
    assert.equal(cols[1].expr.expr.value, '9007199254740993');
    assert.equal(cols[2].expr.value, '2.5');
  });

  test('strings, comments, quoted names and qualifiers are left alone', () => {
    const sql = "SELECT 'SUM(DISTINCT x)', `SUM`, t.5x FROM t -- SUM(DISTINCT y)";
    assert.equal(rewriteParserGaps(sql), sql);
  });
});
