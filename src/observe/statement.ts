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
}

/** Who asked and through which face; the faces fill it in. */
export interface Caller {
  principal: string | null;
  transport: string;
}

/** Whatever takes statement reports (the observer, or nothing when all is off). */
export interface StatementSink {
  statement(r: StatementReport): void;
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
    default:
      return 'error';
  }
}
