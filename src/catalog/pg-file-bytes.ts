import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Logger } from 'pino';
import { asStorageFull } from '../core/storage-full.js';
import { type FileBytes, hashFile } from '../sources/files/bytes.js';
import { FileError } from '../sources/files/errors.js';
import type { FileRecord } from '../sources/files/record.js';
import { scratchName } from '../sources/files/scratch.js';
import { clearOrphans } from '../sources/files/storage.js';
import { copyBinaryValues } from './copy-binary.js';

/** Bytes per chunk row: large enough for few round trips, small enough to hold in memory. */
export const CHUNK_BYTES = 1 << 20;
/** Chunks written per transaction: one commit (one WAL flush) per 16 MiB. */
const WRITE_BATCH = 16;
const SHA256 = /^[0-9a-f]{64}$/;
/** Stored bytes no registration names are collected once untouched this long (an upload may be between storing and registering). */
const DEFAULT_GRACE_MS = 600_000;

export interface PgFileBytesOptions {
  pool: pg.Pool;
  /** The schema-qualified name of a catalog table. */
  table: (name: string) => string;
  storageDir: string;
  logger?: Logger;
  graceMs?: number;
}

/**
 * File bytes in the shared PostgreSQL catalog (several replicas): each stored form is
 * addressed by its sha256, so identical uploads are stored once, and kept as 1 MiB bytea
 * chunks (tributary_file_chunks) under one row of tributary_file_blobs that is marked
 * complete only once every chunk is in. A registration (tributary_files.sha256, a foreign
 * key) is written after, in its own transaction, and refuses bytes that are not complete:
 * a replica killed mid-upload leaves chunks no registration names, which collect() removes.
 * Every replica reads through a local cache under `<storageDir>/files/cache/<sha256>.<ext>`,
 * checked against the hash when it is filled and once per process when found on disk.
 */
export class PgFileBytes implements FileBytes {
  readonly kind = 'catalog' as const;
  private readonly verified = new Set<string>();
  private readonly fetching = new Map<string, Promise<string | null>>();

  constructor(private readonly o: PgFileBytesOptions) {}

  private get blobs(): string {
    return this.o.table('tributary_file_blobs');
  }
  private get chunks(): string {
    return this.o.table('tributary_file_chunks');
  }

  private pathOf(rec: FileRecord): string {
    return join(this.o.storageDir, rec.storagePath);
  }

  async put(staged: string, rec: FileRecord): Promise<FileRecord> {
    const { sha256, size } = await hashFile(staged);
    const storagePath = join('files', 'cache', `${sha256}${extname(rec.storagePath)}`);
    await this.store(staged, sha256, size);
    const final = join(this.o.storageDir, storagePath);
    try {
      await mkdir(dirname(final), { recursive: true, mode: 0o700 });
    } catch (e) {
      throw asStorageFull(e, this.o.storageDir, 'caching the file');
    }
    // Identical bytes may be cached already (a dedupe): the same content either way.
    await rename(staged, final);
    this.verified.add(final);
    return { ...rec, storagePath, sha256 };
  }

