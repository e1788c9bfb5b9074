/** The real CLI's exit codes and messages: 0 ok, 1 a failed statement, 2 a wrong command line. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runCli as run } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tributary-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function runCli(args: string[]) {
  return run(args, { storageDir: dir });
}

describe('CLI exit codes and messages', () => {
  test('help: per command, and through `help COMMAND`', async () => {
    const a = await runCli(['query', '--help']);
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, /--max-rows N/);
    const b = await runCli(['help', 'query']);
    assert.equal(b.stdout, a.stdout);
    const c = await runCli(['--help']);
    assert.match(c.stdout, /Commands:/);
  });

  test('a bad flag exits 2 without claiming a failed start', async () => {
    const r = await runCli(['query', '--nope', 'SELECT 1']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--nope/);
    assert.match(r.stderr, /tributary help query/);
    assert.doesNotMatch(r.stderr, /failed to start/);
    const s = await runCli(['--port', 'abc']);
    assert.equal(s.code, 2);
    assert.doesNotMatch(s.stderr, /failed to start/);
  });

  test('a failing statement exits 1, a good one 0', async () => {
    const bad = await runCli(['query', 'SELEC 1']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /ERROR 1064/);
    assert.doesNotMatch(bad.stderr, /failed to start/);
    const ok = await runCli(['query', 'SELECT 1 AS one']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /one/);
  });
});
