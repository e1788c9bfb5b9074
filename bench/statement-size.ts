/**
 * Statement size (issue 27), side by side in one run against one PostgreSQL table: big IN
 * lists, multi-row INSERTs, long CASE chains and wide UNIONs sent through
 * `POST /api/sql/query`, and PyMySQL's `executemany` over the MySQL listener, each timed to
 * its answer while a bystander client sends `SELECT 1` every 20 ms over the same HTTP port.
 * Beside each, the same statement sent to PostgreSQL directly (the pg driver's simple query
 * protocol, as psql sends it).
 *
 * Each statement is timed as the first of its shape (a fresh alias or comment: parsing and
 * planning included, which is where a big statement used to stall the server; median of
 * three) and as a later one of the same shape with other values (median of two).
 * Targets: each statement within 1.5x of PostgreSQL's own time + 50 ms; the bystander's worst
 * wait at most 50 ms over its idle median; a 10,000-value IN list under 500 ms end to end.
 * `STATEMENT_SIZE_CASES` (names, comma separated) runs only those rows.
 * `parser_alone_ms` is node-sql-parser on the whole text, warm, in this process: what a
 * statement with no list of literals to set aside cannot avoid (a list never reaches it).
 */
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import parserPkg from 'node-sql-parser/build/mysql.js';
import pg from 'pg';
import { Client } from 'undici';
import { ensurePythonClients } from '../test/helpers/debian-clients.js';
import { createPgDatabase, PG, pgExec } from '../test/helpers/services.js';
import { percentile, round, sleep, sql, startChildServer } from './lib.js';

const run = promisify(execFile);
const { Parser } = parserPkg as unknown as { Parser: new () => { astify(sql: string, o: object): unknown } };

/** node-sql-parser alone on the whole text, warm (median of 3): the parse a statement without lists cannot avoid. */
function parserAloneMs(text: string): number {
  const p = new Parser();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    try {
      p.astify(text, { database: 'MySQL' });
    } catch {
      // a grammar gap still costs its time
    }
    if (i >= 2) times.push(performance.now() - t0);
  }
  return percentile(times, 50);
}
const ROWS = 100_000;
const BYSTANDER_EVERY_MS = 20;

interface Case {
  name: string;
  /** The statement as Tributary gets it: `shape` makes its shape new (an alias or a comment), `v` its values. */
  tributary(shape: number, v: number): string;
  /** The same statement as PostgreSQL gets it. */
  direct(shape: number, v: number): string;
  /** Run before each timed run (outside the timing), e.g. to empty the insert target. */
  reset?: string;
  check(result: any): void;
}

const ints = (n: number, v = 0) => Array.from({ length: n }, (_, i) => i * 7 + 1 + v).join(', ');
const rows = (n: number, from: number) =>
  Array.from({ length: n }, (_, i) => `(${from + i}, 'name ${from + i}', ${(i % 1000) + 0.25})`).join(', ');
const caseChain = (n: number) =>
  `CASE ${Array.from({ length: n }, (_, i) => `WHEN id = ${i} THEN 'b${i}'`).join(' ')} ELSE 'none' END`;
const unionOf = (n: number, table: string) =>
  Array.from({ length: n }, (_, i) => `SELECT id FROM ${table} WHERE id = ${i + 1}`).join(' UNION ALL ');

const countIs = (want: number) => (r: any) => {
  const got = Number(r.type === 'table' ? r.data[0][0] : r.affected_rows);
  if (got !== want) throw new Error(`expected ${want}, got ${JSON.stringify(r).slice(0, 200)}`);
};

