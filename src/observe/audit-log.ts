import { createWriteStream, type WriteStream } from 'node:fs';
import { redactSql, sourcesIn, statementKind } from './redact.js';
import type { StatementReport } from './statement.js';

/**
 * The audit log (TRIBUTARY_AUDIT_LOG): one JSON line per statement, appended to a file
 * (opened 0600, never truncated: rotate it with logrotate's copytruncate or by renaming, and
 * the server reopens on SIGHUP) or written to stderr. Literals in the SQL are masked and
 * secrets never appear: the line is built from the masked text and numbers only.
 */
export class AuditLog {
  private out: WriteStream | NodeJS.WriteStream;

  constructor(
    private readonly target: string,
    /** Names of the data sources now, to say which ones a statement touched. */
    private readonly sourceNames: () => Promise<string[]>,
  ) {
    this.out = this.open();
  }

  private open(): WriteStream | NodeJS.WriteStream {
    if (this.target === 'stderr') return process.stderr;
    const s = createWriteStream(this.target, { flags: 'a', mode: 0o600 });
    // A log that cannot be written must not take the server down with it.
    s.on('error', () => {});
    return s;
  }

  /** Start a new file at the same path (after an external rotation). */
  reopen(): void {
    if (this.target === 'stderr') return;
    const old = this.out as WriteStream;
    this.out = this.open();
    old.end();
  }

  record(r: StatementReport, at = new Date()): void {
    // The line's content is fixed now; only the list of sources is looked up.
    const sources = this.sourceNames().then(
      (names) => sourcesIn(r.sql, names, r.db),
      () => [] as string[],
    );
    void sources.then((touched) => this.out.write(`${JSON.stringify(auditLine(r, touched, at))}\n`));
  }

  close(): Promise<void> {
    if (this.target === 'stderr') return Promise.resolve();
    return new Promise((resolve) => (this.out as WriteStream).end(() => resolve()));
  }
}

/** The JSON object of one line (docs/reference/configuration.md#audit-log). */
export function auditLine(r: StatementReport, sources: string[], at: Date): Record<string, unknown> {
  return {
    time: at.toISOString(),
    principal: r.principal,
    transport: r.transport,
    sources,
    kind: statementKind(r.sql),
    sql: redactSql(r.sql),
    rows: r.rows,
    affected_rows: r.affectedRows ?? null,
    truncated: r.truncated,
    duration_ms: Math.round(r.durationMs * 10) / 10,
    error_code: r.errorCode ?? null,
  };
}
