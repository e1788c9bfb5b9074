/**
 * Differential test of the dialect layer: every corpus query runs verbatim on MariaDB (the
 * reference) and, compiled by src/sql/dialects, on PostgreSQL and on DuckDB over the same
 * fixture. Results must match modulo representation: numbers within the precision MySQL
 * printed, dates as 'YYYY-MM-DD', JSON compared as values. Known gaps are listed in the
 * corpus and reported as todo instead of failing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import pkg from 'node-sql-parser/build/mysql.js';
import pg from 'pg';
import { canCompile, compile } from '../../../src/sql/dialects/index.js';
import type { CompileOptions, Target } from '../../../src/sql/dialects/types.js';
import { normalizeAst } from '../../../src/sql/parse/normalize.js';
import { createMariaDatabase, createPgDatabase, MARIADB, PG } from '../../helpers/services.js';
import { CORPUS, type CorpusQuery } from './corpus.js';
import { COLUMN_TYPES, fixtureSql } from './fixture.js';

const { Parser } = pkg as unknown as { Parser: new () => { astify(sql: string, o: object): any } };
const parser = new Parser();

type Cell = null | number | string | { num: number; decimals: number | null };
type Rows = Cell[][];

const RAW_PG_TYPES = new Set([1082, 1083, 1114, 1184, 114, 3802, 1186]);

function parse(sql: string): any {
  const ast = normalizeAst(parser.astify(sql, { database: 'MySQL' }));
  return Array.isArray(ast) ? ast[0] : ast;
}

const OPTS: CompileOptions = {
  columnType: (ref) => COLUMN_TYPES[ref.column] ?? COLUMN_TYPES[ref.column.toLowerCase()] ?? null,
};

function normCell(v: unknown): Cell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') {
    // MariaDB prints doubles with limited digits (PI() is 3.141593): keep the precision it showed.
    const m = /\.(\d+)$/.exec(String(v));
    return m ? { num: v, decimals: m[1].length } : v;
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (typeof v === 'object') return canonicalJson(v);
  const s = String(v);
  const num = /^-?(\d+)(?:\.(\d+))?(?:[eE][+-]?\d+)?$/.exec(s);
  if (num) return { num: Number(s), decimals: /[eE]/.test(s) ? null : (num[2]?.length ?? 0) };
  const dt = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/.exec(s);
  if (dt) {
    const frac = (dt[3] ?? '').replace(/0+$/, '');
    if (dt[2] === '00:00:00' && !frac) return dt[1];
    return `${dt[1]} ${dt[2]}${frac ? `.${frac}` : ''}`;
  }
  if (/^\s*[[{]/.test(s)) {
    try {
      return canonicalJson(JSON.parse(s));
    } catch {
      return s;
    }
  }
  return s;
}

function canonicalJson(v: unknown): string {
  const sort = (x: any): any =>
    Array.isArray(x)
      ? x.map(sort)
      : x && typeof x === 'object'
        ? Object.fromEntries(
            Object.keys(x)
              .sort()
              .map((k) => [k, sort(x[k])]),
          )
        : x;
  return JSON.stringify(sort(v));
}

const numOf = (c: Cell): number | null =>
  typeof c === 'number' ? c : c && typeof c === 'object' ? c.num : null;

function cellsEqual(ref: Cell, got: Cell): boolean {
  const a = numOf(ref);
  const b = numOf(got);
  if (a !== null && b !== null) {
    const decimals = ref && typeof ref === 'object' ? ref.decimals : null;
    let tol = 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
    if (decimals !== null) tol = Math.max(tol, 0.5 * 10 ** -decimals + 1e-12);
    return Math.abs(a - b) <= tol;
  }
  if (a !== null || b !== null) {
    // A number printed as text on one side (e.g. '1.50' vs 1.5) still compares as a number.
    return String(a ?? ref) === String(b ?? got);
  }
  return ref === got;
}

function sortKey(row: Cell[]): string {
  return JSON.stringify(row.map((c) => (numOf(c) !== null ? Number(numOf(c)).toFixed(2) : c)));
}

function compareRows(ref: Rows, got: Rows, ordered: boolean): string | null {
  if (ref.length !== got.length) return `row count ${got.length}, expected ${ref.length}`;
  const a = ordered ? ref : [...ref].sort((x, y) => sortKey(x).localeCompare(sortKey(y)));
  const b = ordered ? got : [...got].sort((x, y) => sortKey(x).localeCompare(sortKey(y)));
  for (let i = 0; i < a.length; i++) {
    if (a[i].length !== b[i].length) return `row ${i}: ${b[i].length} columns, expected ${a[i].length}`;
    for (let j = 0; j < a[i].length; j++) {
      if (!cellsEqual(a[i][j], b[i][j])) {
        return `row ${i} col ${j}: got ${JSON.stringify(b[i][j])}, expected ${JSON.stringify(a[i][j])}\n  got row ${JSON.stringify(b[i])}\n  expected ${JSON.stringify(a[i])}`;
      }
    }
  }
  return null;
}

let maria: { database: string; drop: () => Promise<void> };
let pgdb: { database: string; drop: () => Promise<void> };
let mconn: mysql.Connection;
let pconn: pg.Client;
let duck: Awaited<ReturnType<DuckDBInstance['connect']>>;
const reference = new Map<string, Rows | Error>();
const tally: Record<string, { pass: number; refused: string[]; mismatch: string[]; known: number }> = {
  postgres: { pass: 0, refused: [], mismatch: [], known: 0 },
  duckdb: { pass: 0, refused: [], mismatch: [], known: 0 },
};
/** Informational: the same corpus compiled without column types (a planner that knows none). */
const untyped: Record<string, { pass: number; failed: string[] }> = {
  postgres: { pass: 0, failed: [] },
  duckdb: { pass: 0, failed: [] },
};

