/**
 * MySQL's collation at the source's speed, checked against MariaDB on data made of the
 * spellings the collation equates ('Purchase', 'PURCHASE ', 'purchasé', 'úser-42'): every
 * query runs natively on MariaDB and through Tributary over a PostgreSQL copy (pushed down
 * whole), and across both sources. PostgreSQL is ANALYZEd, so the statistics' known
 * spellings are used, and then rows with spellings the statistics never saw are added:
 * answers must not depend on statistics. Also: dynamic filters, and collation = 'source'.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import type { Result } from '../../../../src/sql/result.js';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../../helpers/server.js';
import {
  createMariaDatabase,
  createPgDatabase,
  MARIADB,
  mariaExec,
  pgExec,
} from '../../../helpers/services.js';

const WORDS = [
  'purchase',
  'Purchase',
  'PURCHASE ',
  'purchasé',
  'view',
  'View',
  'user-42',
  'USER-42 ',
  'úser-42',
  'user-4',
  'straße',
  'strasse',
  '50%_off',
  '',
  ' ',
  null,
];
/** Added after ANALYZE: spellings the statistics do not know. */
const LATE = ['PurchasE', 'VIEW  ', 'Úser-42', 'purchase', null];

function rows(words: (string | null)[], from: number): string {
  const lit = (w: string | null) => (w === null ? 'NULL' : `'${w.replace(/'/g, "''")}'`);
  // Many copies of the common spellings, so ANALYZE lists them as most common values.
  const out: string[] = [];
  let id = from;
  for (let copy = 0; copy < 30; copy++)
    for (const w of words)
      out.push(`(${id++}, ${lit(w)}, ${lit(w === null ? null : `${w.toUpperCase()}-k`)}, ${id % 7})`);
  return out.join(', ');
}

/** A statement that must succeed without rows. */
function done(r: Result): void {
  assert.equal(r.type, 'ok', r.type === 'error' ? r.error_message : undefined);
}

const QUERIES = [
  "SELECT COUNT(*) FROM words WHERE w = 'purchase'",
  "SELECT COUNT(*) FROM words WHERE w = 'PURCHASE'",
  "SELECT COUNT(*) FROM words WHERE w <> 'purchase'",
  "SELECT COUNT(*) FROM words WHERE w = 'user-42'",
  "SELECT COUNT(*) FROM words WHERE w = 'strasse'",
  "SELECT COUNT(*) FROM words WHERE w = '50%_off'",
  "SELECT COUNT(*) FROM words WHERE w = ''",
  "SELECT COUNT(*) FROM words WHERE w IN ('view', 'USER-42')",
  "SELECT COUNT(*) FROM words WHERE w NOT IN ('view', 'USER-42')",
  "SELECT COUNT(*) FROM words WHERE NOT (w = 'view')",
  'SELECT COUNT(DISTINCT w) FROM words',
  'SELECT COUNT(DISTINCT w, tag) FROM words',
  'SELECT LOWER(w), COUNT(*), SUM(n), AVG(n), MIN(id), MAX(n) FROM words GROUP BY w',
  'SELECT LOWER(w), COUNT(*) FROM words GROUP BY w HAVING COUNT(*) > 30',
  'SELECT LOWER(w) FROM words GROUP BY w ORDER BY COUNT(*) DESC, LOWER(w) LIMIT 3',
  'SELECT LOWER(w), LOWER(tag), COUNT(*) FROM words GROUP BY w, tag',
  'SELECT DISTINCT LOWER(w) FROM words',
  'SELECT n, COUNT(DISTINCT w) FROM words GROUP BY n',
];

/** Rows as comparable text: MySQL's collation makes the spelling a group shows arbitrary, so it is lower-cased and trimmed. */
function canon(data: unknown[][]): string[] {
  return data
    .map((r) =>
      JSON.stringify(
        r.map((v) => {
          if (v === null) return null;
          // Numbers to MySQL's 4 decimals of AVG.
          const num = (x: unknown) => Math.round(Number(x) * 1e4) / 1e4;
          if (typeof v === 'string') return /^-?\d+(\.\d+)?$/.test(v) ? num(v) : v.toLowerCase().trimEnd();
          return num(v);
        }),
      ),
    )
    .sort();
}

