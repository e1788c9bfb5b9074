/** `tributary hash-password` reading its line from stdin, and the in-process CLI running as `local`. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parsePasswordHash, verifyPassword } from '../../../src/auth/password-hash.js';
import { runCli } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tributary-cli-principal-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('hash-password: the first line of stdin (without its line end) is hashed; nothing there exits 1', async () => {
  for (const input of ['s3cret pässword\n', 's3cret pässword\r\nsecond line\n', 's3cret pässword']) {
    const r = await runCli(['hash-password'], { input, storageDir: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const line = r.stdout.trim();
    assert.match(line, /^scrypt\$N=32768,r=8,p=1\$/);
    const h = parsePasswordHash(line);
    assert.ok(typeof h !== 'string', String(h));
    assert.equal(await verifyPassword('s3cret pässword', h), true, JSON.stringify(input));
    assert.equal(await verifyPassword('s3cret pässword\r', h), false);
  }
  const empty = await runCli(['hash-password'], { input: '', storageDir: dir });
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /no password on standard input/);
  assert.equal(empty.stdout, '');
});

test('the in-process CLI runs its statements as local', async () => {
  const r = await runCli(['query', '--json', 'SELECT CURRENT_USER() AS u'], { storageDir: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).data, [['local']]);
});