before(async () => {
  maria = await createMariaDatabase('dial');
  pgdb = await createPgDatabase('dial');
  mconn = await mysql.createConnection({
    ...MARIADB,
    database: maria.database,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    // mysql2 unquotes/parses JSON results from MariaDB; the comparison wants the text MySQL sends.
    typeCast: (field: any, next: () => unknown) => {
      if (!/BLOB|JSON/.test(String(field.type))) return next();
      const b = field.buffer();
      return b === null ? null : b.toString('utf8');
    },
  });
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
});

after(async () => {
  for (const [target, t] of Object.entries(tally)) {
    process.stderr.write(
      `dialect differential ${target}: ${t.pass}/${CORPUS.length} equal to MariaDB, ${t.refused.length} refused, ${t.mismatch.length} different, ${t.known} known; without column types ${untyped[target].pass}/${CORPUS.length}\n`,
    );
    if (process.env.DIALECT_VERBOSE)
      for (const q of untyped[target].failed) process.stderr.write(`  untyped ${target}: ${q}\n`);
  }
  await mconn?.end();
  await pconn?.end();
  duck?.closeSync?.();
  await maria?.drop();
  await pgdb?.drop();
});

async function referenceRows(q: CorpusQuery): Promise<Rows> {
  let r = reference.get(q.sql);
  if (!r) {
    try {
      const [rows] = await mconn.query({ sql: q.reference ?? q.sql, rowsAsArray: true });
      r = (rows as unknown[][]).map((row) => row.map(normCell));
    } catch (e) {
      r = e as Error;
    }
    reference.set(q.sql, r);
  }
  if (r instanceof Error) throw new Error(`MariaDB rejected the reference query: ${r.message}`);
  return r;
}

async function runTarget(target: Target, sql: string): Promise<Rows> {
  if (target === 'postgres') {
    const r = await pconn.query({ text: sql, rowMode: 'array' });
    return (r.rows as unknown[][]).map((row) => row.map(normCell));
  }
  const r = await duck.runAndReadAll(sql);
  return (r.getRowsJson() as unknown[][]).map((row) => row.map(normCell));
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
        const can = canCompile(ast, target, OPTS);
        if (!can.ok) {
          if (known) tally[target].known++;
          else tally[target].refused.push(q.sql);
          assert.fail(`refused: ${can.reason}`);
        }
        const sql = compile(ast, target, OPTS);
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
