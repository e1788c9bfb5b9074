/**
 * Differential test of the dialect layer: every corpus query runs verbatim on MariaDB (the
 * reference) and, compiled by src/sql/dialects, on PostgreSQL and on DuckDB over the same
 * fixture. Results must match modulo representation: numbers within the precision MySQL
 * printed, dates as 'YYYY-MM-DD', JSON compared as values. Known gaps are listed in the
 * corpus and reported as todo instead of failing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { canCompile, compile } from '../../../../src/sql/dialects/index.js';
import type { Target } from '../../../../src/sql/dialects/types.js';
import { compareRows, type Rows } from './compare.js';
import { FIXTURE_OPTS, fixtureOptsFor, parseFixtureSql } from './compile-fixture.js';
import { CORPUS, type CorpusQuery } from './corpus.js';
import { type FixtureTargets, openFixtureTargets } from './targets.js';

const parse = parseFixtureSql;
const OPTS = FIXTURE_OPTS;
const optsFor = fixtureOptsFor;

let targets: FixtureTargets;
const reference = new Map<string, Rows | Error>();
const tally: Record<string, { pass: number; refused: string[]; mismatch: string[]; known: number }> = {
  postgres: { pass: 0, refused: [], mismatch: [], known: 0 },
  duckdb: { pass: 0, refused: [], mismatch: [], known: 0 },
  sqlite: { pass: 0, refused: [], mismatch: [], known: 0 },
};
/** Informational: the same corpus compiled without column types (a planner that knows none). */
const untyped: Record<string, { pass: number; failed: string[] }> = {
  postgres: { pass: 0, failed: [] },
  duckdb: { pass: 0, failed: [] },
  sqlite: { pass: 0, failed: [] },
};

before(async () => {
  targets = await openFixtureTargets('dial');
});

after(async () => {
  for (const [target, t] of Object.entries(tally)) {
    process.stderr.write(
      `dialect differential ${target}: ${t.pass}/${CORPUS.length} equal to MariaDB, ${t.refused.length} refused, ${t.mismatch.length} different, ${t.known} known; without column types ${untyped[target].pass}/${CORPUS.length}\n`,
    );
    if (process.env.DIALECT_VERBOSE)
      for (const q of untyped[target].failed) process.stderr.write(`  untyped ${target}: ${q}\n`);
  }
  await targets?.close();
});

async function referenceRows(q: CorpusQuery): Promise<Rows> {
  let r = reference.get(q.sql);
  if (!r) {
    try {
      r = await targets.reference(q.reference ?? q.sql);
    } catch (e) {
      r = e as Error;
    }
    reference.set(q.sql, r);
  }
  if (r instanceof Error) throw new Error(`MariaDB rejected the reference query: ${r.message}`);
  return r;
}

function runTarget(target: Target, sql: string): Promise<Rows> {
  return targets.run(target, sql);
}

async function untypedRun(target: Target, q: CorpusQuery, ast: any, expected: Rows): Promise<void> {
  try {
    const got = await runTarget(target, compile(ast, target, {}));
    if (compareRows(expected, got, !!q.ordered) === null) untyped[target].pass++;
    else untyped[target].failed.push(q.sql);
  } catch {
    untyped[target].failed.push(q.sql);
  }
}

for (const target of ['postgres', 'duckdb'] as const) {
  describe(`dialect differential: ${target} vs MariaDB`, () => {
    for (const q of CORPUS) {
      const known = q.known?.[target];
      test(q.sql, known ? { todo: known } : {}, async () => {
        const expected = await referenceRows(q);
        const ast = parse(q.sql);
        const can = canCompile(ast, target, optsFor(target));
        if (!can.ok) {
          if (known) tally[target].known++;
          else tally[target].refused.push(q.sql);
          assert.fail(`refused: ${can.reason}`);
        }
        const sql = compile(ast, target, optsFor(target));
        let got: Rows;
        try {
          got = await runTarget(target, sql);
        } catch (e) {
          if (known) tally[target].known++;
          else tally[target].mismatch.push(q.sql);
          assert.fail(`${target} error: ${(e as Error).message}\n  SQL: ${sql}`);
        }
        const diff = compareRows(expected, got, !!q.ordered);
        if (diff) {
          if (known) tally[target].known++;
          else tally[target].mismatch.push(q.sql);
          assert.fail(`${diff}\n  SQL: ${sql}`);
        }
        tally[target].pass++;
        await untypedRun(target, q, ast, expected);
      });
    }
  });
}

// SQLite cannot say everything (no REGEXP, ROLLUP, ...): a refusal with its reason is the
// right answer there (never a wrong result); what it does compile must agree with MariaDB.
describe('dialect differential: sqlite vs MariaDB', () => {
  for (const q of CORPUS) {
    const known = q.known?.sqlite;
    test(q.sql, known ? { todo: known } : {}, async (t) => {
      const expected = await referenceRows(q);
      const ast = parse(q.sql);
      const can = canCompile(ast, 'sqlite', OPTS);
      if (!can.ok) {
        tally.sqlite.refused.push(q.sql);
        assert.match(can.reason, /\S/, 'a refusal names what cannot be said');
        assert.throws(() => compile(ast, 'sqlite', OPTS), /cannot be translated for sqlite/);
        t.diagnostic(`refused: ${can.reason}`);
        return;
      }
      const sql = compile(ast, 'sqlite', OPTS);
      let got: Rows;
      try {
        got = await runTarget('sqlite', sql);
      } catch (e) {
        if (known) tally.sqlite.known++;
        else tally.sqlite.mismatch.push(q.sql);
        assert.fail(`sqlite error: ${(e as Error).message}\n  SQL: ${sql}`);
      }
      const diff = compareRows(expected, got, !!q.ordered);
      if (diff) {
        if (known) tally.sqlite.known++;
        else tally.sqlite.mismatch.push(q.sql);
        assert.fail(`${diff}\n  SQL: ${sql}`);
      }
      tally.sqlite.pass++;
      await untypedRun('sqlite', q, ast, expected);
    });
  }
});

// MySQL sources get the statement back nearly verbatim: recompiled, it must still mean the same on MariaDB.
// Queries with a `reference` use MySQL syntax MariaDB lacks (JSON ->, ->>): they cannot run there verbatim.
describe('dialect differential: mysql (recompiled) vs MariaDB', () => {
  for (const q of CORPUS.filter((x) => !x.reference)) {
    test(q.sql, async () => {
      const expected = await referenceRows(q);
      const sql = compile(parse(q.sql), 'mysql', OPTS);
      let got: Rows;
      try {
        got = await runTarget('mysql', sql);
      } catch (e) {
        assert.fail(`mariadb error: ${(e as Error).message}\n  SQL: ${sql}`);
      }
      const diff = compareRows(expected, got, !!q.ordered);
      if (diff) assert.fail(`${diff}\n  SQL: ${sql}`);
    });
  }
});
