import { AuditLog } from './audit-log.js';
import { Metrics, type PoolUse } from './metrics.js';
import { readStatement } from './redact.js';
import type { StatementReport, StatementSink } from './statement.js';
import type { Tracing } from './tracing.js';

export { AuditLog, auditLine } from './audit-log.js';
export type { PoolUse } from './metrics.js';
export { Metrics } from './metrics.js';
export {
  readStatement,
  redactSql,
  type StatementText,
  sourcesIn,
  sourcesOf,
  statementKind,
} from './redact.js';
export type { Caller, FragmentReport, StatementReport, StatementSink } from './statement.js';
export { outcomeOf } from './statement.js';
export { Tracing, type TracingOptions } from './tracing.js';

export interface ObserverOptions {
  /** api.metrics.enabled: count for GET /metrics. */
  metrics: boolean;
  /** TRIBUTARY_AUDIT_LOG: a file path, `stderr`, or undefined (off). */
  auditLog?: string;
  /** Names of the data sources now (the audit log's `sources`). */
  sourceNames: () => Promise<string[]>;
  /** The pooled sources' use now (the pool gauges). */
  pools: () => Promise<PoolUse[]>;
  /** OpenTelemetry traces, when an endpoint is set (started by Tracing.start). */
  tracing?: Tracing | null;
}

/**
 * The one place the faces and the engine report to: every statement goes to the metrics
 * and, when they are on, the audit log and traces; requests, result sizes and rate-limit
 * refusals go to the metrics.
 */
export class Observer implements StatementSink {
  readonly metrics: Metrics | null;
  readonly audit: AuditLog | null;
  readonly tracing: Tracing | null;
  readonly traces: boolean;

  constructor(o: ObserverOptions) {
    this.metrics = o.metrics ? new Metrics(o.pools) : null;
    this.audit = o.auditLog ? new AuditLog(o.auditLog, o.sourceNames) : null;
    this.tracing = o.tracing ?? null;
    this.traces = this.tracing !== null;
  }

  statement(r: StatementReport): void {
    // The text is read once for all of them; the metrics alone need only its first word.
    if (this.audit || this.tracing) {
      const text = readStatement(r.sql);
      this.metrics?.statement(r, text.kind);
      this.audit?.record(r, text);
      this.tracing?.statement(r, text);
    } else this.metrics?.statement(r);
  }

  /** Whether anything listens: the engine reports nothing when nothing does. */
  get active(): boolean {
    return this.metrics !== null || this.audit !== null || this.tracing !== null;
  }

  async close(): Promise<void> {
    await this.audit?.close();
    // Spans still buffered are sent before the server goes.
    await this.tracing?.close().catch(() => {});
  }
}
