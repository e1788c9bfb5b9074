/**
 * `tributary sql`: an interactive shell. A statement runs when a line ends it with `;`;
 * the prompt shows the current database (USE sticks); Ctrl-C cancels a running statement
 * or drops the line being typed; history lives in ~/.tributary_history. With stdin not a
 * terminal it runs the piped statements without prompts, like `tributary query -`.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { clientSettings } from '../config/client.js';
import type { Config } from '../config/types.js';
import type { Parsed } from './commands.js';
import { maxRows, runStatements } from './query-command.js';
import { openSession, type Session } from './session.js';
import { scriptStatements, splitStatements } from './statements.js';

const HISTORY_SIZE = 1000;

function historyFile(): string {
  return join(homedir(), '.tributary_history');
}

function loadHistory(): string[] {
  try {
    // readline wants the newest first.
    return readFileSync(historyFile(), 'utf8').split('\n').filter(Boolean).slice(-HISTORY_SIZE).reverse();
  } catch {
    return [];
  }
}

export async function runShell(
  config: Config,
  p: Parsed,
  io: { input?: NodeJS.ReadableStream & { isTTY?: boolean }; output?: NodeJS.WritableStream } = {},
): Promise<number> {
  const input = io.input ?? process.stdin;
  const output = io.output ?? process.stdout;
  const max = maxRows(p);
  const client = clientSettings({
    url: p.values.url as string | undefined,
    token: p.values.token as string | undefined,
  });
  const session = await openSession(config, { ...client, db: p.values.db as string | undefined });
  try {
    if (!input.isTTY) {
      const parts: Buffer[] = [];
      for await (const c of input) parts.push(Buffer.from(c as Buffer));
      const statements = scriptStatements(Buffer.concat(parts).toString('utf8'));
      return await runStatements(session, statements, { format: 'table', maxRows: max });
    }
    return await interactive(session, input, output, max);
  } finally {
    await session.close();
  }
}

async function interactive(
  session: Session,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  max: number,
): Promise<number> {
  const rl = createInterface({
    input,
    output,
    terminal: true,
    history: loadHistory(),
    historySize: HISTORY_SIZE,
  });
  const prompt = () => `tributary${session.db ? ` [${session.db}]` : ''}> `;
  const more = () => `${' '.repeat(Math.max(0, prompt().length - 4))}-> `;
  output.write("Tributary SQL shell: end statements with ';', Ctrl-C cancels, Ctrl-D leaves.\n");
  let buffer = '';
  let running: AbortController | null = null;
  rl.on('SIGINT', () => {
    if (running) {
      running.abort();
      output.write('\nCancelling...\n');
      return;
    }
    buffer = '';
    output.write('^C\n');
    rl.setPrompt(prompt());
    rl.prompt();
  });
  rl.setPrompt(prompt());
  rl.prompt();
  for await (const line of rl) {
    buffer += `${line}\n`;
    const { statements, rest } = splitStatements(buffer);
    if (statements.length) {
      try {
        appendFileSync(historyFile(), `${buffer.trim().replace(/\s*\n\s*/g, ' ')}\n`, { mode: 0o600 });
      } catch {
        // A read-only home keeps no history; the shell still works.
      }
      buffer = rest;
      // Lines typed while a statement runs wait in the iterator; input stays read so Ctrl-C reaches us.
      for (const st of statements) {
        running = new AbortController();
        try {
          await runStatements(session, [st], {
            format: 'table',
            maxRows: max,
            signal: running.signal,
            out: output as NodeJS.WritableStream & import('node:stream').Writable,
            err: output as NodeJS.WritableStream & import('node:stream').Writable,
          });
        } catch (e) {
          output.write(`${running.signal.aborted ? 'Cancelled' : `ERROR: ${(e as Error).message}`}\n`);
        } finally {
          running = null;
        }
      }
    }
    rl.setPrompt(buffer.trim() ? more() : prompt());
    rl.prompt();
  }
  output.write('\n');
  return 0;
}
