import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { TwoLabelHistogram } from './histogram.js';
import { KbMetrics } from './kb-metrics.js';
import { statementKind } from './redact.js';
import { outcomeOf, type StatementReport } from './statement.js';

/** A pooled source's use now, for the pool gauges. */
export interface PoolUse {
  source: string;
  inUse: number;
  waiting: number;
  max: number;
}

/** Statement kinds get their own label value; anything else is `other` (labels stay bounded). */
const KINDS = new Set([
  'SELECT',
  'WITH',
  'INSERT',
  'UPDATE',
  'DELETE',
  'CREATE',
  'DROP',
  'SHOW',
  'DESCRIBE',
  'DESC',
  'EXPLAIN',
  'USE',
  'SET',
]);

/**
 * Prometheus metrics (GET /metrics) with prom-client: one registry per server, so tests
 * and several servers in one process never share counters.
 *
 * A labelled prom-client call hashes its labels every time (0.1-0.4 us in a hot loop, 2-4 us
 * on a server between two requests): the request path adds to plain maps instead (result
 * bytes, requests), statements arrive in batches (index.ts), and whatever waits is handed
 * over to prom-client by each counter's `collect`, which runs on every read of the registry.
 */
export class Metrics {
  readonly registry = new Registry();
  /** Knowledge bases' searches, ingests and embedding calls (kb-metrics.ts). */
  readonly kb = new KbMetrics(this.registry);
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly statementCount: Counter<'kind' | 'outcome' | 'transport'>;
  private readonly latency: TwoLabelHistogram;
  private readonly rows: Counter<'transport'>;
  private readonly bytes: Counter<'transport'>;
  private readonly refusals: Counter<'transport'>;
  private readonly denials: Counter<'rule'>;
  /** Result bytes by transport, not yet in `bytes`. */
  private readonly pendingBytes = new Map<string, number>();
  /** Requests by `method\0route\0status`, not yet in `requests`. */
  private readonly pendingRequests = new Map<string, number>();

  /** `settle` works through the statements waiting to be counted (Observer.settle). */
  constructor(pools: () => Promise<PoolUse[]>, settle: () => void = () => {}) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'tributary_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'],
      registers,
      collect: () => this.handOverRequests(),
    });
    this.statementCount = new Counter({
      name: 'tributary_statements_total',
      help: 'SQL statements run, by kind (first keyword), outcome (ok, error, timeout, cancelled, refused, denied) and transport',
      labelNames: ['kind', 'outcome', 'transport'],
      registers,
      collect: settle,
    });
    this.latency = new TwoLabelHistogram(
      'tributary_statement_duration_seconds',
      'Time from a statement arriving at the engine to its last row, by kind and transport',
      ['kind', 'transport'],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      this.registry,
      settle,
    );
    this.rows = new Counter({
      name: 'tributary_rows_total',
      help: 'Rows returned by statements, by transport',
      labelNames: ['transport'],
      registers,
      collect: settle,
    });
    this.bytes = new Counter({
      name: 'tributary_result_bytes_total',
      help: 'Bytes of results sent (JSON), by transport',
      labelNames: ['transport'],
      registers,
      collect: () => this.handOverBytes(),
    });
    this.refusals = new Counter({
      name: 'tributary_rate_limit_refusals_total',
      help: 'Requests refused by the rate limit (429), by transport',
      labelNames: ['transport'],
      registers,
    });
    this.denials = new Counter({
      name: 'tributary_policy_denials_total',
      help: 'Statements refused by the access policy (1142, 1143, 1044), by the rule that refused them (`no-match`: none matched)',
      labelNames: ['rule'],
      registers,
      collect: settle,
    });
    const gauge = (name: string, help: string, read: (p: PoolUse) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['source'],
        registers,
        // Read at scrape time from the pools of the sources open now.
        async collect() {
          this.reset();
          for (const p of await pools().catch(() => [])) this.set({ source: p.source }, read(p));
        },
      });
    gauge(
      'tributary_source_pool_connections_in_use',
      "Connections of a source's pool in use now",
      (p) => p.inUse,
    );
    gauge(
      'tributary_source_pool_waiting',
      "Statements waiting for a connection of a source's pool now",
      (p) => p.waiting,
    );
    gauge('tributary_source_pool_connections_max', "Size of a source's connection pool", (p) => p.max);
  }

  /** `first` is `statementKind(r.sql)` when the caller already has it. */
  statement(r: StatementReport, first = statementKind(r.sql)): void {
    this.statements([r], [first]);
  }

  /**
   * Several statements at once (`firsts[i]` is `statementKind(rs[i].sql)` when known): the
   * counters get one inc per label set of the batch; the histogram takes each duration.
   */
  statements(rs: readonly StatementReport[], firsts?: readonly string[]): void {
    const counts = new Map<string, number>();
    const rows = new Map<string, number>();
    for (let i = 0; i < rs.length; i++) {
      const r = rs[i];
      const first = firsts?.[i] ?? statementKind(r.sql);
      const kind = KINDS.has(first) ? first : 'other';
      this.latency.observe(kind, r.transport, r.durationMs / 1000);
      const key = `${kind}\u0000${outcomeOf(r.errorCode)}\u0000${r.transport}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (r.rows) rows.set(r.transport, (rows.get(r.transport) ?? 0) + r.rows);
      if (r.policyDenied) this.denials.inc({ rule: r.policyDenied });
    }
    for (const [key, n] of counts) {
      const [kind, outcome, transport] = key.split('\u0000');
      this.statementCount.inc({ kind, outcome, transport }, n);
    }
    for (const [transport, n] of rows) this.rows.inc({ transport }, n);
  }

  request(method: string, route: string, status: number): void {
    const key = `${method}\u0000${route}\u0000${status}`;
    this.pendingRequests.set(key, (this.pendingRequests.get(key) ?? 0) + 1);
  }

  resultBytes(transport: string, n: number): void {
    this.pendingBytes.set(transport, (this.pendingBytes.get(transport) ?? 0) + n);
  }

  private handOverRequests(): void {
    for (const [key, n] of this.pendingRequests) {
      const [method, route, status] = key.split('\u0000');
      this.requests.inc({ method, route, status }, n);
    }
    this.pendingRequests.clear();
  }

  private handOverBytes(): void {
    for (const [transport, n] of this.pendingBytes) this.bytes.inc({ transport }, n);
    this.pendingBytes.clear();
  }

  rateLimited(transport: string): void {
    this.refusals.inc({ transport });
  }

  text(): Promise<string> {
    this.startProcessMetrics();
    return this.registry.metrics();
  }

  private processMetrics = false;

  /**
   * prom-client's process and runtime metrics, from the first read of /metrics on. Their
   * event-loop-delay monitor wakes the loop every 10 ms whether or not anyone reads it:
   * 4.5-7 ms of CPU a second with the server idle, about 2 us a statement at one client,
   * the largest cost metrics had on a server nobody scrapes. Its resolution stays
   * prom-client's: the lag values it reports include it. Counters of its own (CPU seconds,
   * GC) read cumulative process figures, except GC durations, counted from that first read.
   */
  private startProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'tributary_' });
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
