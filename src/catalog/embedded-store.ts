import { randomBytes } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { sweepOrphans } from '../core/orphan-files.js';
import { asStorageFull } from '../core/storage-full.js';
import { withFileLock } from './file-lock.js';
import { openKbParams, openParams, sealKbParams, sealMissing, sealParams } from './sealed-params.js';
import {
  CatalogConflictError,
  type CatalogStore,
  type FileRecord,
  type KnowledgeBaseRecord,
  type SourceRecord,
  type TokenRecord,
} from './types.js';

export const CATALOG_FILE = 'catalog.json';
/** `write`'s temp file: `catalog.json.<pid>.<hex>.tmp`. */
const TMP_NAME = /^catalog\.json\.(\d+)\.[0-9a-f]+\.tmp$/;

/** A source as written to disk: secret params sealed, and which ones they are. */
interface StoredSource {
  id: string;
  name: string;
  engine: string;
  params: Record<string, unknown>;
  secrets: string[];
  createdAt: string;
}

interface CatalogFile {
  version: 1;
  sources: StoredSource[];
  tokens: TokenRecord[];
  files: FileRecord[];
  /** Absent in catalogs written before knowledge bases existed. */
  knowledge_bases?: KnowledgeBaseRecord[];
}

export interface EmbeddedStoreOptions {
  storageDir: string;
  secretKey: Buffer;
  logger?: Logger;
  /** How often to look for changes made by other processes; 0 turns polling off. */
  pollMs?: number;
}

