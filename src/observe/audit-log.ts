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
  record(r: StatementReport, text: StatementText = readStatement(r.sql), at = new Date()): void {
    // The line's content is fixed now; only the list of sources is looked up.
    const [head, tail] = lineAround(r, text, at);
    this.sourceNames().then(
      (names) => this.append(`${head}${JSON.stringify(sourcesOf(text.qualifiers, names, r.db))}${tail}`),
      () => this.append(`${head}[]${tail}`),
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
 * `JSON.stringify(auditLine(r, sources, at))` and its newline, cut where the sources go: built
 * by hand (JSON.stringify only on strings), since a generic stringify of the object cost more
 * than the rest of the line. test/unit/observe/audit-log.test.ts holds the two equal.
 */
export function lineAround(r: StatementReport, text: StatementText, at: Date): [string, string] {
  const head = `{"time":"${at.toISOString()}","principal":${r.principal === null ? 'null' : JSON.stringify(r.principal)},"transport":${JSON.stringify(r.transport)},"sources":`;
  const tail = `,"kind":${JSON.stringify(text.kind)},"sql":${JSON.stringify(text.masked)},"rows":${num(r.rows)},"affected_rows":${num(r.affectedRows)},"truncated":${r.truncated},"duration_ms":${num(Math.round(r.durationMs * 10) / 10)},"error_code":${num(r.errorCode)}}\n`;
  return [head, tail];
}

/** A number as JSON.stringify writes it; absent is null. */
function num(n: number | null | undefined): string {
  return n !== null && n !== undefined && Number.isFinite(n) ? String(n) : 'null';
}
