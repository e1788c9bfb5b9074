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
   * A batch (recordAll: the observer's) is written as soon as its lines are made, while they
   * are still in the caches (in place, a flush of lines made up to 100 ms before cost 1-1.5
   * us a line). Close and reopen write what waits first; a crash may lose the last FLUSH_MS.
   */
  private pending: string[] = [];
  private readonly lines = new AuditLines();
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
    this.sourceNames().then(
      (names) => this.append(this.lines.line(r, text, names, at)),
      () => this.append(this.lines.line(r, text, null, at)),
    );
  }

  /**
   * The lines of several statements, in order, written together, with one look-up of the
   * source names; `at[i]` is when statement i ended (Date.now()). Only the names are looked
   * up; the rest of each line is what its report says.
   */
  recordAll(rs: readonly StatementReport[], texts: readonly StatementText[], at: readonly number[]): void {
    const write = (names: readonly string[] | null) => {
      for (let i = 0; i < rs.length; i++) this.append(this.lines.line(rs[i], texts[i], names, at[i]));
      this.flush();
    };
    this.sourceNames().then(write, () => write(null));
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
    sources: withKbs(sources, r.kbs),
    kind: text.kind,
    sql: text.masked,
    rows: r.rows,
    affected_rows: r.affectedRows ?? null,
    truncated: r.truncated,
    duration_ms: Math.round(r.durationMs * 10) / 10,
    error_code: r.errorCode ?? null,
    ...(r.policyRules?.length ? { policy_rules: r.policyRules } : {}),
    ...(r.policyDenied ? { policy_denied: r.policyDenied } : {}),
  };
}

/**
 * Audit lines as `JSON.stringify(auditLine(r, sources, at))` and a newline would write them,
 * built by hand: JSON.stringify only on strings, and the JSON of the parts the line before had
 * the same (the time down to the second, who and through which face, the sources, the kind and
 * masked text) is reused. Lines come in batches, and in a batch of point lookups every part
 * but the numbers repeats: 900 ns a line in a loop with a generic stringify of the object and
 * toISOString, 100 this way (before the lines are joined). test/unit/observe/audit-log.test.ts
 * holds the two equal.
 */
export class AuditLines {
  private second = Number.NaN;
  /** `2026-11-27T10:22:02.` */
  private secondText = '';
  private principal: string | null | undefined;
  private transport: string | undefined;
  /** `"principal":...,"transport":...` */
  private who = '';
  private qualifiers: readonly string[] | undefined;
  private db: string | undefined;
  private names: readonly string[] | null = null;
  private sources = '';
  private sourceList: string[] = [];
  private masked: string | undefined;
  private kind: string | undefined;
  /** `"kind":...,"sql":...` */
  private what = '';

  /** The line of `r`; `names` are the known sources (null: not known, the line names none). */
  line(r: StatementReport, text: StatementText, names: readonly string[] | null, at: number): string {
    if (r.principal !== this.principal || r.transport !== this.transport) {
      this.principal = r.principal;
      this.transport = r.transport;
      this.who = `"principal":${r.principal === null ? 'null' : JSON.stringify(r.principal)},"transport":${JSON.stringify(r.transport)}`;
    }
    if (text.masked !== this.masked || text.kind !== this.kind) {
      this.masked = text.masked;
      this.kind = text.kind;
      this.what = `"kind":${JSON.stringify(text.kind)},"sql":${JSON.stringify(text.masked)}`;
    }
    let sources = '[]';
    if (names !== null) {
      if (names !== this.names || r.db !== this.db || !sameList(text.qualifiers, this.qualifiers)) {
        this.names = names;
        this.db = r.db;
        this.qualifiers = text.qualifiers;
        this.sourceList = sourcesOf(text.qualifiers, names, r.db);
        this.sources = JSON.stringify(this.sourceList);
      }
      sources = this.sources;
    }
    // KB statements are rarer than point lookups: their list is made for each line.
    if (r.kbs?.length) sources = JSON.stringify(withKbs(names === null ? [] : this.sourceList, r.kbs));
    const duration = num(Math.round(r.durationMs * 10) / 10);
    return `{"time":"${this.time(at)}",${this.who},"sources":${sources},${this.what},"rows":${num(r.rows)},"affected_rows":${num(r.affectedRows)},"truncated":${r.truncated},"duration_ms":${duration},"error_code":${num(r.errorCode)}${policyPart(r)}}\n`;
  }

  /** `new Date(at).toISOString()`, with the date and time down to the second made once a second. */
  private time(at: number): string {
    const ms = Math.floor(at);
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      this.secondText = new Date(second * 1000).toISOString().slice(0, -4);
      this.second = second;
    }
    const milli = ms - second * 1000;
    return `${this.secondText}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
  }
}

/**
 * The data sources a line names, then the knowledge bases the statement named as `kb:<name>`
 * (docs/reference/configuration.md#audit-log): a KB is not a data source, and the prefix keeps
 * one from being read as a source of the same name.
 */
export function withKbs(sources: readonly string[], kbs: readonly string[] | undefined): string[] {
  return kbs?.length ? [...sources, ...kbs.map((k) => `kb:${k}`)] : [...sources];
}

/** The access policy's part of a line (docs/reference/policy.md#audit-and-metrics): absent when no policy bound the statement. */
function policyPart(r: StatementReport): string {
  let out = '';
  if (r.policyRules?.length) out += `,"policy_rules":${JSON.stringify(r.policyRules)}`;
  if (r.policyDenied) out += `,"policy_denied":${JSON.stringify(r.policyDenied)}`;
  return out;
}

function sameList(a: readonly string[], b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A number as JSON.stringify writes it; absent is null. */
function num(n: number | null | undefined): string {
  return n !== null && n !== undefined && Number.isFinite(n) ? String(n) : 'null';
}
