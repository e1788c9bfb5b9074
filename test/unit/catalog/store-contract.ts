/**
 * Behaviour every CatalogStore must have, run against the embedded and PostgreSQL stores.
 * `newCatalog` makes an empty catalog and returns an opener: each call of the opener gives
 * another initialised store on that same catalog (as a second process or replica would).
 * The caller closes the stores it opened after each test.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { CatalogConflictError, type CatalogStore, type SourceRecord } from '../../../src/catalog/types.js';

export function sourceRecord(
  name: string,
  params: Record<string, unknown> = {},
  engine = 'postgres',
): SourceRecord {
  return { id: randomUUID(), name, engine, params, createdAt: new Date().toISOString() };
}

/** Resolves on the next change event, or rejects after a generous bound (not a timing assertion). */
export function nextChange(store: CatalogStore, boundMs = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      reject(new Error('onSourcesChanged did not fire'));
    }, boundMs);
    store.onSourcesChanged(() => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve();
    });
  });
}

export type Opener = () => Promise<CatalogStore>;

export function storeContract(newCatalog: () => Promise<Opener>): void {
  test('creates, gets, lists and deletes sources', async () => {
    const open = await newCatalog();
    const s = await open();
    const rec = sourceRecord('Sales', { host: '127.0.0.1', port: 5432, ssl: false, tags: ['a'] });
    await s.createSource(rec, []);
    assert.deepEqual(await s.getSource('Sales'), rec);
    await s.createSource(sourceRecord('alpha'), []);
    assert.deepEqual(
      (await s.listSources()).map((r) => r.name),
      ['alpha', 'Sales'],
    );
    assert.equal(await s.deleteSource('alpha'), true);
    assert.equal(await s.deleteSource('alpha'), false);
    assert.deepEqual(
      (await s.listSources()).map((r) => r.name),
      ['Sales'],
    );
    assert.equal(await s.getSource('missing'), null);
  });

  test('names are case-insensitive for lookup, delete and conflicts', async () => {
    const open = await newCatalog();
    const s = await open();
    await s.createSource(sourceRecord('MixedCase'), []);
    assert.equal((await s.getSource('mixedcase'))?.name, 'MixedCase');
    assert.equal((await s.getSource('MIXEDCASE'))?.name, 'MixedCase');
    await assert.rejects(s.createSource(sourceRecord('MIXEDCASE'), []), CatalogConflictError);
    assert.equal((await s.listSources()).length, 1);
    assert.equal(await s.deleteSource('mixedCASE'), true);
    assert.equal(await s.getSource('MixedCase'), null);
  });

  test('secret params are returned in clear, including JSON values', async () => {
    const open = await newCatalog();
    const s = await open();
    const rec = sourceRecord('withsecrets', { user: 'u', password: 'p@ss', headers: { 'X-Key': 'k1' } });
    await s.createSource(rec, ['password', 'headers', 'not_given']);
    assert.deepEqual((await s.getSource('withsecrets'))?.params, rec.params);
    assert.deepEqual((await s.listSources())[0]?.params, rec.params);
  });

  test('sealSecrets seals parameters that became secret, in place and once', async () => {
    const open = await newCatalog();
    const s = await open();
    // Stored by a version where only the token was secret.
    const rec = sourceRecord(
      'oldapi',
      {
        base_url: 'https://api.example.com/',
        bearer_token: 't0k',
        default_headers: { 'X-Api-Key': 'hdr-secret-value' },
      },
      'rest_api',
    );
    await s.createSource(rec, ['bearer_token']);
    await s.createSource(sourceRecord('pgsrc', { password: 'pw' }), ['password']);
    const secretsOf = (engine: string) =>
      engine === 'rest_api' ? ['bearer_token', 'default_headers'] : ['password'];
    assert.equal(await s.sealSecrets(secretsOf), 1);
    assert.equal(await s.sealSecrets(secretsOf), 0);
    assert.deepEqual(await s.getSource('oldapi'), rec);
    const other = await open();
    assert.deepEqual((await other.getSource('OLDAPI'))?.params, rec.params);
  });

  test('records survive closing and reopening the store', async () => {
    const open = await newCatalog();
    const a = await open();
    const rec = sourceRecord('durable', { password: 'keepme' });
    await a.createSource(rec, ['password']);
    await a.putToken({
      hash: 'h-durable',
      username: 'admin',
      createdAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await a.close();
    const b = await open();
    assert.deepEqual(await b.getSource('DURABLE'), rec);
    assert.equal((await b.getToken('h-durable'))?.username, 'admin');
  });

  test('tokens: put, get, delete; expired ones are not returned', async () => {
    const open = await newCatalog();
    const s = await open();
    const now = Date.now();
    const live = {
      hash: 'a'.repeat(64),
      username: 'admin',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 3_600_000).toISOString(),
    };
    const expired = { ...live, hash: 'b'.repeat(64), expiresAt: new Date(now - 1000).toISOString() };
    await s.putToken(live);
    await s.putToken(expired);
    assert.deepEqual(await s.getToken(live.hash), live);
    assert.equal(await s.getToken(expired.hash), null);
    assert.equal(await s.getToken('c'.repeat(64)), null);
    await s.deleteToken(live.hash);
    assert.equal(await s.getToken(live.hash), null);
    await s.deleteToken(live.hash);
  });

  test('files: put replaces by name (case-insensitive), get, list, delete', async () => {
    const open = await newCatalog();
    const s = await open();
    const f = {
      name: 'Orders',
      format: 'csv',
      rows: 3,
      columns: 2,
      sizeBytes: 40,
      storagePath: 'files/orders.parquet',
      createdAt: new Date().toISOString(),
    };
    await s.putFile(f);
    await s.putFile({ ...f, name: 'archive', storagePath: 'files/archive.parquet' });
    assert.deepEqual(await s.getFile('orders'), f);
    const replaced = {
      ...f,
      name: 'ORDERS',
      rows: 5_000_000_000,
      sizeBytes: 9_000_000_000,
      uploadedBy: 'alice',
    };
    await s.putFile(replaced);
    assert.deepEqual(await s.getFile('Orders'), replaced);
    assert.deepEqual(
      (await s.listFiles()).map((x) => x.name),
      ['archive', 'ORDERS'],
    );
    assert.equal(await s.deleteFile('orders'), true);
    assert.equal(await s.deleteFile('orders'), false);
    assert.equal(await s.getFile('orders'), null);
  });

  test('returned records are copies: changing them does not change the catalog', async () => {
    const open = await newCatalog();
    const s = await open();
    await s.createSource(sourceRecord('copyme', { nested: { a: 1 } }), []);
    const r = await s.getSource('copyme');
    (r!.params.nested as { a: number }).a = 2;
    assert.deepEqual((await s.getSource('copyme'))?.params, { nested: { a: 1 } });
  });

  test('two stores on one catalog see each other and fire onSourcesChanged', async () => {
    const open = await newCatalog();
    const a = await open();
    const b = await open();
    const changed = nextChange(b);
    await a.createSource(sourceRecord('shared', { password: 'x' }), ['password']);
    await changed;
    assert.equal((await b.getSource('shared'))?.params.password, 'x');
    await assert.rejects(b.createSource(sourceRecord('SHARED'), []), CatalogConflictError);
    const changedA = nextChange(a);
    assert.equal(await b.deleteSource('shared'), true);
    await changedA;
    assert.equal(await a.getSource('shared'), null);
  });

  test('concurrent creates of one name from two stores: exactly one wins', async () => {
    const open = await newCatalog();
    const a = await open();
    const b = await open();
    const results = await Promise.allSettled([
      a.createSource(sourceRecord('race'), []),
      b.createSource(sourceRecord('Race'), []),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(lost.reason instanceof CatalogConflictError);
    assert.equal((await a.listSources()).length, 1);
  });

  test('many concurrent writes from two stores are all kept', async () => {
    const open = await newCatalog();
    const a = await open();
    const b = await open();
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      writes.push((i % 2 ? a : b).createSource(sourceRecord(`s${i}`), []));
    }
    await Promise.all(writes);
    assert.equal((await a.listSources()).length, 20);
    assert.equal((await b.listSources()).length, 20);
  });
}
