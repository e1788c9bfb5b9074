import type { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { KeywordIndex } from '../keyword.js';
import type { StoredDoc } from './types.js';

export type { StoredChunk, StoredDoc } from './types.js';

type LogLine =
  | {
      op: 'put';
      id: string;
      ch: string;
      rh: string;
      m: Record<string, unknown>;
      c: [string, string, string][];
    }
  | { op: 'del'; id: string };

/** A stored document: the hashes that spare re-embedding, its metadata and its chunks' slots. */
export interface DocEntry {
  id: string;
  contentHash: string;
  rowHash: string;
  metadata: Record<string, unknown>;
  slots: number[];
}

/** One column's values, dictionary-encoded per slot: a filter is tested once per distinct value. */
interface ColumnCodes {
  codes: Int32Array;
  values: unknown[];
  index: Map<string, number>;
}

/**
 * The embedded store (no server): chunks, vectors and the keyword index in memory, made
 * durable by an append-only log per knowledge base (`<storage>/kb/<id>.log`, one JSON line
 * per document written, fsynced per batch). A crash loses at most the batch being written,
 * never half a document: a torn last line is ignored when the log is read back. The log is
 * rewritten without superseded lines when it opens with more dead lines than live ones.
 *
 * Measured here, DuckDB's appender took 42 s for 100,000 FLOAT[256] rows from Node
 * (about 2,400 rows/s), under the ingest target. Vectors sit in one Float32Array indexed
 * by slot; a metadata filter becomes a bitmap over slots first (see `filterMetadata`), so
 * a filtered exact search computes dot products for matching chunks only: about 4 ms of
 * CPU for 100,000 chunks and a filter keeping 5,000.
 */
export class EmbeddedStore {
  readonly dimension: number;
  private vectors: Float32Array;
  /** Per slot: its document (null once dead), chunk id and content. */
  private slotDocs: (DocEntry | null)[] = [];
  private slotChunkIds: string[] = [];
  private slotContents: string[] = [];
  private liveMask = new Uint8Array(1024);
  private readonly columns = new Map<string, ColumnCodes>();
  readonly docs = new Map<string, DocEntry>();
  readonly keywords = new KeywordIndex();
  private chunkCount = 0;
  private fh: FileHandle | null = null;
  private lines = 0;

  private constructor(
    private readonly path: string,
    dimension: number,
  ) {
    this.dimension = dimension;
    this.vectors = new Float32Array(dimension * 1024);
  }

  static async open(dir: string, kbId: string, dimension: number): Promise<EmbeddedStore> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const s = new EmbeddedStore(join(dir, `${kbId}.log`), dimension);
    await s.replay();
    if (s.lines > 2 * s.docs.size + 1000) await s.compact();
    s.fh = await open(s.path, 'a', 0o600);
    return s;
  }

  static async destroy(dir: string, kbId: string): Promise<void> {
    await rm(join(dir, `${kbId}.log`), { force: true });
  }

  get rows(): number {
    return this.docs.size;
  }
  get chunks(): number {
    return this.chunkCount;
  }

  /** Write documents (replacing their previous chunks) and make them durable before returning. */
  async put(docs: StoredDoc[]): Promise<void> {
    const text = docs.map((d) => JSON.stringify(toLine(d))).join('\n');
    await this.fh!.write(`${text}\n`);
    await this.fh!.datasync();
    this.lines += docs.length;
    for (const d of docs) this.apply(d);
  }

  async delete(ids: string[]): Promise<number> {
    const present = ids.filter((id) => this.docs.has(id));
    if (present.length === 0) return 0;
    await this.fh!.write(`${present.map((id) => JSON.stringify({ op: 'del', id })).join('\n')}\n`);
    await this.fh!.datasync();
    this.lines += present.length;
    for (const id of present) this.remove(id);
    return present.length;
  }

  async close(): Promise<void> {
    await this.fh?.close();
    this.fh = null;
  }

  isLive(slot: number): boolean {
    return this.liveMask[slot] === 1;
  }
  slotCount(): number {
    return this.slotDocs.length;
  }
  /** The document of a live slot. */
  docOf(slot: number): DocEntry {
    return this.slotDocs[slot]!;
  }
  chunkIdOf(slot: number): string {
    return this.slotChunkIds[slot];
  }
  contentOf(slot: number): string {
    return this.slotContents[slot];
  }
  vectorsView(): Float32Array {
    return this.vectors;
  }
  vectorOf(slot: number): Float32Array {
    return this.vectors.subarray(slot * this.dimension, (slot + 1) * this.dimension);
  }

  /** A fresh bitmap over slots: 1 for each live chunk. */
  liveBitmap(): Uint8Array {
    return this.liveMask.slice(0, this.slotDocs.length);
  }

  /**
   * Clears in `mask` the slots whose metadata `column` fails `test`. The test runs once per
   * distinct value (the column is dictionary-encoded on first use and kept up to date), so
   * a filter over 100,000 chunks costs one array read per chunk.
   */
  filterMetadata(mask: Uint8Array, column: string, test: (v: unknown) => boolean): void {
    const col = this.columnCodes(column);
    const ok = new Uint8Array(col.values.length);
    for (let i = 0; i < ok.length; i++) ok[i] = test(col.values[i]) ? 1 : 0;
    const codes = col.codes;
    for (let s = 0; s < mask.length; s++) if (mask[s] === 1 && ok[codes[s]] === 0) mask[s] = 0;
  }

  private columnCodes(column: string): ColumnCodes {
    let col = this.columns.get(column);
    if (!col) {
      col = { codes: new Int32Array(this.liveMask.length), values: [], index: new Map() };
      this.columns.set(column, col);
      for (let s = 0; s < this.slotDocs.length; s++) {
        const d = this.slotDocs[s];
        col.codes[s] = d ? this.code(col, d.metadata[column]) : this.code(col, null);
      }
    }
    return col;
  }

  private code(col: ColumnCodes, v: unknown): number {
    const value = v === undefined ? null : v;
    const key = typeof value === 'string' ? `s${value}` : `j${JSON.stringify(value)}`;
    let c = col.index.get(key);
    if (c === undefined) {
      c = col.values.length;
      col.values.push(value);
      col.index.set(key, c);
    }
    return c;
  }

  private apply(d: StoredDoc): void {
    this.remove(d.id);
    const entry: DocEntry = {
      id: d.id,
      contentHash: d.contentHash,
      rowHash: d.rowHash,
      metadata: d.metadata,
      slots: [],
    };
    for (const c of d.chunks) {
      const slot = this.slotDocs.length;
      this.ensure(slot + 1);
      this.slotDocs.push(entry);
      this.slotChunkIds.push(c.chunkId);
      this.slotContents.push(c.content);
      this.liveMask[slot] = 1;
      this.vectors.set(c.vector, slot * this.dimension);
      this.keywords.add(slot, c.content);
      for (const [name, col] of this.columns) col.codes[slot] = this.code(col, d.metadata[name]);
      entry.slots.push(slot);
    }
    this.chunkCount += entry.slots.length;
    this.docs.set(d.id, entry);
  }

  private remove(id: string): void {
    const old = this.docs.get(id);
    if (!old) return;
    for (const s of old.slots) {
      this.liveMask[s] = 0;
      this.keywords.remove(s, this.slotContents[s]);
      this.slotContents[s] = '';
      this.slotDocs[s] = null;
    }
    this.chunkCount -= old.slots.length;
    this.docs.delete(id);
  }

  private ensure(n: number): void {
    if (n > this.liveMask.length) {
      const size = Math.max(n, this.liveMask.length * 2);
      const live = new Uint8Array(size);
      live.set(this.liveMask);
      this.liveMask = live;
      for (const col of this.columns.values()) {
        const codes = new Int32Array(size);
        codes.set(col.codes);
        col.codes = codes;
      }
    }
    if (n * this.dimension <= this.vectors.length) return;
    const grown = new Float32Array(Math.max(n * this.dimension, this.vectors.length * 2));
    grown.set(this.vectors);
    this.vectors = grown;
  }

  /** Previous vectors of a document whose content is unchanged (no embedding call needed). */
  vectorsOfDoc(id: string): Float32Array[] {
    const d = this.docs.get(id);
    return d ? d.slots.map((s) => this.vectorOf(s).slice()) : [];
  }

  private async replay(): Promise<void> {
    let input: ReturnType<typeof createReadStream>;
    try {
      const fh = await open(this.path, 'r');
      input = fh.createReadStream({ encoding: 'utf8' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (!line) continue;
      let rec: LogLine;
      try {
        rec = JSON.parse(line);
      } catch {
        continue; // a line torn by a crash: the batch it belonged to was never acknowledged
      }
      this.lines++;
      if (rec.op === 'del') this.remove(rec.id);
      else this.apply(fromLine(rec, this.dimension));
    }
  }

  private async compact(): Promise<void> {
    const tmp = `${this.path}.compact`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      for (const [id, d] of this.docs) {
        const doc: StoredDoc = {
          id,
          contentHash: d.contentHash,
          rowHash: d.rowHash,
          metadata: d.metadata,
          chunks: d.slots.map((s) => ({
            chunkId: this.slotChunkIds[s],
            content: this.slotContents[s],
            vector: this.vectorOf(s),
          })),
        };
        await fh.write(`${JSON.stringify(toLine(doc))}\n`);
      }
      await fh.datasync();
    } finally {
      await fh.close();
    }
    const { rename } = await import('node:fs/promises');
    await rename(tmp, this.path);
    this.lines = this.docs.size;
  }
}

function toLine(d: StoredDoc): LogLine {
  return {
    op: 'put',
    id: d.id,
    ch: d.contentHash,
    rh: d.rowHash,
    m: d.metadata,
    c: d.chunks.map((c) => [
      c.chunkId,
      c.content,
      Buffer.from(c.vector.buffer, c.vector.byteOffset, c.vector.byteLength).toString('base64'),
    ]),
  };
}

function fromLine(rec: Extract<LogLine, { op: 'put' }>, dim: number): StoredDoc {
  return {
    id: rec.id,
    contentHash: rec.ch,
    rowHash: rec.rh,
    metadata: rec.m,
    chunks: rec.c.map(([chunkId, content, b64]) => {
      const buf = Buffer.from(b64, 'base64');
      // Copied out first: a decoded Buffer may sit at an offset that is not a multiple of 4.
      const v = new Float32Array(dim);
      v.set(new Float32Array(Uint8Array.from(buf).buffer).subarray(0, dim));
      return { chunkId, content, vector: v };
    }),
  };
}
