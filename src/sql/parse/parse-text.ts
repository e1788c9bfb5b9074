/** One statement's text parsed (with a template's marker paths), here or in the parse worker (parse-pool.ts). */
import { ErrorCode, isTooDeep, SqlError, tooDeep } from '../../core/errors.js';
import { parseStatement } from './index.js';
import { findMarkers, type Path } from './markers.js';
import type { LiteralKind } from './slots.js';
import type { Statement } from './statement.js';

/** A parse, with the marker paths when the text was a template's (markers.ts). */
export interface ParsedText {
  stmt: Statement;
  markers: (Path | null)[] | null;
}

/** What crosses the thread boundary: the parse, or the SqlError it threw. */
export type WorkerAnswer = { ok: true; parsed: ParsedText } | { ok: false; code: number; message: string };

/** Parse `text` here, with markers found when `kinds` is given. */
export function parseText(
  text: string,
  isSource: (name: string) => boolean,
  kinds: readonly LiteralKind[] | null,
): ParsedText {
  const stmt = parseStatement(text, isSource);
  const markers = kinds && stmt.kind === 'sql' ? findMarkers(stmt.ast, kinds) : null;
  return { stmt, markers };
}

/** `parseText` as a worker answers it: never throws. */
export function answer(
  text: string,
  sources: readonly string[],
  kinds: readonly LiteralKind[] | null,
): WorkerAnswer {
  const set = new Set(sources.map((s) => s.toLowerCase()));
  try {
    return { ok: true, parsed: parseText(text, (n) => set.has(n.toLowerCase()), kinds) };
  } catch (e) {
    const err = isTooDeep(e) ? tooDeep() : e;
    if (err instanceof SqlError) return { ok: false, code: err.code, message: err.message };
    return {
      ok: false,
      code: ErrorCode.SYNTAX,
      message: `You have an error in your SQL syntax: ${(err as Error)?.message}`,
    };
  }
}
