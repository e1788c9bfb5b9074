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
import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import sqliteWasm from 'node-sqlite3-wasm';
import pg from 'pg';
import { canCompile, compile } from '../../../../src/sql/dialects/index.js';
import { createMariaDatabase, createPgDatabase, MARIADB, PG } from '../../../helpers/services.js';
import { compareRows, normCell, REFERENCE_CONN_OPTIONS, type Rows } from './compare.js';
import { fixtureOptsFor, parseFixtureSql } from './compile-fixture.js';
import { fixtureSql } from './fixture.js';
import { caseSql, FUNCTIONS, type FunctionCase, type MatrixTarget } from './function-matrix.js';

const RAW_PG_TYPES = new Set([1082, 1083, 1114, 1184, 114, 3802, 1186]);

let maria: { database: string; drop: () => Promise<void> };
let pgdb: { database: string; drop: () => Promise<void> };
let mconn: mysql.Connection;
let pconn: pg.Client;
let duck: Awaited<ReturnType<DuckDBInstance['connect']>>;
let lite: any;
const reference = new Map<string, Rows | Error>();
const tally: Record<MatrixTarget, { equal: number; refused: number; known: number }> = {
  postgres: { equal: 0, refused: 0, known: 0 },
  duckdb: { equal: 0, refused: 0, known: 0 },
  sqlite: { equal: 0, refused: 0, known: 0 },
  mysql: { equal: 0, refused: 0, known: 0 },
};

before(async () => {
  maria = await createMariaDatabase('fnmx');
  pgdb = await createPgDatabase('fnmx');
  mconn = await mysql.createConnection({ ...MARIADB, database: maria.database, ...REFERENCE_CONN_OPTIONS });
  await mconn.query("SET time_zone = '+00:00'");
  for (const s of fixtureSql('mysql')) await mconn.query(s);
  pconn = new pg.Client({
    ...PG,
    database: pgdb.database,
    types: {
      getTypeParser: (oid: number, format?: any) =>
        RAW_PG_TYPES.has(oid) ? (v: string) => v : pg.types.getTypeParser(oid, format),
    },
  });
  await pconn.connect();
  await pconn.query("SET TimeZone = 'UTC'");
  for (const s of fixtureSql('postgres')) await pconn.query(s);
  const inst = await DuckDBInstance.create(':memory:');
  duck = await inst.connect();
  await duck.run("SET TimeZone = 'UTC'");
  for (const s of fixtureSql('duckdb')) await duck.run(s);
  lite = new (sqliteWasm as any).Database(':memory:');
  for (const s of fixtureSql('sqlite')) lite.run(s);
});

after(async () => {
  for (const [target, t] of Object.entries(tally)) {
    process.stderr.write(
      `function matrix ${target}: ${t.equal}/${FUNCTIONS.length} equal to MariaDB, ${t.refused} refused (1235 or local), ${t.known} known differences\n`,
    );
  }
  await mconn?.end();
  await pconn?.end();
  duck?.closeSync?.();
  lite?.close();
  await maria?.drop();
  await pgdb?.drop();
});

async function referenceRows(f: FunctionCase): Promise<Rows> {
  const sql = f.reference ?? caseSql(f);
  let r = reference.get(sql);
  if (!r) {
    try {
      const [rows] = await mconn.query({ sql, rowsAsArray: true });
      r = (rows as unknown[][]).map((row) => row.map(normCell));
    } catch (e) {
      r = e as Error;
    }
    reference.set(sql, r);
  }
  if (r instanceof Error) throw new Error(`MariaDB rejected the reference query: ${r.message}`);
  return r;
}

async function run(target: MatrixTarget, sql: string): Promise<Rows> {
  if (target === 'mysql') {
    const [rows] = await mconn.query({ sql, rowsAsArray: true });
    return (rows as unknown[][]).map((row) => row.map(normCell));
  }
  if (target === 'postgres') {
    const r = await pconn.query({ text: sql, rowMode: 'array' });
    return (r.rows as unknown[][]).map((row) => row.map(normCell));
  }
  if (target === 'sqlite') {
    const stmt = lite.prepare(sql);
    try {
      // Rows as arrays: two calls of one function print the same column name.
      return (stmt.raw ? stmt.raw() : lite.all(sql).map((o: object) => Object.values(o))).map(
        (row: unknown[]) => row.map(normCell),
      );
    } finally {
      stmt.finalize?.();
    }
  }
  const r = await duck.runAndReadAll(sql);
  return (r.getRowsJson() as unknown[][]).map((row) => row.map(normCell));
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
