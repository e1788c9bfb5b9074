import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { scratchName, scratchOwner, sweepScratch } from '../../../../src/sources/files/scratch.js';

const dir = mkdtempSync(join(tmpdir(), 'scratch-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';
/** A pid no process has: a child that already exited. */
const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;

test('scratch names carry their process id', () => {
  const n = scratchName('upload');
  assert.equal(scratchOwner(n), process.pid);
  assert.equal(scratchOwner(`upload-${UUID}`), null);
});

test("start-up removes the files of dead processes, of this pid and untagged ones; keeps a live process's", async () => {
  const files = {
    dead: `upload-${deadPid}-${UUID}`,
    mine: `parquet-${process.pid}-${UUID}`,
    untagged: `upload-${UUID}`,
    live: `upload-1-${UUID}`, // pid 1 is alive
  };
  for (const f of Object.values(files)) writeFileSync(join(dir, f), 'x');
  mkdirSync(join(dir, 'duckdb'), { recursive: true });
  const removed = await sweepScratch(dir, true);
  assert.deepEqual(removed.sort(), [files.dead, files.mine, files.untagged].sort());
  assert.deepEqual(readdirSync(dir).sort(), ['duckdb', files.live].sort());
});

test("while running: dead processes' files and anything untouched for an hour go; live work stays", async () => {
  const mine = `upload-${process.pid}-${UUID}`;
  const dead = `head-${deadPid}-${UUID}`;
  const stale = `scratch-1-${UUID.replace('0f8', '1f8')}`;
  for (const f of [mine, dead, stale]) writeFileSync(join(dir, f), 'x');
  const hourAgo = (Date.now() - 2 * 3_600_000) / 1000;
  utimesSync(join(dir, stale), hourAgo, hourAgo);
  const removed = await sweepScratch(dir, false);
  assert.deepEqual(removed.sort(), [dead, stale].sort());
  assert.ok(readdirSync(dir).includes(mine));
});
