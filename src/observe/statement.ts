/**
 * What the engine tells `observe/` about one statement when it ends. Cheap to make: the
 * engine fills numbers it already has; everything derived from the text (its kind, the
 * masked SQL, the sources it names) is worked out here, and only by what needs it.
 */
export interface StatementReport {
  /** The statement as the caller sent it (never logged as is: see redact.ts). */
  sql: string;
  /** The default database it ran with (context.db / USE). */
  db?: string;
  /** Who asked: the principal's id, null without auth. */
  principal: string | null;
  /** Which face it came through: `http`, `mcp`, `cli`. */
  transport: string;
  /** Rows returned (0 for writes and errors). */
  rows: number;
  truncated: boolean;
  /** Rows changed by a write, when the source says. */
  affectedRows?: number | null;
  durationMs: number;
  /** The MySQL error code of a failure; undefined on success. */
  errorCode?: number;
  /** When it arrived, in milliseconds since the epoch (fractional): traces place it in time. */
  startedAt?: number;
  /** What each source ran for it, when the sink asked for fragments (`traces`). */
  fragments?: FragmentReport[];
  /** Knowledge bases the statement named (lower case): `kb:<name>` in the audit line's `sources`. */
  kbs?: string[];
  /** The access-policy rules that decided what it read and changed (`tables[2]`), when a policy bound it. */
  policyRules?: string[];
  /** The access-policy rule that refused it (`no-match` when none matched). */
  policyDenied?: string;
}

/** One source's part of a statement: the whole statement pushed down, or a fragment loaded for local work. */
export interface FragmentReport {
  source: string;
  /** The source's engine (`postgres`, `mysql`, ...). */
  engine: string;
  /** True when the source ran the whole statement. */
  pushdown: boolean;
  /** Milliseconds since the epoch (fractional). */
  startedAt: number;
  /** Absent for a pushdown, whose rows stream until the statement ends. */
  endedAt?: number;
  /** Rows the fragment loaded, when counted. */
  rows?: number;
  /** Set when this fragment failed. */
  errorCode?: number;
}

/** Now, in milliseconds since the epoch, finer than Date.now(). */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Who asked and through which face; the faces fill it in. */
export interface Caller {
  principal: string | null;
  transport: string;
  /** The client's `address:port`, when the face knows it (the process list shows it). */
  host?: string;
  /** The MySQL connection the statement runs on (the process list lists it under that id). */
  connection?: number;
}

/** Whatever takes statement reports (the observer, or nothing when all is off). */
export interface StatementSink {
  statement(r: StatementReport): void;
  /** True when reports should carry `fragments` (traces are on); the engine records none otherwise. */
  readonly traces?: boolean;
}

/** A bounded label for metrics: the outcome of a statement from its error code. */
export function outcomeOf(errorCode: number | undefined): string {
  switch (errorCode) {
    case undefined:
      return 'ok';
    case 3024:
      return 'timeout';
    case 1317:
    case 1053:
      return 'cancelled';
    case 1290:
      return 'refused';
    case 1142:
    case 1143:
      return 'denied';
    default:
      return 'error';
  }
}
