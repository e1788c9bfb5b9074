/**
 * The function matrix (function-matrix.ts): every MySQL 8 data function, called with
 * literals and with fixture columns, on MariaDB (the reference) and, compiled, on
 * PostgreSQL, DuckDB, SQLite and MariaDB itself (recompiled). What a target compiles must
 * answer what MariaDB answers; what it cannot say must be refused naming the function, which
 * the engine answers with 1235 (or evaluates locally). docs/reference/functions.md is made
 * from the same matrix (function-doc.ts), and functions-doc.test.ts keeps it in step.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { canCompile, compile } from '../../../../src/sql/dialects/index.js';
import { compareRows, type Rows } from './compare.js';
import { fixtureOptsFor, parseFixtureSql } from './compile-fixture.js';
import { caseSql, FUNCTIONS, type FunctionCase, type MatrixTarget } from './function-matrix.js';
import { type FixtureTargets, openFixtureTargets } from './targets.js';

let targets: FixtureTargets;
const reference = new Map<string, Rows | Error>();
const tally: Record<MatrixTarget, { equal: number; refused: number; known: number }> = {
  postgres: { equal: 0, refused: 0, known: 0 },
  duckdb: { equal: 0, refused: 0, known: 0 },
  sqlite: { equal: 0, refused: 0, known: 0 },
  mysql: { equal: 0, refused: 0, known: 0 },
};

before(async () => {
  targets = await openFixtureTargets('fnmx');
});

after(async () => {
  for (const [target, t] of Object.entries(tally)) {
    process.stderr.write(
      `function matrix ${target}: ${t.equal}/${FUNCTIONS.length} equal to MariaDB, ${t.refused} refused (1235 or local), ${t.known} known differences\n`,
    );
  }
  await targets?.close();
});

async function referenceRows(f: FunctionCase): Promise<Rows> {
  const sql = f.reference ?? caseSql(f);
  let r = reference.get(sql);
  if (!r) {
    try {
      r = await targets.reference(sql);
    } catch (e) {
      r = e as Error;
    }
    reference.set(sql, r);
  }
  if (r instanceof Error) throw new Error(`MariaDB rejected the reference query: ${r.message}`);
  return r;
}

function run(target: MatrixTarget, sql: string): Promise<Rows> {
  return targets.run(target, sql);
}

const TARGETS: MatrixTarget[] = ['postgres', 'duckdb', 'sqlite', 'mysql'];

for (const target of TARGETS) {
  describe(`function matrix: ${target} vs MariaDB`, () => {
    for (const f of FUNCTIONS) {
      if (target === 'mysql' && f.reference) continue;
      const known = f.known?.[target];
      test(`${f.name}: ${caseSql(f)}`, known ? { todo: known } : {}, async () => {
        const expected = await referenceRows(f);
        let ast: any;
        try {
          ast = parseFixtureSql(caseSql(f));
        } catch (e) {
          assert.fail(`the parser cannot read it: ${(e as Error).message.slice(0, 120)}`);
        }
        const opts = fixtureOptsFor(target);
        const can = canCompile(ast, target, opts);
        if (!can.ok) {
          tally[target].refused++;
          // A refusal names what cannot be said (the planner turns it into 1235 or a local plan).
          assert.match(can.reason, /\S/);
          return;
        }
        const sql = compile(ast, target, opts);
        let got: Rows;
        try {
          got = await run(target, sql);
        } catch (e) {
          if (known) tally[target].known++;
          assert.fail(`${target} error: ${(e as Error).message}\n  SQL: ${sql}`);
        }
        const diff = compareRows(expected, got, !!f.ordered);
        if (diff) {
          if (known) tally[target].known++;
          assert.fail(`${diff}\n  SQL: ${sql}`);
        }
        tally[target].equal++;
      });
    }
  });
}
