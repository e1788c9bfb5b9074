/**
 * Behaviour every FileBytes must have (the local storage dir and the catalog's chunks),
 * run against both. `newStore` makes empty shared state and returns an opener: each call
 * gives another FileBytes on it as another process (local: the same storage dir) or
 * replica (catalog: its own storage dir) would have, plus the registrations both share.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { FileBytes, FileRecordStore } from '../../../../src/sources/files/index.js';
import type { FileRecord } from '../../../../src/sources/files/record.js';

export interface BytesPeer {
  bytes: FileBytes;
  storageDir: string;
}

export interface BytesHarness {
  store: FileRecordStore;
  open(): Promise<BytesPeer>;
}

let seq = 0;

/** A staged file in the peer's scratch dir, as an upload leaves it. */
export function stage(peer: BytesPeer, body: Buffer): string {
  const p = join(peer.storageDir, 'files', '.tmp', `contract-${process.pid}-${++seq}`);
  writeFileSync(p, body);
  return p;
}

export function fileRecord(name: string, ext = 'parquet', size = 0): FileRecord {
  return {
    name,
    format: 'csv',
    rows: 1,
    columns: 1,
    sizeBytes: size,
    storagePath: join('files', `${name.toLowerCase()}.${randomBytes(4).toString('hex')}.${ext}`),
    createdAt: new Date().toISOString(),
  };
}

export function fileBytesContract(newHarness: () => Promise<BytesHarness>): void {
  test('bytes put and registered are read back by another process or replica', async () => {
    const h = await newHarness();
    const a = await h.open();
    const body = randomBytes(3 * 1024 * 1024 + 17);
    const rec = await a.bytes.put(stage(a, body), fileRecord('T1', 'parquet', body.length));
    assert.equal(rec.name, 'T1');
    assert.match(rec.storagePath, /\.parquet$/, 'the stored form (extension) is kept');
    await h.store.putFile(rec);
    const here = await a.bytes.local(rec);
    assert.ok(here);
    assert.ok(readFileSync(here).equals(body));
    const b = await h.open();
    const there = await b.bytes.local((await h.store.listFiles())[0]);
    assert.ok(there);
    assert.ok(readFileSync(there).equals(body));
  });

  test('an empty file and a one-byte file round-trip', async () => {
    const h = await newHarness();
    const a = await h.open();
    for (const body of [Buffer.alloc(0), Buffer.from('x')]) {
      const rec = await a.bytes.put(stage(a, body), fileRecord(`e${body.length}`, 'csv'));
      await h.store.putFile(rec);
      const b = await h.open();
      const p = await b.bytes.local(rec);
      assert.ok(p);
      assert.ok(readFileSync(p).equals(body));
    }
  });

  test('unput (the registration failed) removes the local copy; collect leaves nothing of it', async () => {
    const h = await newHarness();
    const a = await h.open();
    const rec = await a.bytes.put(stage(a, randomBytes(1000)), fileRecord('gone'));
    await a.bytes.unput(rec, () => false);
    await a.bytes.collect(await h.store.listFiles());
    const b = await h.open();
    assert.equal(await b.bytes.local(rec), null);
  });

  test('collect keeps registered bytes and removes bytes no registration names', async () => {
    const h = await newHarness();
    const a = await h.open();
    const kept = await a.bytes.put(stage(a, randomBytes(2000)), fileRecord('kept'));
    await h.store.putFile(kept);
    // Stored but never registered: the process died between the two.
    const orphan = await a.bytes.put(stage(a, randomBytes(2000)), fileRecord('orphan'));
    await a.bytes.collect(await h.store.listFiles());
    const b = await h.open();
    assert.ok(await b.bytes.local(kept));
    assert.equal(await b.bytes.local(orphan), null);
  });

  test('a dropped registration: released and collected, its bytes are gone everywhere', async () => {
    const h = await newHarness();
    const a = await h.open();
    const rec = await a.bytes.put(stage(a, randomBytes(5000)), fileRecord('dropme'));
    await h.store.putFile(rec);
    const b = await h.open();
    assert.ok(await b.bytes.local(rec));
    assert.equal(await h.store.deleteFile('dropme'), true);
    await a.bytes.release(rec);
    await a.bytes.collect([]);
    const c = await h.open();
    assert.equal(await c.bytes.local(rec), null);
  });

  test('two names with identical bytes: dropping one leaves the other readable', async () => {
    const h = await newHarness();
    const a = await h.open();
    const body = randomBytes(4096);
    const one = await a.bytes.put(stage(a, body), fileRecord('one'));
    await h.store.putFile(one);
    const two = await a.bytes.put(stage(a, body), fileRecord('two'));
    await h.store.putFile(two);
    await h.store.deleteFile('one');
    await a.bytes.release(one);
    await a.bytes.collect(await h.store.listFiles());
    const b = await h.open();
    const p = await b.bytes.local(two);
    assert.ok(p);
    assert.ok(readFileSync(p).equals(body));
  });
}
