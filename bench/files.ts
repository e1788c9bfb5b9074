/**
 * Files benchmark: (1) upload + first query of a 1,000,000-row CSV through the real
 * server, against DuckDB reading the same file directly, in one run (target ≤ 1.3x);
 * (2) peak RSS of the server process (VmHWM) over a whole 1 GB CSV ingest (target ≤ 200 MB):
 * the upload and the background conversion to Parquet that follows it.
 * (3) upload + first query of a 50 MB CSV with the file bytes in the shared PostgreSQL
 * catalog versus the local storage dir, and the first query on a second replica
 * (files-catalog.ts; FILES_BENCH_CATALOG=0 skips it).
 * Run alone: `node --import tsx bench/files.ts` (FILES_BENCH_GB=0 skips the 1 GB part).
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { benchCatalogFiles } from './files-catalog.js';
import { startBareReceiver } from './files-floor.js';
import { peakRssMb, round, sql, startChildServer, time } from './lib.js';

export const QUERY = (from: string) =>
  `SELECT COUNT(*) AS n, SUM(amount) AS total, COUNT(DISTINCT name) AS names FROM ${from}`;

/** A CSV with integers, text (some quoted, with commas), decimals, dates and booleans. */
export async function writeCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  out.write('id,name,amount,day,flag\n');
  const names = ['alpha', 'bravo', 'charlie', 'delta, inc', 'echo'];
  const day0 = Date.UTC(2020, 0, 1);
  let buf = '';
  for (let i = 1; i <= rows; i++) {
    const name = `${names[i % 5]}_${i % 1000}`;
    const day = new Date(day0 + (i % 1500) * 86400000).toISOString().slice(0, 10);
    buf += `${i},${name.includes(',') ? `"${name}"` : name},${(i % 100000) / 100},${day},${i % 3 === 0}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'close');
}

/** PUT the file with node:http, piped from disk as curl -T would (fetch's web streams add their own cost). */
export function upload(url: string, name: string, path: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/files/${name}`,
      {
        method: 'PUT',
        headers: { 'content-type': 'text/csv', 'content-length': String(statSync(path).size) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          if ((res.statusCode ?? 500) >= 300) reject(new Error(`upload ${name}: ${res.statusCode} ${text}`));
          else resolve(JSON.parse(text));
        });
      },
    );
    req.on('error', reject);
    createReadStream(path, { highWaterMark: 1 << 20 }).pipe(req);
  });
}

/** Poll GET /api/files until `name` is stored as Parquet: its background conversion is done. */
async function untilConverted(url: string, name: string, timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = (await (await fetch(`${url}/api/files`)).json()) as any[];
    const rec = list.find((f) => f.name === name);
    if (rec?.stored_as === 'parquet') return rec;
    if (Date.now() > deadline) throw new Error(`${name} was not converted within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

async function directDuckDb(path: string): Promise<{ ms: number; value: unknown }> {
  return time(async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    const r = await conn.runAndReadAll(QUERY(`read_csv('${path.replace(/'/g, "''")}')`));
    const rows = r.getRowsJS();
    conn.closeSync();
    db.closeSync();
    return rows;
  });
}

export async function benchFiles(): Promise<object> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-files-bench-'));
  const out: Record<string, unknown> = {};
  try {
    const csv = join(dir, 'million.csv');
    await writeCsv(csv, 1_000_000);
    const server = await startChildServer({ TRIBUTARY_MAX_UPLOAD_BYTES: String(4 * 1024 ** 3) });
    try {
      // A tiny upload and query first, so the timed ones measure ingest and reading the
      // new table rather than server warm-up (lazy module loading, the SQL engine's first
      // plan, the HTTP client's pool); the timed table itself is still read for the first time.
      const warm = join(dir, 'warm.csv');
      await writeCsv(warm, 10);
      await upload(server.url, 'warmup', warm);
      await sql(server.url, QUERY('files.warmup'));
      const direct = await directDuckDb(csv);
      const up = await time(() => upload(server.url, 'million', csv));
      const first = await time(() => sql(server.url, QUERY('files.million')));
      const direct2 = await directDuckDb(csv);
      const directMs = Math.min(direct.ms, direct2.ms);
      // The same bytes into a bare receiver: the part of upload_ms no server design can remove.
      const bare = await startBareReceiver(join(dir, 'bare.out'));
      let bareMs: number;
      try {
        await upload(bare.url, 'warm', warm);
        const runs = [];
        for (let i = 0; i < 3; i++) runs.push((await time(() => upload(bare.url, 'bare', csv))).ms);
        bareMs = Math.min(...runs);
      } finally {
        await bare.stop();
      }
      out.million_rows = {
        csv_mb: round(statSync(csv).size / 1024 ** 2, 1),
        upload_ms: round(up.ms, 0),
        first_query_ms: round(first.ms, 0),
        upload_plus_query_ms: round(up.ms + first.ms, 0),
        duckdb_direct_ms: round(directMs, 0),
        ratio: round((up.ms + first.ms) / directMs, 2),
        target_ratio: 1.3,
        // Receiving the file and nothing else, plus our first query: what the ratio would be
        // if the upload cost no more than a bare node:http server writing it to disk.
        bare_receive_ms: round(bareMs, 0),
        floor_ratio: round((bareMs + first.ms) / directMs, 2),
        same_count: Number(first.value.data?.[0]?.[0]) === Number((direct.value as any)[0][0]),
      };
    } finally {
      await server.stop();
    }
    rmSync(csv, { force: true });

    if (process.env.FILES_BENCH_CATALOG !== '0') out.catalog_vs_local_50mb = await benchCatalogFiles(dir);

    const gb = Number(process.env.FILES_BENCH_GB ?? '1');
    if (gb > 0) {
      const big = join(dir, 'big.csv');
      await writeCsv(big, Math.round(gb * 23_000_000));
      const server2 = await startChildServer({ TRIBUTARY_MAX_UPLOAD_BYTES: String(4 * 1024 ** 3) });
      try {
        const idle = rssMb(server2.pid);
        const idlePeak = peakRssMb(server2.pid);
        const up = await time(() => upload(server2.url, 'big', big));
        const conv = await time(() => untilConverted(server2.url, 'big', 30 * 60_000));
        const peak = peakRssMb(server2.pid);
        out.gigabyte_upload = {
          csv_mb: round(statSync(big).size / 1024 ** 2, 0),
          rows: conv.value.rows,
          upload_s: round(up.ms / 1000, 1),
          // Until GET /api/files shows the row count; VmHWM is read after it.
          conversion_s: round(conv.ms / 1000, 1),
          // The idle server's own footprint (all faces loaded; under tsx it includes the
          // compiler) versus its peak during the upload: the difference is the upload path.
          server_idle_rss_mb: round(idle, 0),
          server_start_peak_rss_mb: round(idlePeak, 0),
          server_peak_rss_mb: round(peak, 0),
          upload_path_mb: round(peak - idle, 0),
          target_peak_rss_mb: 200,
        };
      } finally {
        await server2.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  benchFiles().then(
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
