import { conditionTest, type ResolvedCondition } from '../filters.js';
import { EmbeddedStore } from './embedded.js';
import { dot, filterMask, keywordTop, vectorTop } from './embedded-search.js';
import type { ArmsRequest, ChunkRow, DocHashes, KbStore, Scored, StoredDoc } from './types.js';

/**
 * The embedded store behind the `KbStore` interface. Each call reads the in-memory slots
 * without an await in between, so a search sees the chunks as they are at one moment.
 */
export class EmbeddedKbStore implements KbStore {
  readonly kind = 'embedded';

  private constructor(
    readonly store: EmbeddedStore,
    private readonly dir: string,
    private readonly kbId: string,
  ) {}

  static async open(dir: string, kbId: string, dimension: number): Promise<EmbeddedKbStore> {
    return new EmbeddedKbStore(await EmbeddedStore.open(dir, kbId, dimension), dir, kbId);
  }

  async counts(): Promise<{ rows: number; chunks: number }> {
    return { rows: this.store.rows, chunks: this.store.chunks };
  }

  async hashes(ids: string[]): Promise<Map<string, DocHashes>> {
    const out = new Map<string, DocHashes>();
    for (const id of ids) {
      const d = this.store.docs.get(id);
      if (d) out.set(id, { contentHash: d.contentHash, rowHash: d.rowHash });
    }
    return out;
  }

  async vectorsOfDoc(id: string): Promise<Float32Array[]> {
    return this.store.vectorsOfDoc(id);
  }

  put(docs: StoredDoc[]): Promise<void> {
    return this.store.put(docs);
  }

  delete(ids: string[]): Promise<number> {
    return this.store.delete(ids);
  }

  async scan(filters: ResolvedCondition[], limit: number | null): Promise<ChunkRow[]> {
    const keep = this.mask(filters);
    const out: ChunkRow[] = [];
    const max = limit ?? Number.POSITIVE_INFINITY;
    for (let slot = 0; slot < keep.length && out.length < max; slot++)
      if (keep[slot] === 1) out.push(this.scored(slot, null, null));
    return out;
  }

  async arms(req: ArmsRequest): Promise<{ vector: Scored[]; keyword: Scored[] }> {
    const keep = this.mask(req.filters);
    const q = req.vector;
    const vector =
      q && req.vectorK > 0
        ? vectorTop(this.store, q, keep, req.vectorK).map(([slot, sim]) => this.scored(slot, sim, null))
        : [];
    const keyword =
      req.query !== null && req.keywordK > 0
        ? keywordTop(this.store, req.query, keep, req.keywordK).map(([slot, bm25]) =>
            this.scored(slot, q ? dot(this.store, slot, q) : null, bm25),
          )
        : [];
    return { vector, keyword };
  }

  close(): Promise<void> {
    return this.store.close();
  }

  async drop(): Promise<void> {
    await this.store.close();
    await EmbeddedStore.destroy(this.dir, this.kbId);
  }

  private mask(filters: ResolvedCondition[]): Uint8Array {
    return filterMask(this.store, filters.map(conditionTest));
  }

  /** Written out, not `{ ...row, sim, bm25 }`: keys added after a spread cost V8 about 1.6 us an object, for each candidate. */
  private scored(slot: number, sim: number | null, bm25: number | null): Scored {
    const d = this.store.docOf(slot);
    return {
      id: d.id,
      chunkId: this.store.chunkIdOf(slot),
      content: this.store.contentOf(slot),
      metadata: d.metadata,
      sim,
      bm25,
    };
  }
}
