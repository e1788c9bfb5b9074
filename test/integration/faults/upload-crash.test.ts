/**
 * kill -9 during an upload leaves its partial file; the next start removes it, and the
 * storage dir holds nothing of the failed upload (no table, no file).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { spawnServer } from '../auth/helpers/processes.js';

const storage = mkdtempSync(join(tmpdir(), 'fault-upload-'));
after(() => rmSync(storage, { recursive: true, force: true }));

const scratch = () => readdirSync(join(storage, 'files', '.tmp')).filter((n) => n.startsWith('upload-'));

test('a partial upload killed with the server is gone after the restart', { timeout: 60_000 }, async () => {
  const env = {
    TRIBUTARY_STORAGE_DIR: storage,
    TRIBUTARY_HTTP_HOST: '127.0.0.1',
    TRIBUTARY_LOG_LEVEL: 'silent',
  };
  const first = await spawnServer(env);
  // A raw upload that declares 50 MB and sends 2 MB, then waits: the server is receiving it.
  const url = new URL('/api/files/partial?format=csv', first.url);
  const req = http.request(url, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(50 * 1024 * 1024) },
  });
  req.on('error', () => {}); // the server dies under it
  req.write(`a,b\n${'1,2\n'.repeat(500_000)}`);
  for (let i = 0; i < 200 && scratch().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(scratch().length, 1, 'the upload is being received');
  await first.crash();
  req.destroy();
  assert.equal(scratch().length, 1, 'kill -9 left the partial file');

  const second = await spawnServer(env);
  try {
    assert.deepEqual(scratch(), []);
    const list = (await (await fetch(new URL('/api/files', second.url))).json()) as unknown[];
    assert.deepEqual(list, []);
  } finally {
    await second.stop();
  }
});
