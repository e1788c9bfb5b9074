import { createWriteStream, type WriteStream } from 'node:fs';
import { readStatement, type StatementText, sourcesOf } from './redact.js';
import type { StatementReport } from './statement.js';

/**
 * The audit log (TRIBUTARY_AUDIT_LOG): one JSON line per statement, appended to a file
 * (opened 0600, never truncated: rotate it with logrotate's copytruncate or by renaming, and
 * the server reopens on SIGHUP) or written to stderr. Literals in the SQL are masked and
 * secrets never appear: the line is built from the masked text and numbers only.
 */
export class AuditLog {
  private out: WriteStream | NodeJS.WriteStream;
  /**
   * Lines waiting for the next write. One write a line cost more than everything else the
   * audit does per statement (a write is a system call, ~0.1-0.2 ms of CPU here): lines are
   * gathered and written together, at most FLUSH_MS after the first, or at FLUSH_BYTES.
   * Close and reopen write what waits first; a crash may lose the last FLUSH_MS.
   */
  private pending: string[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | null = null;

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
    this.flush();
    const old = this.out as WriteStream;
    this.out = this.open();
    old.end();
  }

  /** `text` is `readStatement(r.sql)` when the caller already has it. */
  record(r: StatementReport, text: StatementText = readStatement(r.sql), at = Date.now()): void {
    this.recordAll([r], [text], [at]);
  }

  /**
   * The lines of several statements, in order, with one look-up of the source names; `at[i]`
   * is when statement i ended (Date.now()). Only the names are looked up; the rest of each
   * line is what its report says.
   */
  recordAll(rs: readonly StatementReport[], texts: readonly StatementText[], at: readonly number[]): void {
    this.sourceNames().then(
      (names) => {
        for (let i = 0; i < rs.length; i++)
          this.append(auditText(rs[i], texts[i], sourcesOf(texts[i].qualifiers, names, rs[i].db), at[i]));
      },
      () => {
        for (let i = 0; i < rs.length; i++) this.append(auditText(rs[i], texts[i], [], at[i]));
      },
    );
  }

  private append(line: string): void {
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Write the waiting lines now, in one write. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    this.out.write(text);
  }

  async close(): Promise<void> {
    // Lines still waiting for the list of sources arrive within a turn of the loop.
    await new Promise((resolve) => setImmediate(resolve));
    this.flush();
    if (this.target === 'stderr') return;
    return new Promise((resolve) => (this.out as WriteStream).end(() => resolve()));
  }
}

const FLUSH_MS = 100;
const FLUSH_BYTES = 64 * 1024;

/** The JSON object of one line (docs/reference/configuration.md#audit-log). */
export function auditLine(r: StatementReport, sources: string[], at: Date): Record<string, unknown> {
  const text = readStatement(r.sql);
  return {
    time: at.toISOString(),
    principal: r.principal,
    transport: r.transport,
    sources,
    kind: text.kind,
    sql: text.masked,
    rows: r.rows,
    affected_rows: r.affectedRows ?? null,
    truncated: r.truncated,
    duration_ms: Math.round(r.durationMs * 10) / 10,
    error_code: r.errorCode ?? null,
  };
}

/**
 * `JSON.stringify(auditLine(r, sources, at))` and a newline, built by hand (JSON.stringify only
 * on strings): a generic stringify of the object cost more than the rest of the line.
 * test/unit/observe/audit-log.test.ts holds the two equal.
 */
export function auditText(r: StatementReport, text: StatementText, sources: string[], at: number): string {
  const principal = r.principal === null ? 'null' : JSON.stringify(r.principal);
  const duration = num(Math.round(r.durationMs * 10) / 10);
  return `{"time":"${new Date(at).toISOString()}","principal":${principal},"transport":${JSON.stringify(r.transport)},"sources":${JSON.stringify(sources)},"kind":${JSON.stringify(text.kind)},"sql":${JSON.stringify(text.masked)},"rows":${num(r.rows)},"affected_rows":${num(r.affectedRows)},"truncated":${r.truncated},"duration_ms":${duration},"error_code":${num(r.errorCode)}}\n`;
}

/** A number as JSON.stringify writes it; absent is null. */
function num(n: number | null | undefined): string {
  return n !== null && n !== undefined && Number.isFinite(n) ? String(n) : 'null';
}
