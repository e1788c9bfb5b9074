/**
 * Engine benchmarks (issue 2), side by side in one run:
 *  1. cross-source join + aggregate of 1,000,000 PostgreSQL rows with 100,000 MariaDB rows,
 *     against the floor of streaming the same rows out of each database (COPY TO STDOUT,
 *     mysql2 stream). Target ≤ 1.5x.
 *  2. one-row and 1,000-row queries through /api/sql/query against the driver directly.
 *     Target ≤ +1 ms at the median.
 *  3. peak RSS of the server while /api/sql/query returns 1,000,000 rows. Target ≤ 300 MB.
 */
import mysql from 'mysql2';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import {
  createMariaDatabase,
  createPgDatabase,
  MARIADB,
  mariaExec,
  PG,
  pgExec,
} from '../test/helpers/services.js';
import { median, peakRssMb, round, sql, startChildServer, time } from './lib.js';

const PG_ROWS = 1_000_000;
const MY_ROWS = 100_000;

async function pgCopyFloor(database: string, query: string): Promise<number> {
  const c = new pg.Client({ ...PG, database });
  await c.connect();
  try {
    const { ms } = await time(
      () =>
        new Promise<void>((resolve, reject) => {
          const s = c.query(copyTo(`COPY (${query}) TO STDOUT`));
          s.on('data', () => {});
          s.on('end', () => resolve());
          s.on('error', reject);
        }),
    );
    return ms;
  } finally {
    await c.end();
  }
}

async function mysqlStreamFloor(database: string, query: string): Promise<number> {
  const c = mysql.createConnection({ ...MARIADB, database, rowsAsArray: true });
  try {
    const { ms } = await time(
      () =>
        new Promise<void>((resolve, reject) => {
          const s = c.query(query).stream();
          s.on('data', () => {});
          s.on('end', () => resolve());
          s.on('error', reject);
        }),
    );
    return ms;
  } finally {
    c.end();
  }
}

export async function benchEngine(): Promise<Record<string, unknown>> {
  const pgdb = await createPgDatabase('bench');
  const mydb = await createMariaDatabase('bench');
  const server = await startChildServer();
  try {
    await pgExec(
      pgdb.database,
      `CREATE TABLE facts AS SELECT g AS id, (g % ${MY_ROWS}) + 1 AS k, round((random() * 1000)::numeric, 2) AS v, 'row-' || g AS label
         FROM generate_series(1, ${PG_ROWS}) g;
       CREATE TABLE small AS SELECT g AS id, 'name-' || g AS name FROM generate_series(1, 1000) g;
       ALTER TABLE small ADD PRIMARY KEY (id); ANALYZE facts; ANALYZE small;`,
    );
    await mariaExec(
      mydb.database,
      `CREATE TABLE dim (k INT PRIMARY KEY, grp INT, name VARCHAR(40));
       INSERT INTO dim SELECT seq, seq % 100, CONCAT('dim-', seq) FROM seq_1_to_${MY_ROWS};`,
    );
    await sql(
      server.url,
      `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = {"host":"127.0.0.1","user":"postgres","database":"${pgdb.database}"}`,
    );
    await sql(
      server.url,
      `CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = {"host":"127.0.0.1","user":"root","database":"${mydb.database}"}`,
    );

    // 1. Cross-source join + aggregate vs. the streaming floor.
    const join =
      'SELECT d.grp, COUNT(*) AS n, SUM(f.v) AS total FROM pg.facts f JOIN my.dim d ON d.k = f.k GROUP BY d.grp ORDER BY d.grp';
    await sql(server.url, join); // warm pools and caches
    const joinRuns: number[] = [];
    const floorRuns: { pg: number; my: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const pgMs = await pgCopyFloor(pgdb.database, 'SELECT k, v FROM facts');
      const myMs = await mysqlStreamFloor(mydb.database, 'SELECT k, grp FROM dim');
      floorRuns.push({ pg: pgMs, my: myMs });
      const r = await time(() => sql(server.url, join));
      if (r.value.data.length !== 100) throw new Error(`join returned ${r.value.data.length} groups`);
      joinRuns.push(r.ms);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const floorSeq = med(floorRuns.map((f) => f.pg + f.my));
    const floorPar = med(floorRuns.map((f) => Math.max(f.pg, f.my)));
    const joinMs = med(joinRuns);

    // 2. Per-query overhead through /api/sql/query vs the driver.
    const direct = new pg.Pool({ ...PG, database: pgdb.database, max: 2 });
    const one = 'SELECT id, name FROM small WHERE id = 42';
    const thousand = 'SELECT id, name FROM small ORDER BY id';
    const driverOne = await median(() => direct.query({ text: one, rowMode: 'array' }), 300, 20);
    const apiOne = await median(() => sql(server.url, one.replace('FROM small', 'FROM pg.small')), 300, 20);
    const driverK = await median(() => direct.query({ text: thousand, rowMode: 'array' }), 200, 10);
    const apiK = await median(
      () => sql(server.url, thousand.replace('FROM small', 'FROM pg.small')),
      200,
      10,
    );
    await direct.end();

    // 3. Peak RSS while streaming 1,000,000 rows out of /api/sql/query, in a fresh server
    // (so the join above does not count against it).
    const fresh = await startChildServer();
    await sql(
      fresh.url,
      `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = {"host":"127.0.0.1","user":"postgres","database":"${pgdb.database}"}`,
    );
    const before = peakRssMb(fresh.pid);
    const res = await fetch(`${fresh.url}/api/sql/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'SELECT id, k, v, label FROM pg.facts' }),
    });
    let bytes = 0;
    for await (const chunk of res.body as any) bytes += chunk.length;
    const peak = peakRssMb(fresh.pid);
    await fresh.stop();

    return {
      cross_source_join_ms: round(joinMs),
      floor_sequential_ms: round(floorSeq),
      floor_parallel_ms: round(floorPar),
      ratio_vs_sequential_floor: round(joinMs / floorSeq),
      ratio_vs_parallel_floor: round(joinMs / floorPar),
      target_ratio: 1.5,
      one_row: {
        driver_p50_ms: round(driverOne, 3),
        api_p50_ms: round(apiOne, 3),
        added_ms: round(apiOne - driverOne, 3),
      },
      thousand_rows: {
        driver_p50_ms: round(driverK, 3),
        api_p50_ms: round(apiK, 3),
        added_ms: round(apiK - driverK, 3),
      },
      target_added_ms: 1,
      million_rows_response_mb: round(bytes / 1e6, 1),
      server_peak_rss_mb: round(peak, 1),
      server_rss_before_mb: round(before, 1),
      target_peak_rss_mb: 300,
    };
  } finally {
    await server.stop();
    await pgdb.drop();
    await mydb.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchEngine().then((r) => console.log(JSON.stringify(r, null, 2)));
}
