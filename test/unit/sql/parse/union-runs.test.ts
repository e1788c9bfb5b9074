import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseStatement, type Statement } from '../../../../src/sql/parse/index.js';
import { findMarkers } from '../../../../src/sql/parse/markers.js';
import { StatementParser } from '../../../../src/sql/parse/parse-pool.js';
import type { ParsedText } from '../../../../src/sql/parse/parse-text.js';
import type { LiteralKind } from '../../../../src/sql/parse/slots.js';
import { StatementTemplates, shapeOf } from '../../../../src/sql/parse/templates.js';
import { findUnionRun, MIN_RUN_UNITS } from '../../../../src/sql/parse/union-runs.js';

const isSource = (n: string) => ['pg', 'my'].includes(n.toLowerCase());
const join = (n: number, member: (i: number) => string, op = ' UNION ALL ') =>
  Array.from({ length: n }, (_, i) => member(i)).join(op);

/** A parser that records the length of each marked text it is given (all inline). */
class Recording extends StatementParser {
  readonly texts: number[] = [];
  constructor() {
    super(Number.MAX_SAFE_INTEGER);
  }
  override parseMarked(
    text: string,
    isSrc: (name: string) => boolean,
    sources: readonly string[],
    kinds: readonly LiteralKind[],
    signal?: AbortSignal,
  ): ParsedText | null | Promise<ParsedText | null> {
    this.texts.push(text.length);
    return super.parseMarked(text, isSrc, sources, kinds, signal);
  }
}

function now(s: Statement | Promise<Statement>): Statement {
  if (s instanceof Promise) throw new Error('expected an inline parse');
  return s;
}

/** Parses `sql` (and the same shape with other values) through templates; each equals a full parse. */
function same(t: StatementTemplates, sql: string, other = sql.replace(/= 3\b/g, '= 77')): void {
  assert.deepStrictEqual(now(t.parse(sql, isSource)), parseStatement(sql, isSource), sql);
  assert.deepStrictEqual(now(t.parse(other, isSource)), parseStatement(other, isSource), other);
}

const member = (i: number) => `SELECT id FROM pg.t WHERE id = ${i + 1}`;

