import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sweepOrphans } from '../../../src/core/orphan-files.js';

const PIPE = /^pipe-(\d+)-\d+\.fifo$/;

test('files of a process that is gone are removed; a live one keeps its own until it sweeps at exit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orphans-'));
  try {
    // A pid that existed and has exited.
    const dead = spawnSync(process.execPath, [
      '-e',
      'process.stdout.write(String(process.pid))',
    ]).stdout.toString();
    const gone = join(dir, `pipe-${dead}-1.fifo`);
    const mine = join(dir, `pipe-${process.pid}-1.fifo`);
    const other = join(dir, 'catalog.json');
    for (const f of [gone, mine, other]) writeFileSync(f, '');
    assert.equal(sweepOrphans(dir, PIPE), 1);
    assert.ok(!existsSync(gone) && existsSync(mine) && existsSync(other));
    assert.equal(sweepOrphans(dir, PIPE, true), 1, 'at exit, its own');
    assert.ok(!existsSync(mine) && existsSync(other));
    assert.equal(sweepOrphans(join(dir, 'missing'), PIPE), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
