/**
 * `tributary hash-password` (docs/cli.md#tributary-hash-password): reads a password as one line
 * on standard input and prints its `password_hash` for auth.users_file. On a terminal it asks
 * for it without echoing; piped, the first line is the password (without its line end).
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { hashPassword } from '../auth/password-hash.js';

/** The first line of a stream: everything before the first \n (and a \r before it). */
async function firstLine(input: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<string | null> {
  const silent = new Writable({ write: (_c, _e, cb) => cb() });
  if (input.isTTY) process.stderr.write('Password: ');
  const rl = createInterface({ input, output: silent, terminal: input.isTTY === true });
  try {
    for await (const line of rl) return line;
    return null;
  } finally {
    rl.close();
    if (input.isTTY) process.stderr.write('\n');
  }
}

export async function runHashPassword(
  input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
): Promise<number> {
  const line = await firstLine(input);
  if (line === null || line === '') {
    process.stderr.write('tributary hash-password: no password on standard input (one line expected)\n');
    return 1;
  }
  process.stdout.write(`${await hashPassword(line)}\n`);
  return 0;
}
