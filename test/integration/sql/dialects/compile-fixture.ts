/**
 * How the dialect tests turn a MySQL statement over the fixture into a target's SQL: the
 * pre-passes of parse/index.ts, NATURAL JOIN columns from the fixture, and the column types
 * and row markers a planner would pass. Needs no database (the doc test uses it too).
 */
import pkg from 'node-sql-parser/build/mysql.js';
import type { CompileOptions, Target } from '../../../../src/sql/dialects/types.js';
import { rewriteSyntaxGaps } from '../../../../src/sql/parse/gaps.js';
import { normalizeAst, rewriteParserGaps } from '../../../../src/sql/parse/normalize.js';
import { resolveNaturalJoins } from '../../../../src/sql/plan/natural.js';
import { COLUMN_TYPES, TABLES } from './fixture.js';

const { Parser } = pkg as unknown as { Parser: new () => { astify(sql: string, o: object): any } };
const parser = new Parser();

export function parseFixtureSql(sql: string): any {
  // The same pre-passes as parse/index.ts parseStatement.
  const ast = normalizeAst(parser.astify(rewriteParserGaps(rewriteSyntaxGaps(sql)), { database: 'MySQL' }));
  const one = Array.isArray(ast) ? ast[0] : ast;
  // What the planner does once tables are bound: NATURAL JOIN columns from the fixture.
  resolveNaturalJoins(one, (item) => {
    const t = TABLES.find((x) => x.name === item.table?.toLowerCase());
    return t ? t.columns.map((c) => c.name) : null;
  });
  return one;
}

export const FIXTURE_OPTS: CompileOptions = {
  columnType: (ref) => COLUMN_TYPES[ref.column] ?? COLUMN_TYPES[ref.column.toLowerCase()] ?? null,
};

/** What the planner tells each target of the fixture's tables (all base tables): their row positions. */
const ROW_MARKER: Partial<Record<Target, string>> = { postgres: 'ctid', duckdb: 'rowid' };

export const fixtureOptsFor = (target: Target): CompileOptions => ({
  ...FIXTURE_OPTS,
  rowMarker: () => ROW_MARKER[target] ?? null,
});
