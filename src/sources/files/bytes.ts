import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileRecord } from './record.js';
import { clearOrphans } from './storage.js';

/**
 * Where the stored form of each file table (its Parquet, or the CSV awaiting conversion)
 * lives. One interface, two implementations: `LocalFileBytes` (the storage dir; one server
 * with the embedded catalog) and the catalog's `PgFileBytes` (chunks in the shared
 * PostgreSQL catalog addressed by sha256, a verified local cache per replica). Readers
 * always read a local path: `join(storageDir, rec.storagePath)`.
 */
export interface FileBytes {
  /** 'local' or 'catalog' (logs, docs). */
  readonly kind: 'local' | 'catalog';
  /**
   * Take the staged file (moved, not copied) as the bytes of `rec`, whose storagePath's
   * extension names the stored form. Returns the record to register (the catalog store
   * names its bytes by content hash). Nothing is registered here: the caller's catalog
   * write, after this, is what makes the bytes a table.
   */
  put(staged: string, rec: FileRecord): Promise<FileRecord>;
  /** Registering what put() returned failed: undo what put() did locally. */
  unput(rec: FileRecord, inUse: (path: string) => boolean): Promise<void>;
  /**
   * The local path of `rec`'s bytes, fetched into the local cache (and checked against its
   * hash) when missing; null when they are gone.
   */
  local(rec: FileRecord): Promise<string | null>;
  /**
   * `rec` is no longer registered (replaced, converted or dropped): its shared bytes may go
   * once no registration names them. Its local file is retired by the caller.
   */
  release(rec: FileRecord): Promise<void>;
  /** Remove what no registration names: old local files, and shared bytes left by a crash. */
  collect(records: FileRecord[]): Promise<void>;
}

/** The absolute local path of a record's bytes. */
export function localPathOf(storageDir: string, rec: FileRecord): string {
  return join(storageDir, rec.storagePath);
}

/** sha256 (hex) and size of a file, streamed. */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const h = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    h.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: h.digest('hex'), size };
}

/** One server: the bytes are the file under `<storageDir>/files/` the record names. */
export class LocalFileBytes implements FileBytes {
  readonly kind = 'local' as const;
  constructor(
    private readonly storageDir: string,
    /** Files no registration names are removed once this old (another process may be between moving one in and registering it). */
    private readonly graceMs = 600_000,
  ) {}

  async put(staged: string, rec: FileRecord): Promise<FileRecord> {
    await rename(staged, localPathOf(this.storageDir, rec));
    return rec;
  }

  async unput(rec: FileRecord): Promise<void> {
    await rm(localPathOf(this.storageDir, rec), { force: true });
  }

  async local(rec: FileRecord): Promise<string | null> {
    const path = localPathOf(this.storageDir, rec);
    return existsSync(path) ? path : null;
  }

  async release(): Promise<void> {}

  async collect(records: FileRecord[]): Promise<void> {
    await clearOrphans(
      join(this.storageDir, 'files'),
      new Set(records.map((r) => localPathOf(this.storageDir, r))),
      this.graceMs,
    );
  }
}