/** A file's identity: atomic renames give a new inode, and the times catch inode reuse. */
const signatureOf = (st: BigIntStats) => `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
const empty = (): CatalogFile => ({ version: 1, sources: [], tokens: [], files: [] });
const lower = (s: string) => s.toLowerCase();
const byName = <T extends { name: string }>(a: T, b: T) => lower(a.name).localeCompare(lower(b.name));

/**
 * The default catalog: one JSON file in the storage dir (no native module to compile).
 * Every write is read-modify-write under a cross-process lock file, written to a temp file,
 * fsynced and renamed into place, so a crash leaves the old or the new catalog, never half
 * of one, and two processes on one dir never lose each other's writes. Reads re-read the
 * file when its identity (inode, size, times) changed; a poll does the same so
 * onSourcesChanged fires for changes made by another process.
 */
export class EmbeddedCatalogStore implements CatalogStore {
  readonly path: string;
  private readonly lockPath: string;
  private data: CatalogFile = empty();
  /** Identity of the file `data` came from; null before the first read. */
  private signature: string | null = null;
  /** Sources as last seen, to tell whether a re-read changed them. */
  private sourcesText = '[]';
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;
  private lastPollError: string | null = null;
  private closed = false;

  constructor(private readonly opts: EmbeddedStoreOptions) {
    this.path = join(opts.storageDir, CATALOG_FILE);
    this.lockPath = `${this.path}.lock`;
  }

  async init(): Promise<void> {
    await mkdir(this.opts.storageDir, { recursive: true, mode: 0o700 });
    // Half-written catalogs of a process killed mid-write (`write` renames them into place).
    sweepOrphans(this.opts.storageDir, TMP_NAME);
    await this.enqueue(() => this.refresh(false));
    const pollMs = this.opts.pollMs ?? 1000;
    if (pollMs > 0) {
      this.timer = setInterval(() => void this.poll(), pollMs);
      this.timer.unref();
    }
  }

  /** One queue for reads and writes in this process: a re-read never races a write. */
  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  private async poll(): Promise<void> {
    if (this.closed) return;
    try {
      await this.enqueue(() => this.refresh(true));
      this.lastPollError = null;
    } catch (e) {
      const msg = (e as Error).message;
      if (msg !== this.lastPollError) this.opts.logger?.warn({ err: msg }, 'cannot re-read the catalog file');
      this.lastPollError = msg;
    }
  }

  /** Read the file from disk; `known` skips the read when its identity equals it. */
  private async readFile(known: string | null): Promise<{ data: CatalogFile; signature: string } | null> {
    let fh: Awaited<ReturnType<typeof open>>;
    try {
      fh = await open(this.path, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { data: empty(), signature: 'absent' };
      throw e;
    }
    try {
      // Identity and contents come from one open file, so they always belong together.
      const st = await fh.stat({ bigint: true });
      const signature = signatureOf(st);
      if (signature === known) return null;
      const text = await fh.readFile('utf8');
      return { data: this.parse(text), signature };
    } finally {
      await fh.close();
    }
  }

  private async diskSignature(): Promise<string> {
    const st = await stat(this.path, { bigint: true });
    return signatureOf(st);
  }

  private parse(text: string): CatalogFile {
    let json: Partial<CatalogFile> & { version?: unknown };
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new Error(
        `Catalog file ${this.path} is not valid JSON (${(e as Error).message}); restore or remove it`,
      );
    }
    if (
      json?.version !== 1 ||
      !Array.isArray(json.sources) ||
      !Array.isArray(json.tokens) ||
      !Array.isArray(json.files)
    ) {
      throw new Error(
        `Catalog file ${this.path} is not a Tributary catalog (version 1); restore or remove it`,
      );
    }
    return json as CatalogFile;
  }

  private adopt(data: CatalogFile, signature: string, notify: boolean): void {
    const text = JSON.stringify(data.sources);
    const changed = text !== this.sourcesText;
    this.data = data;
    this.signature = signature;
    this.sourcesText = text;
    if (changed && notify) this.emit();
  }

  private async refresh(notify = true): Promise<void> {
    const r = await this.readFile(this.signature);
    if (r) this.adopt(r.data, r.signature, notify);
  }

  private emit(): void {
    for (const l of this.listeners) {
      try {
        l();
      } catch (e) {
        this.opts.logger?.error({ err: (e as Error).message }, 'catalog change listener failed');
      }
    }
  }

  /**
   * Read-modify-write under the lock. `fn` returns whether it changed anything, and a
   * result; it is asked first without the lock, on the file as read now, and the lock is
   * taken only when it would change something (a server on a full disk still starts and
   * reads: only writes need space, and they answer StorageFullError).
   */
  private async mutate<T>(
    fn: (d: CatalogFile) => { changed: boolean; result: T },
    /** Runs under the lock just before the file is written (deleteFile). */
    beforeWrite?: () => Promise<void>,
  ): Promise<T> {
    const dry = await this.enqueue(async () => {
      await this.refresh();
      return fn(structuredClone(this.data));
    });
    if (!dry.changed) return dry.result;
    try {
      return await this.mutateLocked(fn, beforeWrite);
    } catch (e) {
      throw asStorageFull(e, this.opts.storageDir, 'writing the catalog');
    }
  }

  private mutateLocked<T>(
    fn: (d: CatalogFile) => { changed: boolean; result: T },
    beforeWrite?: () => Promise<void>,
  ): Promise<T> {
    return this.enqueue(() =>
      withFileLock(
        this.lockPath,
        async () => {
          const fresh = await this.readFile(null);
          // Another process's changes seen here must still reach the listeners.
          this.adopt(fresh!.data, fresh!.signature, true);
          // Work on a copy: if the write fails, memory must still match the file.
          const work = structuredClone(this.data);
          const { changed, result } = fn(work);
          if (changed) {
            await beforeWrite?.();
            await this.write(work);
            this.adopt(work, await this.diskSignature(), false);
          }
          return result;
        },
        { logger: this.opts.logger },
      ),
    );
  }

  private async write(data: CatalogFile): Promise<void> {
    const tmp = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const fh = await open(tmp, 'wx', 0o600);
    try {
      await fh.writeFile(`${JSON.stringify(data, null, 2)}\n`);
      await fh.sync();
    } catch (e) {
      await fh.close();
      await unlink(tmp).catch(() => {});
      throw e;
    }
    await fh.close();
    try {
      await rename(tmp, this.path);
    } catch (e) {
      await unlink(tmp).catch(() => {});
      throw e;
    }
    // The rename itself is durable only once the directory is synced.
    const dir = await open(this.opts.storageDir, 'r');
    await dir.sync().catch(() => {});
    await dir.close();
  }

  private read<T>(fn: (d: CatalogFile) => T): Promise<T> {
    return this.enqueue(async () => {
      await this.refresh();
      return fn(this.data);
    });
  }

  private toRecord(s: StoredSource): SourceRecord {
    return {
      id: s.id,
      name: s.name,
      engine: s.engine,
      params: openParams(this.opts.secretKey, s, structuredClone(s.params), s.secrets),
      createdAt: s.createdAt,
    };
  }

  listSources(): Promise<SourceRecord[]> {
    return this.read((d) => [...d.sources].sort(byName).map((s) => this.toRecord(s)));
  }

  getSource(name: string): Promise<SourceRecord | null> {
    return this.read((d) => {
      const s = d.sources.find((x) => lower(x.name) === lower(name));
      return s ? this.toRecord(s) : null;
    });
  }

  createSource(rec: SourceRecord, secrets: readonly string[]): Promise<void> {
    // Seal outside the lock: it is pure CPU and needs nothing from the file.
    const sealed = sealParams(this.opts.secretKey, rec.id, structuredClone(rec.params), secrets);
    return this.mutate((d) => {
      if (d.sources.some((x) => lower(x.name) === lower(rec.name))) {
        throw new CatalogConflictError(`A source named '${rec.name}' already exists`);
      }
      d.sources.push({
        id: rec.id,
        name: rec.name,
        engine: rec.engine,
        params: sealed.params,
        secrets: sealed.secrets,
        createdAt: rec.createdAt,
      });
      return { changed: true, result: undefined };
    });
  }

  sealSecrets(secretsOf: (engine: string) => readonly string[]): Promise<number> {
    return this.mutate((d) => {
      let n = 0;
      for (const src of d.sources) {
        const r = sealMissing(this.opts.secretKey, src.id, src.params, src.secrets, secretsOf(src.engine));
        if (!r) continue;
        src.params = r.params;
        src.secrets = r.secrets;
        n++;
      }
      return { changed: n > 0, result: n };
    });
  }

  deleteSource(name: string): Promise<boolean> {
    return this.mutate((d) => {
      const before = d.sources.length;
      d.sources = d.sources.filter((x) => lower(x.name) !== lower(name));
      const changed = d.sources.length !== before;
      return { changed, result: changed };
    });
  }

  putToken(rec: TokenRecord): Promise<void> {
    return this.mutate((d) => {
      const now = Date.now();
      // Expired tokens are useless; dropping them here keeps the file from growing forever.
      d.tokens = d.tokens.filter((t) => t.hash !== rec.hash && Date.parse(t.expiresAt) > now);
      d.tokens.push({ ...rec });
      return { changed: true, result: undefined };
    });
  }

  /** Null when unknown or expired. */
  getToken(hash: string): Promise<TokenRecord | null> {
    return this.read((d) => {
      const t = d.tokens.find((x) => x.hash === hash);
      return t && Date.parse(t.expiresAt) > Date.now() ? { ...t } : null;
    });
  }

  deleteToken(hash: string): Promise<void> {
    return this.mutate((d) => {
      const before = d.tokens.length;
      d.tokens = d.tokens.filter((t) => t.hash !== hash);
      return { changed: d.tokens.length !== before, result: undefined };
    });
  }

  listFiles(): Promise<FileRecord[]> {
    return this.read((d) => [...d.files].sort(byName).map((f) => ({ ...f })));
  }

  /** Case-insensitive, like source names. */
  getFile(name: string): Promise<FileRecord | null> {
    return this.read((d) => {
      const f = d.files.find((x) => lower(x.name) === lower(name));
      return f ? { ...f } : null;
    });
  }

  /** Inserts, or replaces the file of the same name (case-insensitive). */
  putFile(rec: FileRecord): Promise<void> {
    return this.mutate((d) => {
      d.files = d.files.filter((x) => lower(x.name) !== lower(rec.name));
      d.files.push({ ...rec });
      return { changed: true, result: undefined };
    });
  }

  deleteFile(name: string, beforeWrite?: () => Promise<void>): Promise<boolean> {
    return this.mutate((d) => {
      const before = d.files.length;
      d.files = d.files.filter((x) => lower(x.name) !== lower(name));
      const changed = d.files.length !== before;
      return { changed, result: changed };
    }, beforeWrite);
  }

  listKnowledgeBases(): Promise<KnowledgeBaseRecord[]> {
    return this.read((d) =>
      [...(d.knowledge_bases ?? [])].sort(byName).map((k) => ({
        ...k,
        params: openKbParams(this.opts.secretKey, k, structuredClone(k.params)),
      })),
    );
  }

  putKnowledgeBase(rec: KnowledgeBaseRecord, create: boolean): Promise<void> {
    const params = sealKbParams(this.opts.secretKey, rec.id, structuredClone(rec.params));
    return this.mutate((d) => {
      const kbs = d.knowledge_bases ?? [];
      if (create && kbs.some((x) => lower(x.name) === lower(rec.name)))
        throw new CatalogConflictError(`A knowledge base named '${rec.name}' already exists`);
      d.knowledge_bases = [...kbs.filter((x) => lower(x.name) !== lower(rec.name)), { ...rec, params }];
      return { changed: true, result: undefined };
    });
  }

  deleteKnowledgeBase(name: string): Promise<boolean> {
    return this.mutate((d) => {
      const kbs = d.knowledge_bases ?? [];
      d.knowledge_bases = kbs.filter((x) => lower(x.name) !== lower(name));
      const changed = d.knowledge_bases.length !== kbs.length;
      return { changed, result: changed };
    });
  }

  onSourcesChanged(listener: () => void): void {
    this.listeners.add(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
    await this.queue;
  }
}