function cases(): Case[] {
  const out: Case[] = [];
  for (const n of [100, 1000, 10_000]) {
    const inCount = Math.min(n, Math.ceil(ROWS / 7));
    out.push({
      name: `in_list_${n}`,
      tributary: (k, v) => `SELECT COUNT(*) AS c${k} FROM pg.t WHERE id IN (${ints(n, v * 7)})`,
      direct: (k, v) => `SELECT COUNT(*) AS c${k} FROM t WHERE id IN (${ints(n, v * 7)})`,
      check: countIs(inCount),
    });
  }
  for (const n of [100, 1000, 5000]) {
    out.push({
      name: `insert_${n}_rows`,
      tributary: (k, v) => `INSERT /* ${k} */ INTO pg.ins (id, name, amount) VALUES ${rows(n, v * 100_000)}`,
      direct: (k, v) => `INSERT /* ${k} */ INTO ins (id, name, amount) VALUES ${rows(n, v * 100_000)}`,
      reset: 'TRUNCATE ins',
      check: countIs(n),
    });
  }
  out.push({
    name: 'case_2000_branches',
    tributary: (k) => `SELECT COUNT(*) AS c${k} FROM pg.t WHERE (${caseChain(2000)}) <> 'none'`,
    direct: (k) => `SELECT COUNT(*) AS c${k} FROM t WHERE (${caseChain(2000)}) <> 'none'`,
    check: countIs(1999),
  });
  out.push({
    name: 'union_300_branches',
    tributary: (k) => `SELECT COUNT(*) AS c${k} FROM (${unionOf(300, 'pg.t')}) u`,
    direct: (k) => `SELECT COUNT(*) AS c${k} FROM (${unionOf(300, 't')}) u`,
    check: countIs(300),
  });
  return out;
}

