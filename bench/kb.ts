/**
 * Knowledge bases: ingest N rows of ~500 characters with the builtin embedder into the
 * embedded store (keyword index included), re-insert them unchanged, then search with one
 * metadata filter (k = 10) and compare against a naive brute-force scan of the same vectors.
 * KB_BENCH_ROWS overrides N (default 100,000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedCatalogStore } from '../src/catalog/embedded-store.js';
import { createLogger } from '../src/core/logger.js';
import { KbService } from '../src/kb/service.js';
import type { SqlEngine } from '../src/sql/engine-types.js';
import type { KbSearch } from '../src/sql/kb-port.js';

const WORDS =
  'refund order invoice shipping delay password login error account billing payment card bank transfer customer support ticket priority urgent weekly report server outage latency database backup restore contract renewal discount coupon delivery warehouse return policy'.split(
    ' ',
  );

function doc(i: number): string {
  let s = `Ticket ACME-${i}: `;
  let x = i * 2654435761;
  while (s.length < 500) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += `${WORDS[x % WORDS.length]} `;
  }
  return s.trim();
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)];

export async function benchKb(): Promise<Record<string, unknown>> {
  const n = Number(process.env.KB_BENCH_ROWS ?? 100_000);
  const dir = mkdtempSync(join(tmpdir(), 'tributary-kb-bench-'));
  const logger = createLogger('silent');
  const catalog = new EmbeddedCatalogStore({ storageDir: dir, secretKey: Buffer.alloc(32, 7), pollMs: 0 });
  await catalog.init();
  const kb = new KbService({
    catalog,
    engine: null as unknown as SqlEngine,
    storageDir: dir,
    logger,
    egress: { allowPrivate: false, timeoutMs: 1000 },
  });
  await kb.init();
  let peakRss = 0;
  const sample = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  try {
    await kb.run(
      { kind: 'create_kb', name: 'bench', ifNotExists: false, params: { metadata_columns: ['team'] } },
      {},
    );
    async function* rows() {
      for (let i = 0; i < n; i += 1000) {
        const b: unknown[][] = [];
        for (let j = i; j < Math.min(n, i + 1000); j++) b.push([j, doc(j), `team${j % 20}`]);
        yield b;
      }
    }
    let t = performance.now();
    await kb.insert('bench', { columns: ['id', 'content', 'team'], batches: rows() }, {});
    const ingestS = (performance.now() - t) / 1000;
    clearInterval(sample);
    t = performance.now();
    await kb.insert('bench', { columns: ['id', 'content', 'team'], batches: rows() }, {});
    const reinsertS = (performance.now() - t) / 1000;

    const req = (q: string, hybrid: boolean): KbSearch => ({
      query: q,
      filters: [{ column: 'team', op: '=', value: 'team7' }],
      minRelevance: null,
      hybrid,
      alpha: null,
      limit: 10,
    });
    const vecMs: number[] = [];
    const hybMs: number[] = [];
    let identical = 0;
    const queries = 30;
    for (let i = 0; i < queries; i++) {
      const q = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} delay`;
      t = performance.now();
      const r = await kb.search('bench', req(q, false));
      vecMs.push(performance.now() - t);
      t = performance.now();
      await kb.search('bench', req(q, true));
      hybMs.push(performance.now() - t);
      // Brute force: score every chunk of team7, sort all, take 10.
      const all = await kb.search('bench', { ...req(q, false), limit: 100 });
      const brute = all.rows
        .map((row) => [String(row[1]), Number(row[row.length - 1])] as [string, number])
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map((x) => x[0]);
      if (JSON.stringify(brute) === JSON.stringify(r.rows.map((row) => String(row[1])))) identical++;
    }
    return {
      rows: n,
      ingest_s: Number(ingestS.toFixed(2)),
      ingest_chunks_per_s: Math.round(n / ingestS),
      target_ingest_chunks_per_s: 5000,
      reinsert_unchanged_rows_per_s: Math.round(n / reinsertS),
      target_reinsert_rows_per_s: 20000,
      search_vector_filtered_p50_ms: Number(pct(vecMs, 0.5).toFixed(1)),
      target_vector_p50_ms: 40,
      search_hybrid_filtered_p50_ms: Number(pct(hybMs, 0.5).toFixed(1)),
      target_hybrid_p50_ms: 80,
      top10_identical_to_sorted_scan: `${identical}/${queries}`,
      peak_rss_mb: Math.round(peakRss / 1024 / 1024),
    };
  } finally {
    clearInterval(sample);
    await kb.close();
    await catalog.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
