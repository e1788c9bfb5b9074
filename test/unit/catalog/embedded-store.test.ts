import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { EmbeddedCatalogStore } from '../../../src/catalog/embedded-store.js';
import { withFileLock } from '../../../src/catalog/file-lock.js';
import type { CatalogStore } from '../../../src/catalog/types.js';
import { sourceRecord, storeContract } from './store-contract.js';

const root = mkdtempSync(join(tmpdir(), 'tributary-catalog-'));
const key = randomBytes(32);
let opened: CatalogStore[] = [];

afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  opened = [];
});
after(() => rmSync(root, { recursive: true, force: true }));

function newDir(): string {
  return mkdtempSync(join(root, 'c-'));
}

async function openStore(storageDir: string, secretKey = key): Promise<EmbeddedCatalogStore> {
  // Fast polling keeps the change tests quick; the default is 1 s.
  const s = new EmbeddedCatalogStore({ storageDir, secretKey, pollMs: 50 });
  await s.init();
  opened.push(s);
  return s;
}

describe('embedded catalog store: contract', () => {
  storeContract(async () => {
    const dir = newDir();
    return () => openStore(dir);
  });
});

describe('embedded catalog store: on disk', () => {
  test('secrets never appear in clear in catalog.json, and the file is 0600', async () => {
    const dir = newDir();
    const s = await openStore(dir);
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const apiKey = `key-${randomBytes(8).toString('hex')}`;
    await s.createSource(sourceRecord('db1', { user: 'alice', password, headers: { 'X-Api-Key': apiKey } }), [
      'password',
      'headers',
    ]);
    const text = readFileSync(join(dir, 'catalog.json'), 'utf8');
    assert.ok(!text.includes(password), 'password in clear');
    assert.ok(!text.includes(apiKey), 'header secret in clear');
    assert.ok(text.includes('alice'), 'non-secret params stay readable');
    assert.ok(text.includes('"$secret": "v1:'));
    assert.equal(statSync(join(dir, 'catalog.json')).mode & 0o777, 0o600);
    assert.equal((await s.getSource('db1'))?.params.password, password);
  });

  test('sealSecrets turns a clear parameter into a sealed one on disk', async () => {
    const dir = newDir();
    const s = await openStore(dir);
    const value = `hdr-${randomBytes(8).toString('hex')}`;
    await s.createSource(
      sourceRecord('api', { bearer_token: 't', default_headers: { 'X-Key': value } }, 'rest_api'),
      ['bearer_token'],
    );
    assert.ok(readFileSync(join(dir, 'catalog.json'), 'utf8').includes(value));
    assert.equal(await s.sealSecrets(() => ['bearer_token', 'default_headers']), 1);
    assert.ok(!readFileSync(join(dir, 'catalog.json'), 'utf8').includes(value));
    assert.deepEqual((await s.getSource('api'))?.params.default_headers, { 'X-Key': value });
  });

  test('no temp or lock files are left behind after writes', async () => {
    const dir = newDir();
    const s = await openStore(dir);
    await Promise.all([1, 2, 3, 4, 5].map((i) => s.createSource(sourceRecord(`n${i}`), [])));
    assert.deepEqual(
      readdirSync(dir).filter((f) => f !== 'catalog.json'),
      [],
    );
  });

  test('a store with another key cannot read secrets and says which source and parameter', async () => {
    const dir = newDir();
    const a = await openStore(dir);
    await a.createSource(sourceRecord('locked', { password: 'hunter2' }), ['password']);
    const b = await openStore(dir, randomBytes(32));
    await assert.rejects(
      b.getSource('locked'),
      (e: Error) =>
        e.message.includes("'password'") && e.message.includes("'locked'") && !e.message.includes('hunter2'),
    );
  });

  test('a secret moved onto another source does not open there', async () => {
    const dir = newDir();
    const s = await openStore(dir);
    await s.createSource(sourceRecord('one', { password: 'p1' }), ['password']);
    await s.createSource(sourceRecord('two', { password: 'p2' }), ['password']);
    await s.close();
    const file = join(dir, 'catalog.json');
    const json = JSON.parse(readFileSync(file, 'utf8'));
    json.sources[1].params.password = json.sources[0].params.password;
    writeFileSync(file, JSON.stringify(json));
    const t = await openStore(dir);
    assert.equal((await t.getSource('one'))?.params.password, 'p1');
    await assert.rejects(t.getSource('two'), /Cannot decrypt secret parameter 'password' of source 'two'/);
  });

  test('a corrupt catalog file fails with a message naming it', async () => {
    const dir = newDir();
    writeFileSync(join(dir, 'catalog.json'), '{ broken');
    const s = new EmbeddedCatalogStore({ storageDir: dir, secretKey: key, pollMs: 0 });
    await assert.rejects(s.init(), (e: Error) => e.message.includes(join(dir, 'catalog.json')));
    await s.close();
    writeFileSync(join(dir, 'catalog.json'), '{"version": 7}');
    const t = new EmbeddedCatalogStore({ storageDir: dir, secretKey: key, pollMs: 0 });
    await assert.rejects(t.init(), /not a Tributary catalog/);
    await t.close();
  });

  test('the storage dir is created (0700) when missing', async () => {
    const dir = join(newDir(), 'deeper', 'store');
    const s = await openStore(dir);
    await s.createSource(sourceRecord('x'), []);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
  });

  test('expired tokens are pruned from the file on the next login', async () => {
    const dir = newDir();
    const s = await openStore(dir);
    const now = Date.now();
    await s.putToken({
      hash: 'old',
      username: 'u',
      createdAt: new Date(now - 7200_000).toISOString(),
      expiresAt: new Date(now - 3600_000).toISOString(),
    });
    await s.putToken({
      hash: 'new',
      username: 'u',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 3600_000).toISOString(),
    });
    const json = JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8'));
    assert.deepEqual(
      json.tokens.map((t: { hash: string }) => t.hash),
      ['new'],
    );
  });

  test('the catalog file changed behind the store is seen on the next read and fires listeners', async () => {
    const dir = newDir();
    const a = await openStore(dir);
    await a.createSource(sourceRecord('first'), []);
    let fired = 0;
    a.onSourcesChanged(() => fired++);
    const b = await openStore(dir);
    await b.createSource(sourceRecord('second'), []);
    // A foreground read notices before any poll needs to.
    assert.deepEqual(
      (await a.listSources()).map((r) => r.name),
      ['first', 'second'],
    );
    assert.ok(fired >= 1);
  });

  test('own writes do not fire onSourcesChanged', async () => {
    const dir = newDir();
    const s = await openStore(dir);
    let fired = 0;
    s.onSourcesChanged(() => fired++);
    await s.createSource(sourceRecord('mine'), []);
    await s.deleteSource('mine');
    await s.listSources();
    assert.equal(fired, 0);
  });
});

