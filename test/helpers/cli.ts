/** Runs the real CLI (through tsx) and collects what it prints. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  opts: { input?: string; env?: Record<string, string>; storageDir: string },
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: opts.storageDir,
        TRIBUTARY_STORAGE_DIR: opts.storageDir,
        TRIBUTARY_MYSQL_PORT: '0',
        ...opts.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.stdin.end(opts.input ?? '');
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr }));
  });
}
