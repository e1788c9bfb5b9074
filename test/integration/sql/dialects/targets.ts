/**
 * The engines the dialect suites compare (differential.test.ts, functions.test.ts): MariaDB
 * (the reference, and the recompiled `mysql` target), PostgreSQL, DuckDB and SQLite, each
 * holding the fixture (fixture.ts), with answers read as the comparable cells of compare.ts.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import sqliteWasm from 'node-sqlite3-wasm';
import pg from 'pg';
import type { Target } from '../../../../src/sql/dialects/types.js';
import { createMariaDatabase, createPgDatabase, MARIADB, PG } from '../../../helpers/services.js';
import { normCell, REFERENCE_CONN_OPTIONS, type Rows } from './compare.js';
import { fixtureSql } from './fixture.js';

/** PostgreSQL's date, time, JSON and interval types as the text it prints. */
const RAW_PG_TYPES = new Set([1082, 1083, 1114, 1184, 114, 3802, 1186]);

export interface FixtureTargets {
  /** The rows MariaDB answers (the reference). */
  reference(sql: string): Promise<Rows>;
  /** The rows a target answers for SQL compiled for it. */
  run(target: Target, sql: string): Promise<Rows>;
  close(): Promise<void>;
}

export async function openFixtureTargets(prefix: string): Promise<FixtureTargets> {
  const maria = await createMariaDatabase(prefix);
  const pgdb = await createPgDatabase(prefix);
  const mconn = await mysql.createConnection({
    ...MARIADB,
    database: maria.database,
    ...REFERENCE_CONN_OPTIONS,
  });
  await mconn.query("SET time_zone = '+00:00'");
  for (const s of fixtureSql('mysql')) await mconn.query(s);
  const pconn = new pg.Client({
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
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  await duck.run("SET TimeZone = 'UTC'");
  for (const s of fixtureSql('duckdb')) await duck.run(s);
  const lite = new (sqliteWasm as any).Database(':memory:');
  for (const s of fixtureSql('sqlite')) lite.run(s);

  const cells = (rows: unknown[][]): Rows => rows.map((row) => row.map(normCell));
  const run = async (target: Target, sql: string): Promise<Rows> => {
    if (target === 'mysql') return cells((await mconn.query({ sql, rowsAsArray: true }))[0] as unknown[][]);
    if (target === 'postgres') return cells((await pconn.query({ text: sql, rowMode: 'array' })).rows);
    // node-sqlite3-wasm returns objects: duplicate column names collapse (a known limitation of this runner).
    if (target === 'sqlite')
      return cells((lite.all(sql) as Record<string, unknown>[]).map((o) => Object.values(o)));
    return cells((await duck.runAndReadAll(sql)).getRowsJson() as unknown[][]);
  };
  return {
    reference: (sql) => run('mysql', sql),
    run,
    close: async () => {
      await mconn.end();
      await pconn.end();
      duck.closeSync();
      lite.close();
      await maria.drop();
      await pgdb.drop();
    },
  };
}
