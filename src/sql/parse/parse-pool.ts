/**
 * Parsing off the event loop. node-sql-parser is synchronous and takes about 4 us a
 * character, so a statement of a few dozen kilobytes would hold every other client of the
 * server for a fraction of a second. Texts longer than `INLINE_PARSE_MAX_CHARS` are parsed
 * in a worker thread instead (piscina: a maintained pool with abortable tasks, so a
 * statement's deadline or a shutdown stops a parse by ending its worker); shorter ones,
 * almost every statement an agent sends, are parsed inline, where a worker's round trip
 * would only add latency. Lists of literals never reach the parser (templates.ts), so a
 * 10,000-value IN list is short here.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { isTooDeep, SqlError, tooDeep } from '../../core/errors.js';
import { parseStatement, type Statement } from './index.js';
import { type ParsedText, parseText, type WorkerAnswer } from './parse-text.js';
import type { LiteralKind } from './slots.js';

export type { ParsedText } from './parse-text.js';

/** About 15-25 ms of parsing, normalizing and labelling on this project's 2-core reference machine. */
export const INLINE_PARSE_MAX_CHARS = 6000;

let pool: Piscina | null = null;

function workerPool(): Piscina {
  if (pool) return pool;
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  pool = new Piscina({
    filename: new URL(`./parse-worker.${ext}`, import.meta.url).href,
    // One core stays with the event loop; big statements queue for the rest.
    maxThreads: Math.max(1, Math.min(4, availableParallelism() - 1)),
    // Started by the first big statement and ended after a minute without one: a worker
    // holds about 25 MB, which a server that never sees a big statement need not pay
    // (the 1,000,000-row result's peak memory stays within its 300 MB target).
    minThreads: 0,
    idleTimeout: 60_000,
    execArgv: workerExecArgv(process.execArgv),
  });
  // A worker that cannot start or dies is answered by parsing inline (offLoop), never by
  // an unhandled 'error' event taking the process down.
  pool.on('error', (e: Error) =>
    warnOnce(`the parse worker failed (${e.message}); big statements parse inline`),
  );
  return pool;
}

/** Options that take the next argument as their value. */
const WITH_VALUE = new Set([
  '--import',
  '--require',
  '-r',
  '--loader',
  '--experimental-loader',
  '--conditions',
  '-C',
]);
/** What a worker needs of its parent's options: module loaders and resolution (`--import tsx` in development). */
const FOR_WORKERS =
  /^(--import|--require|-r|--loader|--experimental-loader|--conditions|-C|--enable-source-maps|--no-warnings|--no-deprecation)(=|$)/;

/**
 * The parent's Node options a worker is started with: only loaders and module resolution.
 * Anything else may be refused by a worker (Node 24's test runner passes process-wide
 * options such as `--v8-pool-size`; a `node --input-type=module -e` parent passes its
 * entry's options), and a worker that cannot start parses nothing.
 */
export function workerExecArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const keep = FOR_WORKERS.test(a);
    const takesNext =
      WITH_VALUE.has(a) ||
      a === '--input-type' ||
      a === '-e' ||
      a === '--eval' ||
      a === '-p' ||
      a === '--print';
    if (keep) out.push(a);
    if (takesNext) {
      if (keep && i + 1 < argv.length) out.push(argv[i + 1]);
      i++;
    }
  }
  return out;
}

let warned = false;
function warnOnce(message: string): void {
  if (warned) return;
  warned = true;
  process.emitWarning(message);
}

async function offLoop(
  text: string,
  sources: readonly string[],
  kinds: readonly LiteralKind[] | null,
  signal?: AbortSignal,
): Promise<ParsedText> {
  let a: WorkerAnswer;
  try {
    a = await workerPool().run({ text, sources, kinds }, { signal });
  } catch (e) {
    if (signal?.aborted) throw signal.reason ?? e;
    if (isTooDeep(e)) throw tooDeep();
    // No worker to be had: the statement still gets its answer, parsed here.
    warnOnce(`the parse worker failed (${(e as Error)?.message}); big statements parse inline`);
    const set = new Set(sources.map((n) => n.toLowerCase()));
    return parseText(text, (n) => set.has(n.toLowerCase()), kinds);
  }
  if (!a.ok) throw new SqlError(a.code, a.message);
  return a.parsed;
}

/** Parses inline or in a worker by the length of the text. */
export class StatementParser {
  constructor(private readonly inlineMaxChars = INLINE_PARSE_MAX_CHARS) {}

  parse(
    text: string,
    isSource: (name: string) => boolean,
    sources: readonly string[],
    signal?: AbortSignal,
  ): Statement | Promise<Statement> {
    if (text.length <= this.inlineMaxChars) return parseStatement(text, isSource);
    return offLoop(text, sources, null, signal).then((p) => p.stmt);
  }

  /** A template's parse with its marker paths; null when the marked text does not parse. */
  parseMarked(
    text: string,
    isSource: (name: string) => boolean,
    sources: readonly string[],
    kinds: readonly LiteralKind[],
    signal?: AbortSignal,
  ): ParsedText | null | Promise<ParsedText | null> {
    if (text.length <= this.inlineMaxChars) {
      try {
        return parseText(text, isSource, kinds);
      } catch {
        return null;
      }
    }
    return offLoop(text, sources, kinds, signal).catch((e) => {
      if (signal?.aborted) throw e;
      return null;
    });
  }
}
