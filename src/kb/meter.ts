/**
 * What the KB service reports for GET /metrics (observe/kb-metrics.ts implements it): the
 * service sees only this, so knowledge bases work the same with metrics off.
 */
export interface KbMeter {
  /** One search: `mode` is vector, keyword, hybrid, or filter (no content condition). */
  search(kb: string, mode: string, seconds: number): void;
  /** Rows of one stored INSERT batch, by result. */
  ingested(
    kb: string,
    counts: { inserted: number; updated: number; unchanged: number; failed: number },
  ): void;
  /** One embedding request of `texts` texts, and whether it failed. */
  embedding(provider: string, texts: number, failed: boolean): void;
}
