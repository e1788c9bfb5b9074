/**
 * Where uploaded bytes live, measured: a 50 MB CSV uploaded and queried once with the bytes
 * in the local storage dir (one server, embedded catalog) and with them in the shared
 * PostgreSQL catalog (chunks by sha256, a local cache per replica). For the catalog, also
 * the first query on a second replica, which fetches the bytes into its cache, and for
 * both the median of a small statement over files (the catalog adds its files-version
 * check). Each upload is of different bytes (no dedupe); the best of RUNS is reported,
 * since the machine is shared.
 * Run alone: `node --import tsx bench/files-catalog.ts`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { QUERY, upload, writeCsv } from './files.js';
import { median, round, sql, startChildServer, time } from './lib.js';

const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' };
const RUNS = 3;
const ROWS = 1_250_000;

async function admin(statement: string): Promise<void> {
  const c = new pg.Client(PG);
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}

interface Measured {
  upload_ms: number;
  first_query_ms: number;
  small_query_ms: number;
  first_query_on_other_replica_ms?: number;
  same_count?: boolean;
}

/** RUNS uploads (different bytes each) and first queries on `url` (and on `other`, a second replica). */
async function measure(url: string, warm: string, csvs: string[], other?: string): Promise<Measured> {
  await upload(url, 'warmup', warm);
  await sql(url, QUERY('files.warmup'));
  if (other) await sql(other, QUERY('files.warmup'));
  const small = await median(() => sql(url, QUERY('files.warmup')), 200, 20);
  const ups: number[] = [];
  const firsts: number[] = [];
  const others: number[] = [];
  let same = true;
  for (let i = 0; i < csvs.length; i++) {
    const up = await time(() => upload(url, `fifty${i}`, csvs[i]));
    const first = await time(() => sql(url, QUERY(`files.fifty${i}`)));
    ups.push(up.ms);
    firsts.push(first.ms);
    same &&= Number(first.value.data?.[0]?.[0]) === ROWS + i;
    if (other) {
      // This replica has never read it: the registration is read and 50 MB fetched into its cache.
      const there = await time(() => sql(other, QUERY(`files.fifty${i}`)));
      others.push(there.ms);
      same &&= Number(there.value.data?.[0]?.[0]) === ROWS + i;
    }
  }
  return {
    upload_ms: round(Math.min(...ups), 0),
    first_query_ms: round(Math.min(...firsts), 0),
    small_query_ms: round(small, 2),
    ...(other ? { first_query_on_other_replica_ms: round(Math.min(...others), 0) } : {}),
    same_count: same,
  };
}

export async function benchCatalogFiles(dir?: string): Promise<object> {
  const own = !dir;
  const work = dir ?? mkdtempSync(join(tmpdir(), 'tributary-files-catalog-bench-'));
  const csvs = Array.from({ length: RUNS }, (_, i) => join(work, `fifty${i}.csv`));
  const warm = join(work, 'warm-catalog.csv');
  for (let i = 0; i < RUNS; i++) await writeCsv(csvs[i], ROWS + i);
  await writeCsv(warm, 10);
  const database = `bench_i30_files_${Date.now().toString(36)}`;
  const out: Record<string, unknown> = { csv_mb: round(statSync(csvs[0]).size / 1024 ** 2, 1), runs: RUNS };
  try {
    const local = await startChildServer();
    try {
      out.local = await measure(local.url, warm, csvs);
    } finally {
      await local.stop();
    }
    await admin(`CREATE DATABASE "${database}"`);
    const env = {
      TRIBUTARY_CATALOG_URL: `postgres://${PG.user}@${PG.host}:${PG.port}/${database}`,
      TRIBUTARY_SECRET_KEY: randomBytes(32).toString('base64'),
    };
    const a = await startChildServer(env);
    const b = await startChildServer(env);
    try {
      out.catalog = await measure(a.url, warm, csvs, b.url);
    } finally {
      await a.stop();
      await b.stop();
    }
    const l = out.local as Measured;
    const c = out.catalog as Measured;
    out.catalog_over_local_ms = round(c.upload_ms + c.first_query_ms - l.upload_ms - l.first_query_ms, 0);
    out.small_query_overhead_ms = round(c.small_query_ms - l.small_query_ms, 2);
  } finally {
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => {});
    for (const p of [...csvs, warm]) rmSync(p, { force: true });
    if (own) rmSync(work, { recursive: true, force: true });
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  benchCatalogFiles().then(
    (r) => {
      console.log(JSON.stringify(r, null, 2));
      process.exit(0);
    },
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
