import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pino from 'pino';
import type { FileRecord } from '../../../../src/catalog/types.js';
import {
  type FileRecordStore,
  FilesSource,
  type FilesSourceOptions,
} from '../../../../src/sources/files/index.js';
import { collect } from '../../../../src/sources/types.js';

/** The catalog's file records in memory (the real stores are tested with the catalog). */
export class MemoryFileStore implements FileRecordStore {
  readonly records = new Map<string, FileRecord>();
  failNextPut = false;
  async listFiles() {
    return [...this.records.values()];
  }
  async getFile(name: string) {
    return this.records.get(name.toLowerCase()) ?? null;
  }
  async putFile(rec: FileRecord) {
    if (this.failNextPut) {
      this.failNextPut = false;
      throw new Error('catalog unavailable');
    }
    this.records.set(rec.name.toLowerCase(), rec);
  }
  async deleteFile(name: string) {
    return this.records.delete(name.toLowerCase());
  }
}

export interface Fixture {
  dir: string;
  store: MemoryFileStore;
  files: FilesSource;
  /** Upload bytes as a stream, the way the HTTP route does. */
  put(name: string, body: string | Buffer, opts?: Record<string, unknown>): ReturnType<FilesSource['upload']>;
  rows(sql: string): Promise<unknown[][]>;
  /** Every file under the storage dir except DuckDB's spill dir. */
  storedFiles(): string[];
  close(): Promise<void>;
}

export async function fixture(options: Partial<FilesSourceOptions> = {}): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-files-'));
  const store = new MemoryFileStore();
  const files = await FilesSource.open({
    storageDir: dir,
    store,
    logger: pino({ level: 'silent' }),
    ...options,
  });
  return {
    dir,
    store,
    files,
    put: (name, body, opts = {}) =>
      files.upload(name, Readable.from([typeof body === 'string' ? Buffer.from(body) : body]), {
        maxBytes: 10 * 1024 * 1024,
        ...opts,
      }),
    rows: async (sql) => (await collect(await files.query(sql))).rows,
    storedFiles: () => listAll(join(dir, 'files')),
    close: async () => {
      await files.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function listAll(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'duckdb') continue;
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listAll(join(dir, e.name), rel));
    else out.push(rel);
  }
  return out.sort();
}

export function writeTemp(dir: string, name: string, body: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, body);
  return p;
}
