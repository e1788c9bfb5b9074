import { Counter, type Registry } from 'prom-client';
import { TwoLabelHistogram } from './histogram.js';

/**
 * Knowledge-base metrics on GET /metrics (docs/reference/http.md#metrics). The KB service
 * reports to these through its own narrow interface (kb/meter.ts); labels are bounded by
 * the KBs and providers that exist. Searches are few next to statements (each embeds a
 * question or scores chunks), so prom-client's labelled calls cost nothing here that matters.
 */
export class KbMetrics {
  private readonly searches: Counter<'kb' | 'mode'>;
  private readonly latency: TwoLabelHistogram;
  private readonly rows: Counter<'kb' | 'result'>;
  private readonly calls: Counter<'provider'>;
  private readonly texts: Counter<'provider'>;
  private readonly errors: Counter<'provider'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.searches = new Counter({
      name: 'tributary_kb_searches_total',
      help: 'Knowledge-base searches, by KB and mode (vector, keyword, hybrid; filter: no content condition)',
      labelNames: ['kb', 'mode'],
      registers,
    });
    this.latency = new TwoLabelHistogram(
      'tributary_kb_search_duration_seconds',
      'Time of one knowledge-base search (embedding the question, ranking, filters), by KB and mode',
      ['kb', 'mode'],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registry,
    );
    this.rows = new Counter({
      name: 'tributary_kb_rows_ingested_total',
      help: 'Rows taken by INSERT INTO a knowledge base as their batches are stored, by KB and result (inserted, updated, unchanged, failed)',
      labelNames: ['kb', 'result'],
      registers,
    });
    this.calls = new Counter({
      name: 'tributary_kb_embedding_calls_total',
      help: 'Embedding requests of knowledge bases (one per question, one per stored batch; HTTP providers split a request into batch_size calls), by provider',
      labelNames: ['provider'],
      registers,
    });
    this.texts = new Counter({
      name: 'tributary_kb_embedded_texts_total',
      help: 'Texts embedded for knowledge bases, by provider',
      labelNames: ['provider'],
      registers,
    });
    this.errors = new Counter({
      name: 'tributary_kb_embedding_errors_total',
      help: 'Embedding requests that failed (refused, unreachable, an error answer after retries), by provider',
      labelNames: ['provider'],
      registers,
    });
  }

  search(kb: string, mode: string, seconds: number): void {
    this.searches.inc({ kb, mode });
    this.latency.observe(kb, mode, seconds);
  }

  ingested(
    kb: string,
    counts: { inserted: number; updated: number; unchanged: number; failed: number },
  ): void {
    for (const result of ['inserted', 'updated', 'unchanged', 'failed'] as const)
      if (counts[result] > 0) this.rows.inc({ kb, result }, counts[result]);
  }

  embedding(provider: string, texts: number, failed: boolean): void {
    this.calls.inc({ provider });
    if (failed) this.errors.inc({ provider });
    else this.texts.inc({ provider }, texts);
  }
}
