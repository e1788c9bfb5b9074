/**
 * Knowledge bases: ingest N rows of ~500 characters with the builtin embedder into the
 * embedded store (keyword index included), re-insert them unchanged, then search with one
 * metadata filter (k = 10) and compare against a naive brute-force scan of the same vectors.
 * KB_BENCH_ROWS overrides N (default 100,000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedCatalogStore } from '../src/catalog/embedded-store.js';
import { createLogger } from '../src/core/logger.js';
import { BuiltinEmbedder } from '../src/kb/embed/builtin.js';
import { KbService } from '../src/kb/service.js';
import type { EmbeddedStore } from '../src/kb/store/embedded.js';
import type { EmbeddedKbStore } from '../src/kb/store/embedded-kb.js';
import type { SqlEngine } from '../src/sql/engine-types.js';
import type { KbSearch } from '../src/sql/kb-port.js';
import { doc, pct, WORDS } from './kb-corpus.js';

const cpuS = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

/** The bench reaches into the service for the store (to scan it) and the provider (to count calls). */
interface KbInternals {
  kbs: Map<string, { store: Promise<EmbeddedKbStore>; provider: { embed: (...a: never[]) => unknown } }>;
}
async function storeOf(kb: KbService, name: string): Promise<EmbeddedStore> {
  return (await (kb as unknown as KbInternals).kbs.get(name)!.store).store;
}
const calls = new WeakMap<object, number>();
function countEmbedCalls(kb: KbService): number {
  const entry = (kb as unknown as KbInternals).kbs.get('bench')!;
  const p = entry.provider as { embed: (...a: never[]) => unknown };
  if (!calls.has(p)) {
    calls.set(p, 0);
    const orig = p.embed.bind(p);
    p.embed = (...a: never[]) => {
      calls.set(p, calls.get(p)! + 1);
      return orig(...a);
    };
  }
  return calls.get(p)!;
}

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
    egress: { allowPrivate: false, allowedHosts: [], timeoutMs: 1000 },
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
    // Rows are made before the clock starts: the ingest is timed, not this generator.
    const data: unknown[][][] = [];
    for (let i = 0; i < n; i += 1000) {
      const b: unknown[][] = [];
      for (let j = i; j < Math.min(n, i + 1000); j++) b.push([j, doc(j), `team${j % 20}`]);
      data.push(b);
    }
    async function* rows() {
      yield* data;
    }
    let cpu = process.cpuUsage();
    let t = performance.now();
    const ingest = await kb.insert('bench', { columns: ['id', 'content', 'team'], batches: rows() }, {});
    const ingestS = (performance.now() - t) / 1000;
    const ingestCpuS = cpuS(cpu);
    clearInterval(sample);
    const chunks = (await storeOf(kb, 'bench')).chunks;
    const embedCalls = countEmbedCalls(kb);
    cpu = process.cpuUsage();
    t = performance.now();
    const again = await kb.insert('bench', { columns: ['id', 'content', 'team'], batches: rows() }, {});
    const reinsertS = (performance.now() - t) / 1000;
    const reinsertCpuS = cpuS(cpu);
    const reinsertEmbedCalls = countEmbedCalls(kb) - embedCalls;

    const req = (q: string, hybrid: boolean): KbSearch => ({
      query: q,
      filters: [{ column: 'team', op: '=', value: 'team7' }],
      minRelevance: null,
      reranking: true,
      hybrid,
      alpha: null,
      limit: 10,
    });
    const store = await storeOf(kb, 'bench');
    const embedder = new BuiltinEmbedder();
    const vecMs: number[] = [];
    const hybMs: number[] = [];
    const bruteMs: number[] = [];
    const vecCpuMs: number[] = [];
    const hybCpuMs: number[] = [];
    let identical = 0;
    const queries = 30;
    for (let i = 0; i < queries; i++) {
      const q = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} delay`;
      t = performance.now();
      cpu = process.cpuUsage();
      const r = await kb.search('bench', req(q, false));
      vecMs.push(performance.now() - t);
      vecCpuMs.push(cpuS(cpu) * 1000);
      t = performance.now();
      cpu = process.cpuUsage();
      await kb.search('bench', req(q, true));
      hybMs.push(performance.now() - t);
      hybCpuMs.push(cpuS(cpu) * 1000);
      // Brute force over the same vectors: every slot, its document's metadata read the
      // plain way, a dot product, all scores sorted, the first 10 taken.
      t = performance.now();
      const qv = embedder.embedOne(q);
      const scored: [number, number][] = [];
      const v = store.vectorsView();
      const dim = store.dimension;
      for (let slot = 0; slot < store.slotCount(); slot++) {
        if (!store.isLive(slot) || store.docOf(slot).metadata.team !== 'team7') continue;
        let sum = 0;
        for (let j = 0; j < dim; j++) sum += v[slot * dim + j] * qv[j];
        scored.push([slot, sum]);
      }
      scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      const brute = scored.slice(0, 10).map(([slot]) => store.chunkIdOf(slot));
      bruteMs.push(performance.now() - t);
      if (JSON.stringify(brute) === JSON.stringify(r.rows.map((row) => String(row[1])))) identical++;
    }
    return {
      rows: n,
      ingest_s: Number(ingestS.toFixed(2)),
      ingest_cpu_s: Number(ingestCpuS.toFixed(2)),
      chunks,
      ingest_chunks_per_s: Math.round(chunks / ingestS),
      ingest_chunks_per_cpu_s: Math.round(chunks / ingestCpuS),
      ingest_counts: ingest,
      target_ingest_chunks_per_s: 5000,
      reinsert_unchanged_rows_per_s: Math.round(n / reinsertS),
      reinsert_unchanged_rows_per_cpu_s: Math.round(n / reinsertCpuS),
      reinsert_unchanged: again.unchanged,
      reinsert_embedding_calls: reinsertEmbedCalls,
      target_reinsert_rows_per_s: 20000,
      search_vector_filtered_p50_ms: Number(pct(vecMs, 0.5).toFixed(1)),
      search_vector_filtered_cpu_p50_ms: Number(pct(vecCpuMs, 0.5).toFixed(1)),
      target_vector_p50_ms: 40,
      search_hybrid_filtered_p50_ms: Number(pct(hybMs, 0.5).toFixed(1)),
      search_hybrid_filtered_cpu_p50_ms: Number(pct(hybCpuMs, 0.5).toFixed(1)),
      target_hybrid_p50_ms: 80,
      brute_force_scan_p50_ms: Number(pct(bruteMs, 0.5).toFixed(1)),
      top10_identical_to_brute_force: `${identical}/${queries}`,
      load_avg_1m: Number(loadavg()[0].toFixed(1)),
      peak_rss_mb: Math.round(peakRss / 1024 / 1024),
    };
  } finally {
    clearInterval(sample);
    await kb.close();
    await catalog.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
