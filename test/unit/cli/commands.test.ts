import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { COMMANDS, commandHelp, mainHelp, parseCommandLine, UsageError } from '../../../src/cli/commands.js';

describe('command line', () => {
  test('every command has help listing every one of its flags', () => {
    for (const [name, c] of Object.entries(COMMANDS)) {
      const help = commandHelp(name);
      assert.match(help, /^Usage:/);
      for (const [flag, f] of Object.entries(c.flags)) {
        assert.ok(help.includes(`--${flag}`), `${name} help lists --${flag}`);
        if (f.short) assert.ok(help.includes(`-${f.short}, --${flag}`), `${name} help lists -${f.short}`);
      }
    }
    for (const name of Object.keys(COMMANDS)) assert.ok(mainHelp().includes(`  ${name} `), name);
  });

  test('a command takes only its own flags', () => {
    const p = parseCommandLine([
      'query',
      'SELECT 1',
      '--db',
      'x',
      '--json',
      '--max-rows',
      '5',
      '-f',
      'a.sql',
    ]);
    assert.equal(p.command, 'query');
    assert.deepEqual(p.positionals, ['SELECT 1']);
    assert.equal(p.values.db, 'x');
    assert.equal(p.values.file, 'a.sql');
    assert.throws(
      () => parseCommandLine(['query', '--port', '1']),
      (e: unknown) => {
        assert.ok(e instanceof UsageError);
        assert.equal(e.command, 'query');
        assert.match(e.message, /--port/);
        return true;
      },
    );
    assert.throws(() => parseCommandLine(['upload', 'f.csv', '--max-rows', '3']), UsageError);
  });

  test('no command is the server; an unknown one is a usage error', () => {
    assert.equal(parseCommandLine([]).command, 'serve');
    assert.equal(parseCommandLine(['--port', '0', '--demo']).values.demo, true);
    assert.throws(() => parseCommandLine(['qurey', 'x']), /Unknown command 'qurey'/);
    assert.throws(() => parseCommandLine(['--demo', 'extra']), /Unknown command 'extra'/);
    assert.throws(() => parseCommandLine(['--bogus']), UsageError);
  });
});
