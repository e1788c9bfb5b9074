import { randomUUID } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileRecord } from './record.js';

/** Where file tables are stored and how their files are named and cleaned. */

/** The stored form of a table still waiting for its conversion, else null (Parquet). */
export function pendingFormat(rec: FileRecord): 'csv' | 'tsv' | null {
  const m = /\.(csv|tsv)$/.exec(rec.storagePath);
  return m ? (m[1] as 'csv' | 'tsv') : null;
}

/**
 * A new name per stored file: a replaced or converted table's old file can stay readable
 * for queries still running on it, and a stale writer can never overwrite a newer file.
 */
export function storagePathFor(key: string, ext: string): string {
  return join('files', `${key}.${randomUUID().slice(0, 8)}.${ext}`);
}

export function isCsvReadFailure(msg: string): boolean {
  return /CSV Error|Could not convert|Conversion Error|Invalid unicode|Expected Number of Columns/i.test(msg);
}

/**
 * Stored files no record names are leftovers of a crash (a conversion or a replace cut
 * short). Only old ones: another process (the CLI) may be between moving a file in and
 * recording it.
 */
export async function clearOrphans(dir: string, referenced: Set<string>, graceMs = 600_000): Promise<void> {
  const cutoff = Date.now() - graceMs;
  for (const n of await readdir(dir).catch(() => [] as string[])) {
    if (n.startsWith('.')) continue;
    const p = join(dir, n);
    if (referenced.has(p)) continue;
    const s = await stat(p).catch(() => null);
    if (s?.isFile() && s.mtimeMs < cutoff) await rm(p, { force: true });
  }
}
