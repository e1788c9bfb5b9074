/** `tributary sql`: the interactive shell on a terminal, and piped statements without prompts. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, test } from 'node:test';
import { parseCommandLine } from '../../../src/cli/commands.js';
import { runShell } from '../../../src/cli/shell.js';
import { loadConfig } from '../../../src/config/load.js';
import { runCli } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tributary-shell-'));
const home = process.env.HOME;
after(() => {
  process.env.HOME = home;
  rmSync(dir, { recursive: true, force: true });
});

describe('tributary sql', () => {
  test('on a terminal: multi-line statements, USE in the prompt, history kept', async () => {
    process.env.HOME = dir;
    const config = await loadConfig({ argv: { demo: true }, env: { TRIBUTARY_STORAGE_DIR: dir } });
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = new PassThrough();
    let seen = '';
    output.on('data', (d) => {
      seen += String(d);
    });
    const done = runShell(config, parseCommandLine(['sql']), { input, output });
    const waitFor = async (re: RegExp) => {
      const end = Date.now() + 20_000;
      while (!re.test(seen)) {
        if (Date.now() > end) throw new Error(`never saw ${re}: ${seen}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await waitFor(/tributary> /);
    input.write('USE demo;\n');
    await waitFor(/tributary \[demo\]> /);
    input.write('SELECT COUNT(*)\n');
    await waitFor(/-> /);
    input.write('  AS n FROM customers;\n');
    await waitFor(/\| n +\|[\s\S]*1 row/);
    input.end();
    assert.equal(await done, 0);
    const history = readFileSync(join(dir, '.tributary_history'), 'utf8');
    assert.match(history, /USE demo;\nSELECT COUNT\(\*\) AS n FROM customers;\n/);
  });

  test('piped: runs the statements without prompts; a failure exits 1', async () => {
    const ok = await runCli(['sql', '--demo'], { storageDir: dir, input: 'USE demo;\nSELECT 1 AS x;\n' });
    assert.equal(ok.code, 0, ok.stderr);
    assert.doesNotMatch(ok.stdout, /tributary>/);
    assert.match(ok.stdout, /\| x \|/);
    const bad = await runCli(['sql', '--demo'], {
      storageDir: dir,
      input: 'SELECT nope FROM demo.customers;',
    });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /ERROR 1054/);
  });
});
