/**
 * A full storage disk is an answer, not an outage (issue 27). The test mounts a small tmpfs
 * as the storage dir (it runs as root, as the test setup does), fills it, and checks that
 * uploads answer 507 naming the dir, a catalog write answers 1021, a DELETE frees space,
 * the server starts again on the full disk, and no lock file is ever left behind.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const CSV = 'a,b\n1,2\n3,4\n';
let mount: string;
let storageDir: string;
let server: TestServer | null = null;

function fill(name: string): void {
  // Writes until the disk refuses: the tmpfs is then full to the last page.
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${join(mount, name)}`, 'bs=64k'], { stdio: 'ignore' });
  } catch {
    // dd exits non-zero on ENOSPC: that is the point
  }
}

async function put(name: string): Promise<Response> {
  return fetch(`${server!.url}/api/files/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: CSV,
  });
}

function locks(): string[] {
  return readdirSync(storageDir).filter((n) => n.includes('.lock'));
}

before(() => {
  mount = mkdtempSync(join(tmpdir(), 'tributary-fulldisk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mount], { stdio: 'pipe' });
  } catch (e) {
    throw new Error(`this test mounts a tmpfs and needs root: ${(e as Error).message}`);
  }
  storageDir = join(mount, 'storage');
});

after(async () => {
  await server?.stop();
  try {
    execFileSync('umount', [mount]);
  } finally {
    rmSync(mount, { recursive: true, force: true });
  }
});

test('on a full storage disk: 507 naming the dir, 1021 for a catalog write, deletes free space, no lock left', async () => {
  server = await startTestServer({}, { storageDir });
  assert.equal((await put('one')).status, 201);
  assert.equal((await put('two')).status, 201);
  fill('filler');

  const refused = await put('three');
  assert.equal(refused.status, 507);
  const body = (await refused.json()) as { error_code: string; message: string };
  assert.equal(body.error_code, 'storage_full');
  assert.ok(body.message.includes(storageDir), body.message);
  assert.deepEqual(locks(), []);

  const db = join(mount, '..', `fulldisk-${process.pid}.sqlite`);
  writeFileSync(db, '');
  try {
    const r = await server.sql(`CREATE DATABASE lite WITH ENGINE = 'sqlite', PARAMETERS = {"path": "${db}"}`);
    assert.equal(r.type, 'error');
    if (r.type === 'error') {
      assert.equal(r.error_code, 1021);
      assert.match(r.error_message, /storage dir .* is full/);
    }
  } finally {
    rmSync(db, { force: true });
  }
  assert.deepEqual(locks(), []);

  // A delete frees the file's space even though the catalog had no room to change.
  const del = await fetch(`${server.url}/api/files/one`, { method: 'DELETE' });
  assert.equal(del.status, 204);
  const listed = (await (await fetch(`${server.url}/api/files`)).json()) as { name: string }[];
  assert.deepEqual(
    listed.map((f) => f.name),
    ['two'],
  );
  assert.deepEqual(await server.sql('SELECT COUNT(*) AS n FROM files.two'), {
    type: 'table',
    column_names: ['n'],
    data: [[2]],
  });
  assert.deepEqual(locks(), []);
  await server.stop();
  server = null;

  // It starts again on the full disk, reads, and still leaves no lock.
  fill('filler2');
  server = await startTestServer({}, { storageDir });
  const status = await fetch(`${server.url}/mcp/status`);
  assert.equal(status.status, 200);
  assert.deepEqual(await server.sql('SELECT a FROM files.two ORDER BY a'), {
    type: 'table',
    column_names: ['a'],
    data: [[1], [3]],
  });
  assert.equal((await put('four')).status, 507);
  assert.deepEqual(locks(), []);
  assert.equal(existsSync(join(storageDir, 'catalog.json')), true);
});
