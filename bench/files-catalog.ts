/**
 * Where uploaded bytes live, measured: a 50 MB CSV uploaded and queried once with the bytes
 * in the local storage dir (one server, embedded catalog) and with them in the shared
 * PostgreSQL catalog (chunks by sha256, a local cache per replica). For the catalog, also
 * the first query on a second replica, which fetches the bytes into its cache.
 * Run alone: `node --import tsx bench/files-catalog.ts`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { QUERY, upload, writeCsv } from './files.js';
import { round, sql, startChildServer, time } from './lib.js';

const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' };

async function admin(statement: string): Promise<void> {
  const c = new pg.Client(PG);
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}

/** Upload + first query on one server of `env`, after a warm-up upload and query. */
async function uploadAndQuery(url: string, warm: string, csv: string) {
  await upload(url, 'warmup', warm);
  await sql(url, QUERY('files.warmup'));
  const up = await time(() => upload(url, 'fifty', csv));
  const first = await time(() => sql(url, QUERY('files.fifty')));
  return {
    upload_ms: round(up.ms, 0),
    first_query_ms: round(first.ms, 0),
    count: first.value.data?.[0]?.[0],
  };
}

export async function benchCatalogFiles(dir?: string): Promise<object> {
  const own = !dir;
  const work = dir ?? mkdtempSync(join(tmpdir(), 'tributary-files-catalog-bench-'));
  const csv = join(work, 'fifty.csv');
  const warm = join(work, 'warm-catalog.csv');
  await writeCsv(csv, 1_250_000);
  await writeCsv(warm, 10);
  const database = `bench_i30_files_${Date.now().toString(36)}`;
  const out: Record<string, unknown> = { csv_mb: round(statSync(csv).size / 1024 ** 2, 1) };
  try {
    const local = await startChildServer();
    try {
      out.local = await uploadAndQuery(local.url, warm, csv);
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
      const onA = await uploadAndQuery(a.url, warm, csv);
      // B has never read it: the registration is read and 50 MB fetched into its cache.
      await sql(b.url, QUERY('files.warmup'));
      const onB = await time(() => sql(b.url, QUERY('files.fifty')));
      out.catalog = {
        ...onA,
        first_query_on_other_replica_ms: round(onB.ms, 0),
        same_count_on_other_replica: Number(onB.value.data?.[0]?.[0]) === Number(onA.count),
      };
    } finally {
      await a.stop();
      await b.stop();
    }
    const l = out.local as { upload_ms: number; first_query_ms: number };
    const c = out.catalog as { upload_ms: number; first_query_ms: number };
    out.catalog_over_local = round(c.upload_ms + c.first_query_ms - l.upload_ms - l.first_query_ms, 0);
  } finally {
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => {});
    rmSync(csv, { force: true });
    rmSync(warm, { force: true });
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