describe('file lock', () => {
  test('serialises holders within and across calls', async () => {
    const lock = join(newDir(), 'x.lock');
    let inside = 0;
    let maxInside = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        withFileLock(lock, async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await new Promise((r) => setTimeout(r, 2));
          inside--;
        }),
      ),
    );
    assert.equal(maxInside, 1);
    assert.equal(existsSync(lock), false);
  });

  test('a lock left by a dead process is broken', async () => {
    const lock = join(newDir(), 'x.lock');
    // pid 2^22+ is beyond the default pid_max, so no such process exists.
    writeFileSync(
      lock,
      JSON.stringify({ pid: 4_194_999, host: (await import('node:os')).hostname(), token: 't' }),
    );
    assert.equal(await withFileLock(lock, async () => 'ran'), 'ran');
  });

  test('a live holder that never releases makes waiters fail naming the lock file', async () => {
    const lock = join(newDir(), 'x.lock');
    writeFileSync(
      lock,
      JSON.stringify({ pid: process.ppid, host: (await import('node:os')).hostname(), token: 't' }),
    );
    await assert.rejects(
      withFileLock(lock, async () => 'ran', { timeoutMs: 200, staleMs: 60_000 }),
      (e: Error) => e.message.includes(lock) && e.message.includes(`pid ${process.ppid}`),
    );
  });

  test('an old lock of unknown origin is broken', async () => {
    const lock = join(newDir(), 'x.lock');
    writeFileSync(lock, 'garbage');
    const { utimesSync } = await import('node:fs');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    assert.equal(await withFileLock(lock, async () => 'ran', { staleMs: 10_000 }), 'ran');
  });
});
