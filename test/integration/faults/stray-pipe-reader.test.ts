/**
 * A PostgreSQL fragment reaches DuckDB through a named pipe that is kept for the next
 * fragment. DuckDB opens files without O_CLOEXEC, so a child process started while it read
 * the pipe keeps a read end open; the next writer used to pair with that stray reader and
 * DuckDB then waited for ever (a cross-source statement hung). A kept pipe with a reader
 * is now replaced. The stray reader here is a child that opens the pipe and sleeps.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { JOIN, startWireFixture, type WireFixture } from '../wire/helpers.js';

let fx: WireFixture;
before(async () => {
  fx = await startWireFixture();
});
after(async () => {
  await fx?.stop();
});

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  ]);
}

test('a kept pipe another process still reads is not reused: the next cross-source statement answers', async () => {
  const first = await fx.server.sql(JOIN);
  assert.equal(first.type, 'table');
  const tmp = join(fx.server.storageDir, 'tmp');
  const fifos = readdirSync(tmp).filter((n) => n.endsWith('.fifo'));
  assert.ok(fifos.length > 0, 'the fragment went through a kept pipe');
  const stray = spawn('python3', [
    '-c',
    `import os, sys, time\nfor p in sys.argv[1:]: os.open(p, os.O_RDONLY | os.O_NONBLOCK)\nprint('open', flush=True)\ntime.sleep(60)`,
    ...fifos.map((n) => join(tmp, n)),
  ]);
  try {
    await new Promise<void>((resolve, reject) => {
      stray.stdout.once('data', () => resolve());
      stray.once('error', reject);
    });
    const again = await within(fx.server.sql(JOIN), 15_000);
    assert.deepEqual(again, first);
    // The held pipes were dropped, not written to (whether the writer or DuckDB would have
    // come first is a race; which pipe was used is not).
    const now = readdirSync(tmp).filter((n) => n.endsWith('.fifo'));
    for (const held of fifos) assert.ok(!now.includes(held), `${held} was reused`);
    assert.ok(now.length > 0);
  } finally {
    stray.kill();
  }
});
