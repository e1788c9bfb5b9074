/** `--mcp-stdio` start-up: time from spawning the process to the first `tools/list` answer. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { percentile, round } from './lib.js';

async function spawnToToolsList(args: string[], storageDir: string): Promise<number> {
  const client = new Client({ name: 'tributary-bench', version: '0.1.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      TRIBUTARY_STORAGE_DIR: storageDir,
      TRIBUTARY_LOG_LEVEL: 'warn',
    },
    stderr: 'ignore',
  });
  const t0 = performance.now();
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const ms = performance.now() - t0;
    if (!tools.some((t) => t.name === 'query')) throw new Error('stdio tools/list has no query tool');
    return ms;
  } finally {
    await client.close().catch(() => {});
  }
}

/** Median of `runs` start-ups after one untimed one (which warms the file cache). */
async function medianStartup(args: string[], runs: number): Promise<number> {
  const storageDir = mkdtempSync(join(tmpdir(), 'tributary-bench-stdio-'));
  try {
    await spawnToToolsList(args, storageDir);
    const xs: number[] = [];
    for (let i = 0; i < runs; i++) xs.push(await spawnToToolsList(args, storageDir));
    return percentile(xs, 50);
  } finally {
    rmSync(storageDir, { recursive: true, force: true });
  }
}

/**
 * Start-up of the built server (what `npm start` and the `tributary` bin run; built first
 * when dist/ is missing or older than src/, as `npm start` does) and from source via tsx.
 */
export async function benchStdio(runs = 5): Promise<Record<string, unknown>> {
  let builtMs: number | null = null;
  let buildNote: string | undefined;
  try {
    execFileSync(process.execPath, ['scripts/build-if-needed.mjs'], { stdio: 'ignore', timeout: 180_000 });
  } catch (e) {
    // tsc reports type errors but still emits; only a missing entry point rules the built run out
    buildNote = `build: ${(e as Error).message.split('\n')[0]}`;
  }
  if (existsSync('dist/cli/main.js')) {
    builtMs = round(await medianStartup(['dist/cli/main.js', '--mcp-stdio'], runs), 1);
  }
  const tsxMs = round(await medianStartup(['--import', 'tsx', 'src/cli/main.ts', '--mcp-stdio'], runs), 1);
  return {
    built_ms: builtMs,
    tsx_ms: tsxMs,
    runs,
    target_ms: 500,
    meets_target: (builtMs ?? tsxMs) < 500,
    ...(buildNote ? { note: buildNote } : {}),
  };
}
