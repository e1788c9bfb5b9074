/**
 * The engine's acceptance test: every corpus query (test/integration/dialects/corpus.ts) and
 * every hand-written cross-source query (differential-cross.ts) goes through the real server (POST /api/sql/query) and must answer what MariaDB answers
 * natively over the same fixture:
 *   (a) pg: through a postgres source (context.db = 'pg'): pushed down, compiled to PostgreSQL;
 *   (b) my: through a mariadb source (context.db = 'my'): pushed down nearly verbatim;
 *   (c) cross: the query's tables split between pg and my (differential-qualify.ts), plus
 *       hand-written cross-source queries (differential-cross.ts): fragments from both
 *       sources joined in the local DuckDB.
 * Comparison rules are the dialect test's (dialects/compare.ts). Known gaps (the corpus's
 * `known` for the dialect that runs, and differential-known.ts) are reported as todo.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { rewriteSyntaxGaps } from '../../../../src/sql/parse/gaps.js';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../../helpers/server.js';
import {
  createMariaDatabase,
  createPgDatabase,
  MARIADB,
  mariaExec,
  pgExec,
} from '../../../helpers/services.js';
import { compareRows, normRows, REFERENCE_CONN_OPTIONS, type Rows } from '../dialects/compare.js';
import { CORPUS } from '../dialects/corpus.js';
import { fixtureSql } from '../dialects/fixture.js';
import { CROSS_QUERIES } from './differential-cross.js';
import { ENGINE_KNOWN, type Mode } from './differential-known.js';
import { guardSingleTable, qualifyTables, tableRefs } from './differential-qualify.js';

interface Case {
  /** What the server runs. */
  sql: string;
  /** What MariaDB runs natively. */
  reference: string;
  ordered: boolean;
  db?: string;
  known?: string;
  /** The reference is the same text, so the column names must be MySQL's too. */
  namesComparable: boolean;
  /** Compare text as MySQL's collation does (compare.ts). */
  collationText?: boolean;
  /** Why the query could not be placed in the sources. */
  rewriteError?: string;
  /** Kind of cross-source case, tallied apart. */
  group?: CrossGroup;
}

type CrossGroup = 'split' | 'hand-written' | 'guarded';

const MODES: { mode: Mode; title: string }[] = [
  { mode: 'pg', title: '(a) through a postgres source' },
  { mode: 'my', title: '(b) through a mariadb source' },
  { mode: 'cross', title: '(c) across the postgres and mariadb sources' },
];

function cases(mode: Mode): Case[] {
  const out: Case[] = [];
  for (const q of CORPUS) {
    const reference = q.reference ?? q.sql;
    const namesComparable = q.reference === undefined;
    const ordered = !!q.ordered;
    const own = ENGINE_KNOWN[mode]?.[q.sql];
    if (mode === 'pg')
      out.push({
        sql: q.sql,
        reference,
        ordered,
        namesComparable,
        db: 'pg',
        known: own ?? q.known?.postgres,
      });
    else if (mode === 'my')
      out.push({ sql: q.sql, reference, ordered, namesComparable, db: 'my', known: own });
    else {
      // Split across sources (or one table plus a cross-source guard): the statement runs
      // in the local DuckDB over fragments from both sources. The table placement works on
      // tokens that know no index hints nor STRAIGHT_JOIN as a select modifier: a query with
      // them gets the parser's pre-pass output (the raw syntax runs in the pg and my modes).
      const cq = /\b(?:USE|FORCE|IGNORE)\s+(?:INDEX|KEY)\b|\bSELECT\s+STRAIGHT_JOIN\b/i.test(q.sql)
        ? rewriteSyntaxGaps(q.sql)
        : q.sql;
      let n: number;
      try {
        n = tableRefs(cq).length;
      } catch (e) {
        // A query the rewrite cannot place still shows up, as a failure naming why.
        out.push({ sql: cq, reference, ordered, namesComparable, rewriteError: (e as Error).message });
        continue;
      }
      if (n === 0) continue;
      const known = own ?? q.known?.duckdb;
      if (n >= 2)
        out.push({
          sql: qualifyTables(cq).sql,
          reference,
          ordered,
          namesComparable,
          known,
          group: 'split',
        });
      else
        for (const source of ['pg', 'my'] as const)
          out.push({
            sql: guardSingleTable(cq, source).sql,
            reference,
            ordered,
            namesComparable,
            known,
            group: 'guarded',
          });
    }
  }
  for (const q of CROSS_QUERIES) {
    const known = ENGINE_KNOWN[mode]?.[q.sql];
    const base = {
      reference: q.sql,
      ordered: !!q.ordered,
      namesComparable: true,
      known,
      collationText: q.collationText,
    };
    // On one source the hand-written queries are pushed down whole, unqualified.
    if (mode !== 'cross') out.push({ ...base, sql: q.sql, db: mode });
  }
  if (mode === 'cross') {
    for (const q of CROSS_QUERIES) {
      out.push({
        sql: qualifyTables(q.sql, q.placement).sql,
        reference: q.sql,
        ordered: !!q.ordered,
        namesComparable: true,
        collationText: q.collationText,
        known: ENGINE_KNOWN.cross?.[q.sql],
        group: 'hand-written',
      });
    }
  }
  return out;
}

