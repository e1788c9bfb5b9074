import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { clientSettings } from '../config/client.js';
import type { Config } from '../config/types.js';
import { type Parsed, UsageError } from './commands.js';
import { DEFAULT_MAX_ROWS, type Format, writeAnswer } from './output.js';
import { openSession, type Session } from './session.js';
import { type Piece, scriptStatements } from './statements.js';

export function outputFormat(p: Parsed): Format {
  if (p.values.json && p.values.csv) throw new UsageError('--json and --csv exclude each other', p.command);
  return p.values.json ? 'json' : p.values.csv ? 'csv' : 'table';
}

export function maxRows(p: Parsed): number {
  const raw = p.values['max-rows'];
  if (typeof raw !== 'string') return DEFAULT_MAX_ROWS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new UsageError(`Invalid --max-rows '${raw}': expected a whole number`, p.command);
  return n;
}

async function readStdin(): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of process.stdin) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** The SQL text: the arguments, `-f FILE`, `-` or `-f -` for stdin, or a pipe on stdin. */
async function sqlText(p: Parsed): Promise<string> {
  const file = p.values.file;
  if (typeof file === 'string') {
    if (p.positionals.length)
      throw new UsageError('Give the SQL either as arguments or with -f, not both', 'query');
    if (file === '-') return readStdin();
    try {
      return readFileSync(file, 'utf8');
    } catch (e) {
      throw new UsageError(
        `Cannot read -f '${file}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        'query',
      );
    }
  }
  if (p.positionals.length === 1 && p.positionals[0] === '-') return readStdin();
  if (p.positionals.length) return p.positionals.join(' ');
  if (!process.stdin.isTTY) return readStdin();
  throw new UsageError('Missing the SQL: tributary query "<SQL>", -f FILE, or SQL on stdin', 'query');
}

/** `tributary query`: every statement in order, one session; the first failure stops the run (exit 1). */
export async function runQueryCli(config: Config, p: Parsed): Promise<number> {
  const format = outputFormat(p);
  const max = maxRows(p);
  const text = await sqlText(p);
  const statements = scriptStatements(text);
  if (!statements.length) throw new UsageError('No SQL statement given', 'query');
  const client = clientSettings({
    url: p.values.url as string | undefined,
    token: p.values.token as string | undefined,
  });
  const session = await openSession(config, { ...client, db: p.values.db as string | undefined });
  try {
    return await runStatements(session, statements, { format, maxRows: max });
  } finally {
    await session.close();
  }
}

export async function runStatements(
  session: Session,
  statements: Piece[],
  opts: { format: Format; maxRows: number; out?: Writable; err?: Writable; signal?: AbortSignal },
): Promise<number> {
  const out = opts.out ?? process.stdout;
  const err = opts.err ?? process.stderr;
  for (const [i, st] of statements.entries()) {
    const answer = await session.run(st.sql, opts.signal);
    if (answer.type === 'error') {
      await writeAnswer(out, answer, opts.format);
      err.write(`ERROR ${answer.error_code}: ${answer.error_message}\n${where(statements, i, st)}`);
      return 1;
    }
    try {
      await writeAnswer(out, answer, opts.format, { maxRows: opts.maxRows });
    } catch (e) {
      // A failure after the first rows (a value the source cannot convert, a lost connection).
      if (opts.signal?.aborted) throw e;
      const code = (e as { code?: unknown }).code;
      out.write('\n');
      err.write(
        `ERROR${typeof code === 'number' ? ` ${code}` : ''}: ${(e as Error).message}\n${where(statements, i, st)}`,
      );
      return 1;
    }
  }
  return 0;
}

function where(all: Piece[], i: number, st: Piece): string {
  if (all.length === 1) return '';
  const text = st.sql.length > 80 ? `${st.sql.slice(0, 77)}...` : st.sql;
  return `  in statement ${i + 1} of ${all.length} (line ${st.line}): ${text.replace(/\s+/g, ' ')}\n`;
}
