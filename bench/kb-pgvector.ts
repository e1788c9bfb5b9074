/**
 * Knowledge bases stored with pgvector (`storage = src.table`), on PGlite (PostgreSQL in
 * WebAssembly, in this process) served over the wire protocol: Debian's PostgreSQL here has
 * no pgvector. Ingest N rows of ~500 characters (KB_BENCH_PG_ROWS, default 2,000: ingest
 * ran at 59-280 chunks/s here, HNSW inserts and postings in WebAssembly, so 10,000 rows took
 * 169 s and 100,000 would take most of an hour), then search
 * with one metadata filter (exact), without a filter (HNSW) and hybrid, k = 10, and compare
 * each filtered answer with a brute-force scan of the same stored vectors.
 *
 * PGlite is one single-threaded WebAssembly PostgreSQL in the bench's own process: its
 * figures are a floor for the SQL paths, not what a native PostgreSQL server would give.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { EmbeddedCatalogStore } from '../src/catalog/embedded-store.js';
import type { SourceManager } from '../src/catalog/source-manager-types.js';
import { createLogger } from '../src/core/logger.js';
import { BuiltinEmbedder } from '../src/kb/embed/builtin.js';
import { KbService } from '../src/kb/service.js';
import { postgresParams } from '../src/sources/postgres/params.js';
import { PostgresSource } from '../src/sources/postgres/source.js';
import type { SqlEngine } from '../src/sql/engine-types.js';
import type { KbSearch } from '../src/sql/kb-port.js';
import { doc, pct, WORDS } from './kb-corpus.js';

const ms = (x: number) => Number(x.toFixed(1));

export async function benchKbPgvector(): Promise<Record<string, unknown>> {
  const n = Number(process.env.KB_BENCH_PG_ROWS ?? 2_000);
  const dir = mkdtempSync(join(tmpdir(), 'tributary-kb-pg-bench-'));
  const logger = createLogger('silent');
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  const source = new PostgresSource(
    'pgv',
    postgresParams.parse({
      host: '127.0.0.1',
      port,
      user: 'postgres',
      database: 'postgres',
      sslmode: 'disable',
    }),
    logger,
  );
  const sources = { get: async () => source } as unknown as SourceManager;
  const catalog = new EmbeddedCatalogStore({ storageDir: dir, secretKey: Buffer.alloc(32, 7), pollMs: 0 });
  await catalog.init();
  const kb = new KbService({
    catalog,
    engine: null as unknown as SqlEngine,
    storageDir: dir,
    logger,
    sources,
    egress: { allowPrivate: false, allowedHosts: [], timeoutMs: 1000 },
  });
  await kb.init();
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    await kb.run(
      {
        kind: 'create_kb',
        name: 'pgbench',
        ifNotExists: false,
        params: { storage: 'pgv.kb_bench', metadata_columns: ['team'] },
      },
      {},
    );
    const data: unknown[][][] = [];
    for (let i = 0; i < n; i += 500) {
      const b: unknown[][] = [];
      for (let j = i; j < Math.min(n, i + 500); j++) b.push([j, doc(j), `team${j % 20}`]);
      data.push(b);
    }
    async function* rows() {
      yield* data;
    }
    let t = performance.now();
    await kb.insert('pgbench', { columns: ['id', 'content', 'team'], batches: rows() }, {});
    const ingestS = (performance.now() - t) / 1000;
    const chunks = Number((await client.query('SELECT count(*) AS c FROM kb_bench')).rows[0].c);

    const all = (
      await client.query(
        `SELECT chunk_id, embedding::text AS e, metadata->>'team' AS team, seq FROM kb_bench`,
      )
    ).rows.map((r) => ({
      chunkId: r.chunk_id as string,
      v: Float32Array.from(String(r.e).slice(1, -1).split(','), Number),
      team: r.team as string,
      seq: Number(r.seq),
    }));
    const embedder = new BuiltinEmbedder();
    const req = (q: string, filter: boolean, hybrid: boolean): KbSearch => ({
      query: q,
      filters: filter ? [{ column: 'team', op: '=', value: 'team7' }] : [],
      minRelevance: null,
      reranking: true,
      hybrid,
      alpha: null,
      limit: 10,
    });
    const filtered: number[] = [];
    const unfiltered: number[] = [];
    const hybrid: number[] = [];
    let identical = 0;
    let unfilteredIdentical = 0;
    const queries = 20;
    for (let i = 0; i < queries; i++) {
      const q = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} delay`;
      t = performance.now();
      const r = await kb.search('pgbench', req(q, true, false));
      filtered.push(performance.now() - t);
      t = performance.now();
      const u = await kb.search('pgbench', req(q, false, false));
      unfiltered.push(performance.now() - t);
      t = performance.now();
      await kb.search('pgbench', req(q, true, true));
      hybrid.push(performance.now() - t);
      const qv = embedder.embedOne(q);
      const score = (c: (typeof all)[number]) => {
        let s = 0;
        for (let j = 0; j < qv.length; j++) s += c.v[j] * qv[j];
        return s;
      };
      const top = (keep: (c: (typeof all)[number]) => boolean) =>
        all
          .filter(keep)
          .map((c) => [c, score(c)] as const)
          .sort((a, b) => b[1] - a[1] || a[0].seq - b[0].seq)
          .slice(0, 10)
          .map(([c]) => c.chunkId);
      if (JSON.stringify(top((c) => c.team === 'team7')) === JSON.stringify(r.rows.map((x) => String(x[1]))))
        identical++;
      if (JSON.stringify(top(() => true)) === JSON.stringify(u.rows.map((x) => String(x[1]))))
        unfilteredIdentical++;
    }
    return {
      store: 'pgvector on PGlite (WebAssembly, in process) over the wire protocol',
      rows: n,
      chunks,
      ingest_s: Number(ingestS.toFixed(2)),
      ingest_chunks_per_s: Math.round(chunks / ingestS),
      search_vector_filtered_exact_p50_ms: ms(pct(filtered, 0.5)),
      search_vector_unfiltered_hnsw_p50_ms: ms(pct(unfiltered, 0.5)),
      search_hybrid_filtered_p50_ms: ms(pct(hybrid, 0.5)),
      filtered_top10_identical_to_brute_force: `${identical}/${queries}`,
      unfiltered_hnsw_top10_identical_to_brute_force: `${unfilteredIdentical}/${queries}`,
    };
  } finally {
    await client.end().catch(() => {});
    await kb.close();
    await source.close();
    await catalog.close();
    await server.stop();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