let server: TestServer;
let pgdb: { database: string; drop: () => Promise<void> };
let maria: { database: string; drop: () => Promise<void> };
let ref: mysql.Connection;
const reference = new Map<string, Reference | Error>();
interface Tally {
  total: number;
  pass: number;
  failed: string[];
  known: number;
}
const newTally = (): Tally => ({ total: 0, pass: 0, failed: [], known: 0 });
const tally: Record<Mode, Tally> = { pg: newTally(), my: newTally(), cross: newTally() };
const crossTally: Record<CrossGroup, Tally> = {
  split: newTally(),
  'hand-written': newTally(),
  guarded: newTally(),
};

before(async () => {
  [pgdb, maria] = await Promise.all([createPgDatabase('ediff'), createMariaDatabase('ediff')]);
  await Promise.all([
    // ANALYZE: real tables have statistics, and text comparisons use their known spellings.
    pgExec(pgdb.database, `${fixtureSql('postgres').join(';\n')};\nANALYZE`),
    mariaExec(maria.database, fixtureSql('mysql').join(';\n')),
  ]);
  // The reference reads the same MariaDB database the `my` source serves (read-only queries).
  ref = await mysql.createConnection({ ...MARIADB, database: maria.database, ...REFERENCE_CONN_OPTIONS });
  await ref.query("SET time_zone = '+00:00'");
  server = await startTestServer();
  for (const [name, sql] of [
    ['pg', `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgdb.database)}`],
    ['my', `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(maria.database)}`],
  ]) {
    const r = await server.sql(sql);
    assert.equal(r.type, 'ok', `CREATE DATABASE ${name}: ${JSON.stringify(r)}`);
  }
});

after(async () => {
  for (const { mode, title } of MODES) {
    const t = tally[mode];
    process.stderr.write(
      `engine differential ${title}: ${t.pass}/${t.total} equal to MariaDB, ${t.failed.length} failed, ${t.known} known\n`,
    );
    if (process.env.DIFF_VERBOSE) for (const q of t.failed) process.stderr.write(`  failed ${mode}: ${q}\n`);
  }
  for (const [group, t] of Object.entries(crossTally)) {
    process.stderr.write(
      `  (c) ${group}: ${t.pass}/${t.total}, ${t.failed.length} failed, ${t.known} known\n`,
    );
  }
  await server?.stop();
  await ref?.end();
  await Promise.all([pgdb?.drop(), maria?.drop()]);
});

interface Reference {
  rows: Rows;
  names: string[];
}

async function referenceOf(sql: string): Promise<Reference> {
  let r = reference.get(sql);
  if (!r) {
    try {
      const [rows, fields] = await ref.query({ sql, rowsAsArray: true });
      r = { rows: normRows(rows as unknown[][]), names: (fields as { name: string }[]).map((f) => f.name) };
    } catch (e) {
      r = e as Error;
    }
    reference.set(sql, r);
  }
  if (r instanceof Error) throw new Error(`MariaDB rejected the reference query: ${r.message}`);
  return r;
}

for (const { mode, title } of MODES) {
  describe(`engine differential ${title} vs MariaDB`, () => {
    for (const c of cases(mode)) {
      const tallies = c.group ? [tally[mode], crossTally[c.group]] : [tally[mode]];
      for (const t of tallies) t.total++;
      test(c.sql, c.known ? { todo: c.known } : {}, async () => {
        const fail = (msg: string): never => {
          for (const t of tallies) {
            if (c.known) t.known++;
            else t.failed.push(c.sql);
          }
          assert.fail(msg);
        };
        if (c.rewriteError) return fail(c.rewriteError);
        const expected = await referenceOf(c.reference);
        const r = await server.sql(c.sql, c.db ? { db: c.db } : undefined);
        if (r.type !== 'table') return fail(`server answered ${JSON.stringify(r)}`);
        const diff = compareRows(expected.rows, normRows(r.data), c.ordered, {
          jsonStrings: true,
          collationText: c.collationText,
        });
        if (diff) return fail(diff);
        // Column names as MySQL gives them (the text as written), where MariaDB ran the same text.
        const names = r.column_names.map((n) => n.replace(/\b(pg|my)\./g, ''));
        if (c.namesComparable && JSON.stringify(names) !== JSON.stringify(expected.names))
          return fail(
            `column names ${JSON.stringify(r.column_names)}, expected ${JSON.stringify(expected.names)}`,
          );
        for (const t of tallies) t.pass++;
      });
    }
  });
}

/**
 * Several cross-source queries at once must all answer. A PostgreSQL fragment streams
 * through a FIFO: DuckDB's reader holds a libuv pool thread while the writer's file writes
 * need one too, so run-plan.ts bounds the pipes in flight (PipeSlots); without that bound
 * about 5 concurrent queries deadlocked the process.
 */
describe('engine differential: concurrent cross-source queries', () => {
  test('twelve concurrent cross-source joins all answer', async () => {
    const sql = 'SELECT COUNT(*), SUM(o.amount) FROM pg.customers c JOIN my.orders o ON o.customer_id = c.id';
    const expected = await referenceOf(
      'SELECT COUNT(*), SUM(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.id',
    );
    const results = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const res = await fetch(`${server.url}/api/sql/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: sql }),
          signal: AbortSignal.timeout(20_000),
        });
        return (await res.json()) as { type: string; data?: unknown[][] };
      }),
    );
    for (const r of results) {
      assert.equal(r.type, 'table', JSON.stringify(r));
      assert.equal(compareRows(expected.rows, normRows(r.data!), false), null);
    }
  });
});