  /** Writes the chunks of `path` unless a complete copy of these bytes is stored already. */
  private async store(path: string, sha256: string, size: number): Promise<void> {
    const c = await this.o.pool.connect();
    const fh = await open(path, 'r');
    try {
      const r = await c.query(
        `INSERT INTO ${this.blobs} (sha256, size_bytes, chunk_bytes, complete, touched_at) VALUES ($1, $2, $3, false, now())
         ON CONFLICT (sha256) DO UPDATE SET touched_at = now() RETURNING complete, chunk_bytes`,
        [sha256, size, CHUNK_BYTES],
      );
      if (r.rows[0].complete) return;
      // Another replica may be writing the same bytes (or was killed doing it): its chunks
      // are the same by hash, so what is there is kept and the rest added.
      const chunk = Number(r.rows[0].chunk_bytes);
      const n = Math.ceil(size / chunk);
      // Two buffers: the next chunk is read while this one is written.
      const bufs = [Buffer.allocUnsafe(Math.min(chunk, size)), Buffer.allocUnsafe(Math.min(chunk, size))];
      const readAt = (seq: number) =>
        fh.read(bufs[seq % 2], 0, Math.min(chunk, size - seq * chunk), seq * chunk);
      let pending = n > 0 ? readAt(0) : null;
      for (let seq = 0; seq < n && pending; seq++) {
        const { bytesRead, buffer } = await pending;
        pending = seq + 1 < n ? readAt(seq + 1) : null;
        if (seq % WRITE_BATCH === 0) await c.query('BEGIN');
        await c.query(
          `INSERT INTO ${this.chunks} (sha256, seq, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
          [sha256, seq, buffer.subarray(0, bytesRead)],
        );
        if (seq % WRITE_BATCH === WRITE_BATCH - 1 || seq === n - 1) {
          // Still being written: not collected meanwhile.
          await c.query(`UPDATE ${this.blobs} SET touched_at = now() WHERE sha256 = $1`, [sha256]);
          await c.query('COMMIT');
        }
      }
      await c.query(`UPDATE ${this.blobs} SET complete = true, touched_at = now() WHERE sha256 = $1`, [
        sha256,
      ]);
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw catalogFull(e);
    } finally {
      await fh.close();
      c.release();
    }
  }

  async unput(rec: FileRecord, inUse: (path: string) => boolean): Promise<void> {
    // The chunks stay until collected: another upload of the same bytes may be using them.
    const path = this.pathOf(rec);
    if (!inUse(path)) {
      this.verified.delete(path);
      await rm(path, { force: true });
    }
  }

  local(rec: FileRecord): Promise<string | null> {
    const path = this.pathOf(rec);
    if (this.verified.has(path) && existsSync(path)) return Promise.resolve(path);
    let p = this.fetching.get(path);
    if (!p) {
      p = this.fill(rec, path).finally(() => this.fetching.delete(path));
      this.fetching.set(path, p);
    }
    return p;
  }

  /** Checks the cached copy, or fills it from the chunks; null when the catalog has no complete copy. */
  private async fill(rec: FileRecord, path: string): Promise<string | null> {
    const sha256 = rec.sha256;
    if (!sha256) return existsSync(path) ? path : null;
    if (existsSync(path)) {
      if ((await hashFile(path)).sha256 === sha256) {
        this.verified.add(path);
        return path;
      }
      this.o.logger?.warn(
        { table: rec.name, path },
        'files: cached copy does not match its hash; fetched again',
      );
      await rm(path, { force: true });
    }
    const head = await this.o.pool.query(
      `SELECT size_bytes, chunk_bytes FROM ${this.blobs} WHERE sha256 = $1 AND complete`,
      [sha256],
    );
    if (!head.rows[0]) return null;
    const n = Math.ceil(Number(head.rows[0].size_bytes) / Number(head.rows[0].chunk_bytes));
    if (!SHA256.test(sha256)) return null;
    const tmp = join(this.o.storageDir, 'files', '.tmp', scratchName('fetch'));
    const h = createHash('sha256');
    let fh: Awaited<ReturnType<typeof open>> | null = null;
    const c = await this.o.pool.connect();
    let broken: Error | undefined;
    try {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      fh = await open(tmp, 'w', 0o600);
      // COPY takes no parameters: the hash is checked to be 64 hex digits above.
      const stream = c.query(
        copyTo(
          `COPY (SELECT data FROM ${this.chunks} WHERE sha256 = '${sha256}' ORDER BY seq) TO STDOUT (FORMAT binary)`,
        ),
      );
      let got = 0;
      try {
        for await (const data of copyBinaryValues(stream)) {
          h.update(data);
          await fh.write(data);
          got++;
        }
      } catch (e) {
        broken = e as Error;
        throw e;
      }
      if (got !== n) return null;
      await fh.close();
      fh = null;
      if (h.digest('hex') !== sha256) {
        this.o.logger?.error({ table: rec.name, sha256 }, 'files: stored chunks do not match their hash');
        return null;
      }
      await rename(tmp, path);
      this.verified.add(path);
      return path;
    } catch (e) {
      throw asStorageFull(e, this.o.storageDir, 'caching the file');
    } finally {
      // A copy cut short leaves the connection mid-protocol: it is closed, not reused.
      c.release(broken);
      await fh?.close().catch(() => {});
      await rm(tmp, { force: true });
    }
  }

  async release(rec: FileRecord): Promise<void> {
    if (!rec.sha256) return;
    // Only when no registration names it and no upload touched it just now (one may be
    // between storing these same bytes and registering them); else collect() does it later.
    await this.deleteUnused(`b.sha256 = $1 AND b.touched_at < now() - interval '60 seconds'`, [rec.sha256]);
  }

  async collect(records: FileRecord[]): Promise<void> {
    const grace = this.o.graceMs ?? DEFAULT_GRACE_MS;
    const n = await this.deleteUnused(
      `b.touched_at < now() - $1::double precision * interval '1 millisecond'`,
      [grace],
    );
    if (n) this.o.logger?.info({ blobs: n }, 'files: collected stored bytes no file names');
    const referenced = new Set(records.map((r) => this.pathOf(r)));
    await clearOrphans(join(this.o.storageDir, 'files', 'cache'), referenced, grace);
    // Files of the local byte store (this storage dir used with the embedded catalog before).
    await clearOrphans(join(this.o.storageDir, 'files'), referenced, grace);
  }

  /** Deletes blobs (and their chunks) matching `where` that no registration names. */
  private async deleteUnused(where: string, params: unknown[]): Promise<number> {
    try {
      const r = await this.o.pool.query(
        `DELETE FROM ${this.blobs} b WHERE ${where}
           AND NOT EXISTS (SELECT 1 FROM ${this.o.table('tributary_files')} f WHERE f.sha256 = b.sha256)`,
        params,
      );
      return r.rowCount ?? 0;
    } catch (e) {
      // A registration naming it committed meanwhile (the foreign key): it stays.
      if ((e as { code?: string }).code === '23503') return 0;
      throw e;
    }
  }
}

/** PostgreSQL's disk_full (SQLSTATE 53100) while storing bytes: 507, as a full storage dir is. */
export function catalogFull(e: unknown): unknown {
  if ((e as { code?: string } | null)?.code !== '53100') return e;
  return new FileError(
    507,
    'storage_full',
    'The catalog database is out of disk space: storing the file needs space there. Free space on its disk (DELETE /api/files/{name} frees an uploaded file once no table names its bytes)',
  );
}