describe("MySQL's collation, at the source, against MariaDB", () => {
  let server: TestServer;
  let pgdb: { database: string; drop: () => Promise<void> };
  let mydb: { database: string; drop: () => Promise<void> };
  let maria: mysql.Connection;

  const ok = (r: Result) => {
    if (r.type === 'error') throw new Error(r.error_message);
    assert.equal(r.type, 'table');
    return (r as Extract<Result, { type: 'table' }>).data;
  };
  const native = async (sql: string) => {
    const [r] = await maria.query({ sql, rowsAsArray: true });
    return r as unknown[][];
  };

  before(async () => {
    pgdb = await createPgDatabase('coll');
    mydb = await createMariaDatabase('coll');
    await pgExec(
      pgdb.database,
      `CREATE TABLE words (id int PRIMARY KEY, w text, tag varchar(40), n int);
       INSERT INTO words VALUES ${rows(WORDS, 1)}; ANALYZE words;
       INSERT INTO words VALUES ${rows(LATE, 10000)};`,
    );
    await mariaExec(
      mydb.database,
      `CREATE TABLE words (id INT PRIMARY KEY, w TEXT, tag VARCHAR(40), n INT) DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci;
       INSERT INTO words VALUES ${rows(WORDS, 1)}; INSERT INTO words VALUES ${rows(LATE, 10000)};`,
    );
    maria = await mysql.createConnection({ ...MARIADB, database: mydb.database });
    server = await startTestServer();
    done(
      await server.sql(
        `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgdb.database)}`,
      ),
    );
  });

  after(async () => {
    await server?.stop();
    await maria?.end();
    await pgdb?.drop();
    await mydb?.drop();
  });

  test('statistics are in use: a known spelling is decided by a plain comparison', async () => {
    const plan = ok(
      await server.sql("EXPLAIN SELECT COUNT(*) FROM words WHERE w = 'purchase'", { db: 'pg' }),
    );
    assert.match(String(plan[0][3]), /"w" IN \(.*'Purchase'.*\) OR \("w" NOT IN \(/);
  });

  for (const q of QUERIES) {
    test(q, async () => {
      const expected = canon(await native(q));
      assert.deepEqual(canon(ok(await server.sql(q, { db: 'pg' }))), expected, 'pushed down to PostgreSQL');
    });
  }
});

describe('dynamic filters and collation = source', () => {
  let server: TestServer;
  let pgdb: { database: string; drop: () => Promise<void> };
  let mydb: { database: string; drop: () => Promise<void> };

  const data = (r: Result) => {
    if (r.type === 'error') throw new Error(r.error_message);
    return (r as Extract<Result, { type: 'table' }>).data;
  };

  before(async () => {
    pgdb = await createPgDatabase('dyn');
    mydb = await createMariaDatabase('dyn');
    await pgExec(
      pgdb.database,
      `CREATE TABLE facts AS SELECT g AS id, (g % 8000) + 1 AS k, (g % 10) AS v,
         (ARRAY['Paris','paris ','Oslo'])[1 + g % 3] AS city FROM generate_series(1, 40000) g;
       CREATE INDEX ON facts (k); ANALYZE facts;`,
    );
    await mariaExec(
      mydb.database,
      `CREATE TABLE dim (k INT PRIMARY KEY, grp INT, city VARCHAR(20));
       INSERT INTO dim SELECT seq, seq % 100, ELT(1 + seq % 3, 'PARIS', 'oslo', 'Rome') FROM seq_1_to_8000;`,
    );
    server = await startTestServer();
    done(
      await server.sql(
        `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgdb.database)}`,
      ),
    );
    done(
      await server.sql(
        `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(mydb.database)}`,
      ),
    );
    const src = JSON.stringify({ ...JSON.parse(pgParams(pgdb.database)), collation: 'source' });
    done(await server.sql(`CREATE DATABASE pgsrc WITH ENGINE = 'postgres', PARAMETERS = ${src}`));
  });

  after(async () => {
    await server?.stop();
    await pgdb?.drop();
    await mydb?.drop();
  });

  const join = (where: string) =>
    `SELECT COUNT(*), SUM(f.v) FROM pg.facts f JOIN my.dim d ON d.k = f.k WHERE ${where}`;

  test('the filtered side narrows the other through the join keys, and the answer is unchanged', async () => {
    const plan = data(await server.sql(`EXPLAIN ${join('d.grp = 7')}`));
    assert.match(String(plan[0][2]), /dynamic filter: k IN \(keys of __f1\.k, at most 5000\)/);
    assert.match(String(plan[1][2]), /exact filters: d\.grp = 7/);
    // 8000 keys: 80 have grp = 7 (k ending in 7), each joined by 5 facts rows whose v is 6.
    assert.deepEqual(data(await server.sql(join('d.grp = 7'))), [[400, 2400]]);
  });

  test('more keys than an IN list takes: the other side is read whole, same answer', async () => {
    const r = data(await server.sql(join('d.grp < 90')));
    assert.deepEqual(r, [[36000, 162000]]);
  });

  test('text keys narrow with MySQL semantics (PARIS matches Paris and paris )', async () => {
    // dim 3 is 'PARIS'; facts hold 'Paris' (13333 rows) and 'paris ' (13334).
    const q = 'SELECT COUNT(*) FROM pg.facts f JOIN my.dim d ON d.city = f.city WHERE d.k = 3';
    assert.deepEqual(data(await server.sql(q)), [[26667]]);
  });

  test("collation = 'source': comparisons as PostgreSQL makes them, pushed as written", async () => {
    assert.deepEqual(
      data(await server.sql("SELECT COUNT(*) FROM facts WHERE city = 'Paris'", { db: 'pgsrc' })),
      [[13333]],
    );
    assert.deepEqual(
      data(await server.sql("SELECT COUNT(*) FROM facts WHERE city = 'Paris'", { db: 'pg' })),
      [[26667]],
    );
    const plan = data(await server.sql("EXPLAIN SELECT id FROM facts WHERE city = 'Paris'", { db: 'pgsrc' }));
    assert.match(String(plan[0][3]), /WHERE "city" = 'Paris'$/);
    const engines = data(await server.sql('SHOW ENGINES'));
    const pgRow = engines.find((r) => r[0] === 'postgres')!;
    assert.match(String(pgRow.at(-1)), /collation: text comparison, grouping and sorting: mysql \(default/);
  });
});
