/** On a terminal (a pseudo-terminal through script(1)), the server greets with where it is and what to try. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('banner on a TTY: URL, MCP endpoint, auth, storage, a first command; pretty logs with one line per request', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-banner-'));
  const cmd = `${process.execPath} --import tsx src/cli/main.ts --port 0 --demo`;
  const child = spawn('script', ['-qec', cmd, '/dev/null'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      TRIBUTARY_STORAGE_DIR: dir,
      TERM: 'dumb',
      TRIBUTARY_MYSQL_PORT: '0',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += String(d);
  });
  const waitFor = async (re: RegExp) => {
    const end = Date.now() + 30_000;
    while (!re.test(out)) {
      if (Date.now() > end || child.exitCode !== null) throw new Error(`never saw ${re}: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await waitFor(/Try:[\s\S]*Ctrl-C/);
    const url = /SQL over HTTP +(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    assert.ok(url, out);
    assert.match(out, new RegExp(`MCP +${url}/mcp `));
    assert.match(out, /Auth +none/);
    assert.ok(out.includes(dir), out);
    assert.match(
      out,
      /tributary query --url http:\/\/127\.0\.0\.1:\d+ "SELECT \* FROM demo\.customers LIMIT 5"/,
    );
    // Logs are human lines on a terminal, not JSON.
    assert.doesNotMatch(out, /^\{"level"/m);
    await fetch(`${url}/api/status`);
    await waitFor(/INFO.*request.*"route":"\/api\/status".*"status":200/);
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await new Promise((r) => child.once('close', r));
    rmSync(dir, { recursive: true, force: true });
  }
});