describe('UNION runs: a long chain of one member shape', () => {
  test('is parsed from the text with the run cut to three members, and equals a full parse', () => {
    const p = new Recording();
    const t = new StatementTemplates(500, 60_000, p);
    const sql = `SELECT COUNT(*) AS c FROM (${join(300, member)}) u`;
    same(t, sql);
    assert.equal(p.texts.length, 1);
    assert.ok(p.texts[0] < 400, `parsed ${p.texts[0]} chars of ${sql.length}`);
  });

  test('the parse does not grow with the run: 100 and 350 members read the same text', () => {
    const p = new Recording();
    const t = new StatementTemplates(500, 60_000, p);
    const m = (i: number) => `SELECT id FROM pg.t WHERE id=${i}`;
    same(t, `SELECT COUNT(*) AS c FROM (${join(100, m, ' UNION ALL ')}) u`);
    same(t, `SELECT COUNT(*) AS d FROM (${join(350, m, ' UNION ALL ')}) u`);
    assert.equal(p.texts.length, 2);
    assert.equal(p.texts[0], p.texts[1]);
  });

  test('members of every kind of slot, ORDER BY/LIMIT after the chain, parentheses, nesting', () => {
    const sqls = [
      `${join(12, (i) => `SELECT id, 'x${i}' AS n FROM pg.t WHERE id IN (${i}, ${i + 1}) AND v = 2.5`)} ORDER BY id LIMIT 3`,
      `${join(12, (i) => `(SELECT id FROM pg.t WHERE id = ${i} LIMIT 1)`)} ORDER BY 1 LIMIT 3`,
      join(12, member, ' UNION '),
      join(12, member, ' UNION DISTINCT '),
      `SELECT * FROM (${join(10, member)}) a JOIN (${join(15, member)}) b USING (id) WHERE a.id > 5`,
      `SELECT id FROM pg.t WHERE id IN (${join(10, (i) => `SELECT id FROM pg.t WHERE name = 'n${i}'`)})`,
      `INSERT INTO pg.t (id) ${join(10, (i) => `SELECT ${i}`)}`,
      `${join(9, member)} UNION SELECT 5 UNION ALL ${join(11, member)}`,
      `SELECT a.id FROM pg.t a WHERE a.id = 4 AND EXISTS (${join(10, (i) => `SELECT 1 FROM pg.t b WHERE b.id = a.id + ${i}`)})`,
      `${join(10, (i) => `SELECT id, name FROM pg.t WHERE id BETWEEN ${i} AND ${i + 5} AND name <> "q${i}"`)}`,
    ];
    for (const sql of sqls) {
      assert.ok(findUnionRun(shapeOf(sql)!), `a run in ${sql.slice(0, 60)}`);
      same(new StatementTemplates(), sql);
    }
  });

  test('each marker of a grown template sits where a whole parse would put it', () => {
    const t = new StatementTemplates(500, 60_000, new Recording());
    const sql = `SELECT * FROM (${join(40, (i) => `SELECT id FROM pg.t WHERE id IN (${i}, 9) AND name = 'a${i}' AND v > 0.5`)}) u WHERE id > 2 LIMIT 7`;
    const shape = shapeOf(sql)!;
    now(t.parse(sql, isSource, '', shape));
    const tpl = t.template(shape);
    assert.ok(tpl);
    const kinds = shape.slots.map((s) => (s.kind === 'L' ? 'n' : s.kind)) as LiteralKind[];
    const found = findMarkers(tpl.ast, kinds).map((p, i) =>
      shape.slots[i].kind === 'L' && p ? p.slice(0, -2) : p,
    );
    assert.deepEqual(found, tpl.paths);
  });

  test('short chains, mixed operators and different members are parsed whole', () => {
    const shortChain = `SELECT COUNT(*) FROM (${join(MIN_RUN_UNITS, member)}) u`;
    assert.equal(findUnionRun(shapeOf(shortChain)!), null);
    const mixed = Array.from({ length: 20 }, (_, i) => `${i % 2 ? 'UNION' : 'UNION ALL'} ${member(i)}`).join(
      ' ',
    );
    assert.equal(findUnionRun(shapeOf(`${member(99)} ${mixed}`)!), null);
    const differ = join(20, (i) => `SELECT id FROM pg.t WHERE id ${i % 2 ? '=' : '>'} ${i}`);
    assert.equal(findUnionRun(shapeOf(differ)!), null);
    const noSlots = join(20, () => 'SELECT id FROM pg.t');
    assert.equal(shapeOf(noSlots), null);
    for (const sql of [shortChain, `${member(99)} ${mixed}`, differ]) same(new StatementTemplates(), sql);
  });

  test('a shortened text long enough for the parse worker gives the same statement', async () => {
    const t = new StatementTemplates(500, 60_000, new StatementParser(100));
    const sql = `SELECT COUNT(*) AS c FROM (${join(30, member)}) u`;
    const got = t.parse(sql, isSource, '', shapeOf(sql), ['pg', 'my']);
    assert.ok(got instanceof Promise);
    assert.deepStrictEqual(await got, parseStatement(sql, isSource));
  });

  test('a run whose members do not come out as one chain falls back to the whole text', () => {
    const p = new Recording();
    const t = new StatementTemplates(500, 60_000, p);
    // String slots in the select list: the shape is not templated at all, either way.
    const sql = `WITH x AS (${join(10, (i) => `SELECT ${i} AS k, 'v' AS s`)}) SELECT * FROM x WHERE k < 4`;
    same(t, sql);
    assert.equal(p.texts.length, 2);
  });
});
