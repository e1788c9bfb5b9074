/**
 * A replica whose storage dir is full, with the file bytes in the shared catalog: the
 * table another replica uploaded is listed but cannot be copied here, so a statement over
 * it answers 1021 naming this replica's dir (not 1146), an upload through it answers 507,
 * and once space is freed the table reads. The storage dir is a small tmpfs (root, as the
 * test setup runs).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Result } from '../../../src/sql/result.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { createPgDatabase } from '../../helpers/services.js';

let mount: string;
let db: { database: string; drop: () => Promise<void> };
let a: TestServer | null = null;
let b: TestServer | null = null;

function error(r: Result): { error_code: number; error_message: string } {
  assert.equal(r.type, 'error', JSON.stringify(r).slice(0, 300));
  return r as { error_code: number; error_message: string };
}

before(async () => {
  mount = mkdtempSync(join(tmpdir(), 'i30-files-fulldisk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mount], { stdio: 'pipe' });
  } catch (e) {
    throw new Error(`this test mounts a tmpfs and needs root: ${(e as Error).message}`);
  }
  db = await createPgDatabase('i30filesfull');
  const env = {
    TRIBUTARY_CATALOG_URL: `postgres://postgres@127.0.0.1:5432/${db.database}`,
    TRIBUTARY_SECRET_KEY: randomBytes(32).toString('base64'),
  };
  a = await startTestServer(env);
  b = await startTestServer(env, { storageDir: join(mount, 'storage') });
});

after(async () => {
  await a?.stop();
  await b?.stop();
  await db?.drop();
  try {
    execFileSync('umount', [mount]);
  } finally {
    rmSync(mount, { recursive: true, force: true });
  }
});

test('a full replica: 1021 naming its dir for a table it cannot copy, 507 for an upload; reads once freed', async () => {
  // Fill B's disk to the last page.
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${join(mount, 'fill')}`, 'bs=64k'], { stdio: 'ignore' });
  } catch {
    // dd exits non-zero on ENOSPC: that is the point
  }
  // Random text does not compress: its Parquet is about as large as the CSV.
  const rows = Array.from({ length: 30_000 }, (_, i) => `${i},${randomBytes(48).toString('hex')}`);
  const up = await fetch(`${a!.url}/api/files/wide`, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: `id,payload\n${rows.join('\n')}\n`,
  });
  assert.equal(up.status, 201, await up.text());

  const listed = (await (await fetch(`${b!.url}/api/files`)).json()) as { name: string }[];
  assert.deepEqual(
    listed.map((f) => f.name),
    ['wide'],
  );
  const full = error(await b!.sql('SELECT COUNT(*) FROM files.wide'));
  assert.equal(full.error_code, 1021);
  assert.match(full.error_message, new RegExp(mount));

  const refused = await fetch(`${b!.url}/api/files/more`, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: `id,payload\n${rows.slice(0, 2000).join('\n')}\n`,
  });
  assert.equal(refused.status, 507);
  assert.equal(((await refused.json()) as { error_code: string }).error_code, 'storage_full');

  rmSync(join(mount, 'fill'));
  const r = await b!.sql('SELECT COUNT(*) FROM files.wide');
  assert.equal(r.type, 'table', JSON.stringify(r).slice(0, 300));
  assert.equal((r as { data: unknown[][] }).data[0][0], 30_000);
});
