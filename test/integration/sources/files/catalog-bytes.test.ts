/**
 * The catalog's file bytes (PostgreSQL: chunks by sha256, a local cache per replica):
 * the FileBytes contract, then what only a shared store has: dedupe, the cache checked
 * against the hash, registrations refused for incomplete bytes, and change notices.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import pg from 'pg';
import { CHUNK_BYTES, catalogFull } from '../../../../src/catalog/pg-file-bytes.js';
import { PgCatalogStore } from '../../../../src/catalog/pg-store.js';
import { FileError } from '../../../../src/sources/files/errors.js';
import { createPgDatabase, PG, uniqueName } from '../../../helpers/services.js';
import {
  type BytesPeer,
  fileBytesContract,
  fileRecord,
  stage,
} from '../../../unit/sources/files/bytes-contract.js';

const key = randomBytes(32);
const root = mkdtempSync(join(tmpdir(), 'tributary-pgbytes-'));
let db: { database: string; drop: () => Promise<void> };
let opened: PgCatalogStore[] = [];
let client: pg.Client;

before(async () => {
  db = await createPgDatabase('i30files');
  client = new pg.Client({ ...PG, database: db.database });
  await client.connect();
});
afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  opened = [];
});
after(async () => {
  await client?.end();
  await db?.drop();
  rmSync(root, { recursive: true, force: true });
});

async function openStore(schema: string): Promise<PgCatalogStore> {
  const s = new PgCatalogStore({
    url: `postgres://${PG.user}@${PG.host}:${PG.port}/${db.database}?schema=${schema}`,
    secretKey: key,
  });
  opened.push(s);
  await s.init();
  return s;
}

/** A replica: its own catalog connection and its own storage dir (an empty cache). */
async function peer(schema: string): Promise<BytesPeer & { store: PgCatalogStore }> {
  const store = await openStore(schema);
  const storageDir = mkdtempSync(join(root, 'r-'));
  mkdirSync(join(storageDir, 'files', '.tmp'), { recursive: true });
  return { store, storageDir, bytes: store.fileBytes(storageDir, 0) };
}

describe('catalog file bytes: contract', () => {
  fileBytesContract(async () => {
    const schema = uniqueName('fb');
    const store = await openStore(schema);
    return { store, open: () => peer(schema) };
  });
});

describe('catalog file bytes', () => {
  test('identical bytes are stored once, in 1 MiB chunks, named by their sha256', async () => {
    const schema = uniqueName('fb');
    const a = await peer(schema);
    const b = await peer(schema);
    const body = randomBytes(2 * CHUNK_BYTES + 5);
    const one = await a.bytes.put(stage(a, body), fileRecord('one'));
    const two = await b.bytes.put(stage(b, body), fileRecord('two'));
    assert.equal(one.sha256, two.sha256);
    assert.match(one.storagePath, new RegExp(`${one.sha256}\\.parquet$`));
    const blobs = await client.query(
      `SELECT sha256, size_bytes, complete FROM "${schema}".tributary_file_blobs`,
    );
    assert.deepEqual(blobs.rows, [{ sha256: one.sha256, size_bytes: String(body.length), complete: true }]);
    const chunks = await client.query(
      `SELECT seq, length(data) AS n FROM "${schema}".tributary_file_chunks ORDER BY seq`,
    );
    assert.deepEqual(
      chunks.rows.map((r) => [r.seq, r.n]),
      [
        [0, CHUNK_BYTES],
        [1, CHUNK_BYTES],
        [2, 5],
      ],
    );
  });

  test('a cached copy that does not match its hash is fetched again', async () => {
    const schema = uniqueName('fb');
    const a = await peer(schema);
    const body = randomBytes(100_000);
    const rec = await a.bytes.put(stage(a, body), fileRecord('t'));
    await a.store.putFile(rec);
    const b = await peer(schema);
    const path = await b.bytes.local(rec);
    assert.ok(path);
    // Damage the copy, then a new process (nothing verified yet) on the same storage dir.
    writeFileSync(path, Buffer.from('not the bytes'));
    const b2 = { ...b, bytes: b.store.fileBytes(b.storageDir, 0) };
    const again = await b2.bytes.local(rec);
    assert.equal(again, path);
    assert.ok(readFileSync(path).equals(body));
  });

  test('a registration naming incomplete bytes (a replica killed mid-upload) is refused; collect removes them', async () => {
    const schema = uniqueName('fb');
    const a = await peer(schema);
    const sha = 'ab'.repeat(32);
    // What a replica killed after two of its chunks leaves.
    await client.query(
      `INSERT INTO "${schema}".tributary_file_blobs (sha256, size_bytes, chunk_bytes, complete) VALUES ($1, $2, $3, false)`,
      [sha, 5 * CHUNK_BYTES, CHUNK_BYTES],
    );
    for (const seq of [0, 1])
      await client.query(
        `INSERT INTO "${schema}".tributary_file_chunks (sha256, seq, data) VALUES ($1, $2, $3)`,
        [sha, seq, randomBytes(16)],
      );
    const rec = { ...fileRecord('half'), sha256: sha, storagePath: `files/cache/${sha}.parquet` };
    await assert.rejects(a.store.putFile(rec), /not all in the catalog/);
    assert.deepEqual(await a.store.listFiles(), []);
    assert.equal(await a.bytes.local(rec), null);
    await a.bytes.collect([]);
    const left = await client.query(
      `SELECT (SELECT count(*) FROM "${schema}".tributary_file_blobs) AS blobs, (SELECT count(*) FROM "${schema}".tributary_file_chunks) AS chunks`,
    );
    assert.deepEqual(left.rows[0], { blobs: '0', chunks: '0' });
  });

  test('bytes in use by a registration cannot be collected, even past the grace time', async () => {
    const schema = uniqueName('fb');
    const a = await peer(schema);
    const rec = await a.bytes.put(stage(a, randomBytes(10)), fileRecord('held'));
    await a.store.putFile(rec);
    await a.bytes.release(rec);
    await a.bytes.collect([]);
    const n = await client.query(`SELECT count(*) AS n FROM "${schema}".tributary_file_blobs`);
    assert.equal(n.rows[0].n, '1');
  });

  test('registrations are announced to the other stores (onFilesChanged), not to the writer', async () => {
    const schema = uniqueName('fb');
    const a = await peer(schema);
    const b = await peer(schema);
    let seenA = 0;
    a.store.onFilesChanged(() => seenA++);
    const seenB = (n: number) =>
      new Promise<void>((resolve) => {
        let k = 0;
        b.store.onFilesChanged(() => {
          if (++k === n) resolve();
        });
      });
    const two = seenB(2);
    const rec = await a.bytes.put(stage(a, randomBytes(10)), fileRecord('told'));
    await a.store.putFile(rec);
    await a.store.deleteFile('told');
    await two;
    assert.equal(seenA, 0);
  });

  test("the catalog database's disk_full (53100) is a 507 storage_full answer; other errors pass", () => {
    const full = catalogFull(Object.assign(new Error('could not extend file'), { code: '53100' }));
    assert.ok(full instanceof FileError);
    assert.equal(full.status, 507);
    assert.equal(full.errorCode, 'storage_full');
    const other = Object.assign(new Error('x'), { code: '23505' });
    assert.equal(catalogFull(other), other);
  });
});