/** A client sending `SELECT 1` every 20 ms on its own connection, keeping each latency. */
function bystander(url: string) {
  const client = new Client(url);
  const samples: { at: number; ms: number }[] = [];
  let stop = false;
  const body = JSON.stringify({ query: 'SELECT 1' });
  const loop = (async () => {
    while (!stop) {
      const t0 = performance.now();
      const r = await client.request({
        path: '/api/sql/query',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await r.body.text();
      samples.push({ at: t0, ms: performance.now() - t0 });
      await sleep(BYSTANDER_EVERY_MS);
    }
  })();
  return {
    samples,
    /** The worst wait of a call that overlapped [from, to]. */
    worst(from: number, to: number): number {
      let w = 0;
      for (const s of samples) if (s.at <= to && s.at + s.ms >= from) w = Math.max(w, s.ms);
      return w;
    },
    async close() {
      stop = true;
      await loop;
      await client.close();
    },
  };
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, number, number, T]> {
  const t0 = performance.now();
  const v = await fn();
  const t1 = performance.now();
  return [t1 - t0, t0, t1, v];
}

/** PyMySQL (Debian's, defaults) `executemany` of `n` rows over the MySQL listener: its seconds. */
async function pymysqlExecutemany(
  python: string,
  port: number,
  table: string,
  n: number,
  from: number,
): Promise<number> {
  const script = `
import pymysql, time, sys
c = pymysql.connect(host='127.0.0.1', port=${port}, user='bench', password='', database='pg')
cur = c.cursor()
rows = [(${from} + i, 'name %d' % i, (i % 1000) + 0.25) for i in range(${n})]
t0 = time.perf_counter()
cur.executemany('INSERT INTO ${table} (id, name, amount) VALUES (%s, %s, %s)', rows)
c.commit()
print(time.perf_counter() - t0)
`;
  const { stdout } = await run(python, ['-c', script], { encoding: 'utf8', timeout: 600_000 });
  return Number(stdout.trim());
}

export async function benchStatementSize(): Promise<Record<string, unknown>> {
  const db = await createPgDatabase('bench');
  const server = await startChildServer({ TRIBUTARY_QUERY_TIMEOUT_MS: '600000' });
  const direct = new pg.Client({ ...PG, database: db.database });
  const by = bystander(server.url);
  const out: Record<string, unknown> = {};
  try {
    await pgExec(
      db.database,
      `CREATE TABLE t AS SELECT g AS id, 'name ' || g AS name, round((g % 1000)::numeric + 0.25, 2) AS amount
         FROM generate_series(1, ${ROWS}) g;
       ALTER TABLE t ADD PRIMARY KEY (id); ANALYZE t;
       CREATE TABLE ins (id int PRIMARY KEY, name text, amount numeric(10,2));`,
    );
    await direct.connect();
    await sql(
      server.url,
      `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = {"host":"127.0.0.1","user":"postgres","database":"${db.database}"}`,
    );
    await sql(server.url, 'SELECT COUNT(*) FROM pg.t');
    await sleep(1000);
    const idle = percentile(
      by.samples.map((s) => s.ms),
      50,
    );
    out.bystander_idle_p50_ms = round(idle, 2);
    let k = 1;
    // STATEMENT_SIZE_CASES=union_300_branches,in_list_100 runs only those (and no executemany).
    const only = process.env.STATEMENT_SIZE_CASES?.split(',').filter(Boolean);
    for (const c of cases()) {
      if (only && !only.includes(c.name)) continue;
      const runs: { ms: number; directMs: number; worst: number }[] = [];
      // Three runs each the first of its shape (cold: parse, plan, learn), then two that
      // share the last one's shape with other values (warm).
      const shapes = [k, k + 1, k + 2, k + 2, k + 2];
      for (let i = 0; i < shapes.length; i++) {
        if (c.reset) await direct.query(c.reset);
        const [directMs] = await timed(() => direct.query(c.direct(shapes[i], i)));
        if (c.reset) await direct.query(c.reset);
        const text = c.tributary(shapes[i], i);
        const [ms, from, to, r] = await timed(() => sql(server.url, text));
        c.check(r);
        await sleep(BYSTANDER_EVERY_MS * 2);
        runs.push({ ms, directMs, worst: by.worst(from, to) });
      }
      k += 3;
      const directMs = percentile(
        runs.map((r) => r.directMs),
        50,
      );
      const first = percentile(
        runs.slice(0, 3).map((r) => r.ms),
        50,
      );
      const next = percentile(
        runs.slice(3).map((r) => r.ms),
        50,
      );
      const worst = Math.max(...runs.map((r) => r.worst));
      out[c.name] = {
        parser_alone_ms: round(parserAloneMs(c.tributary(k, 0)), 1),
        first_of_shape_ms: round(first, 1),
        same_shape_ms: round(next, 1),
        postgres_ms: round(directMs, 1),
        target_ms: round(1.5 * directMs + 50, 1),
        within_target: Math.max(first, next) <= 1.5 * directMs + 50,
        bystander_worst_ms: round(worst, 1),
        bystander_over_idle_ms: round(worst - idle, 1),
      };
      process.stderr.write(`  ${c.name}: ${JSON.stringify(out[c.name])}\n`);
    }
    // PyMySQL executemany over the MySQL listener (it sends multi-row INSERTs).
    if (!only || only.includes('pymysql_executemany_1000'))
      try {
        const python = ensurePythonClients();
        const port = Number(new URL(server.url).port) + 1;
        const n = 1000;
        await direct.query('TRUNCATE ins');
        const [directMs] = await timed(() =>
          direct.query(`INSERT INTO ins (id, name, amount) VALUES ${rows(n, 1)}`),
        );
        await direct.query('TRUNCATE ins');
        const [, from, to, secs] = await timed(() => pymysqlExecutemany(python, port, 'ins', n, 1));
        const worst = by.worst(from, to);
        out.pymysql_executemany_1000 = {
          pymysql_ms: round(secs * 1000, 1),
          postgres_ms: round(directMs, 1),
          target_ms: round(1.5 * directMs + 50, 1),
          within_target: secs * 1000 <= 1.5 * directMs + 50,
          bystander_worst_ms: round(worst, 1),
          bystander_over_idle_ms: round(worst - idle, 1),
        };
      } catch (e) {
        out.pymysql_executemany_1000 = { error: (e as Error).message.slice(0, 300) };
      }
    out.targets = {
      ratio: '<= 1.5x postgres + 50 ms',
      bystander_over_idle_ms: 50,
      in_list_10000_ms: 500,
    };
    return out;
  } finally {
    await by.close();
    await direct.end().catch(() => {});
    await server.stop();
    await db.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchStatementSize().then((r) => console.log(JSON.stringify(r, null, 2)));
}
