import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { SourceManager } from '../catalog/source-manager-types.js';
import { CatalogConflictError, type CatalogStore, type KnowledgeBaseRecord } from '../catalog/types.js';
import { ErrorCode, SqlError } from '../core/errors.js';
import type { CanonicalValue, ColumnInfo, FieldInfo, MysqlType, Row } from '../core/types.js';
import type { QueryContext, SqlEngine } from '../sql/engine-types.js';
import type {
  KbCondition,
  KbInsertCounts,
  KbInsertOptions,
  KbRowSource,
  KbRows,
  KbSearch,
  KnowledgeBases,
} from '../sql/kb-port.js';
import type { KbStatement } from '../sql/parse/index.js';
import { type KbDefinition, parseDefinition, shownModel } from './definition.js';
import { BUILTIN_NOTE } from './embed/builtin.js';
import {
  createProvider,
  type EgressSettings,
  type EmbeddingModelSpec,
  type EmbeddingProvider,
} from './embed/index.js';
import { metered } from './embed/metered.js';
import { evaluate } from './evaluate.js';
import { conditionSupport, resolveConditions } from './filters.js';
import { ingest, text } from './ingest.js';
import { MetadataKinds } from './metadata-guess.js';
import { observeMetadataTypes } from './metadata-types.js';
import type { KbMeter } from './meter.js';
import { parseRerankSpec, Reranker, rerankHits, shownReranker } from './rerank/index.js';
import { aboveThreshold, candidates, type Hit, rank, rerankDepth, type SearchMode, topK } from './search.js';
import { KbStores } from './store/open.js';
import type { KbStore } from './store/types.js';

interface Kb {
  rec: KnowledgeBaseRecord;
  def: KbDefinition;
  provider: EmbeddingProvider;
  /** The `reranking_model`, when the KB has one. */
  reranker: Reranker | null;
  store: Promise<KbStore>;
}

export interface KbServiceOptions {
  catalog: CatalogStore;
  /** A knowledge base was created, altered or dropped, here or on another replica. */
  onChanged?: () => void;
  /** For reads the service makes itself (EVALUATE's test table). */
  engine: SqlEngine;
  storageDir: string;
  logger: Logger;
  egress: EgressSettings;
  /** Sources, for KBs stored in one (`storage = src.table`). */
  sources?: SourceManager;
  /** TRIBUTARY_CATALOG_URL: KB data lives in that database so every replica sees it. */
  catalogUrl?: string | null;
  /** GET /metrics: searches, rows ingested, embedding calls (observe/kb-metrics.ts); absent: nothing counted. */
  meter?: KbMeter;
  /** kb.max_results (10000). */
  maxResults?: number;
}

/**
 * Knowledge bases (docs/reference/sql.md, "Knowledge bases"): definitions in the catalog
 * (the provider's api_key sealed), chunks in a store (kb/store/open.ts says which), answers
 * for the engine through `KnowledgeBases` (sql/kb-port.ts). With a shared catalog, KBs
 * another replica creates, alters or drops are followed through the catalog's change feed.
 */
export class KbService implements KnowledgeBases {
  private readonly kbs = new Map<string, Kb>();
  private readonly stores: KbStores;
  /** One write at a time per KB: two INSERTs into one KB must not interleave their upserts. */
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Kinds of the stored metadata values, for columns without a recorded type (by KB id; widened by each INSERT). */
  private readonly guessed = new Map<string, Promise<MetadataKinds>>();
  readonly maxResults: number;

  constructor(private readonly o: KbServiceOptions) {
    this.maxResults = o.maxResults ?? 10000;
    this.stores = new KbStores({
      storageDir: o.storageDir,
      sources: o.sources ?? noSources,
      catalogUrl: o.catalogUrl ?? null,
      logger: o.logger,
    });
  }

  async init(): Promise<void> {
    for (const rec of await this.o.catalog.listKnowledgeBases()) this.attach(rec);
    this.o.catalog.onKnowledgeBasesChanged?.(() => {
      this.sync().then(
        () => this.o.onChanged?.(),
        (e) =>
          this.o.logger.warn({ err: (e as Error).message }, 'knowledge bases: re-reading the catalog failed'),
      );
    });
  }

  /** Follow the catalog: KBs created, altered or dropped elsewhere (another replica). */
  /** Re-read the catalog; true when a KB was created, altered or dropped elsewhere since the last read. */
  async sync(): Promise<boolean> {
    let changed = false;
    const recs = await this.o.catalog.listKnowledgeBases();
    const seen = new Set<string>();
    for (const rec of recs) {
      const key = rec.name.toLowerCase();
      seen.add(key);
      const kb = this.kbs.get(key);
      if (!kb || kb.rec.id !== rec.id) {
        if (kb) this.detach(key, kb);
        this.attach(rec);
        changed = true;
      } else if (JSON.stringify(kb.rec.params) !== JSON.stringify(rec.params)) {
        kb.rec = rec;
        kb.def = rec.params as unknown as KbDefinition;
        kb.provider = this.embedder(kb.def.embedding_model);
        kb.reranker = this.rerankerOf(rec.name, kb.def);
        changed = true;
      }
    }
    for (const [key, kb] of this.kbs)
      if (!seen.has(key)) {
        this.detach(key, kb);
        changed = true;
      }
    return changed;
  }

  private attach(rec: KnowledgeBaseRecord, store?: KbStore): Kb {
    const def = rec.params as unknown as KbDefinition;
    const kb: Kb = {
      rec,
      def,
      provider: this.embedder(def.embedding_model),
      reranker: this.rerankerOf(rec.name, def),
      store: store ? Promise.resolve(store) : this.stores.open(rec.id, rec.name, def),
    };
    kb.store.catch(() => {});
    this.kbs.set(rec.name.toLowerCase(), kb);
    return kb;
  }

  /** Forget a KB dropped elsewhere: close its store, keep its data (the dropper removed it). */
  private detach(key: string, kb: Kb): void {
    this.kbs.delete(key);
    kb.store.then((s) => s.close()).catch(() => {});
  }

  private rerankerOf(name: string, def: KbDefinition): Reranker | null {
    return def.reranking_model ? new Reranker(name, def.reranking_model, this.o.egress) : null;
  }

  /** The KB's embedding provider, counted for GET /metrics. */
  private embedder(spec: EmbeddingModelSpec): EmbeddingProvider {
    return metered(createProvider(spec, this.o.egress), this.o.meter);
  }

  has(name: string): boolean {
    return this.kbs.has(name.toLowerCase());
  }

  count(): number {
    return this.kbs.size;
  }

  private get(name: string): Kb {
    const kb = this.kbs.get(name.toLowerCase());
    if (!kb) throw new SqlError(ErrorCode.UNKNOWN_TABLE, `Knowledge base '${name}' does not exist`);
    return kb;
  }

  async close(): Promise<void> {
    for (const kb of this.kbs.values()) await (await kb.store.catch(() => null))?.close();
    await this.stores.close();
  }

  async run(stmt: KbStatement, ctx: QueryContext): Promise<KbRows | { affected: number }> {
    const out = await this.runStatement(stmt, ctx);
    if (stmt.kind === 'create_kb' || stmt.kind === 'drop_kb' || stmt.kind === 'alter_kb')
      this.o.onChanged?.();
    return out;
  }

  private async runStatement(stmt: KbStatement, ctx: QueryContext): Promise<KbRows | { affected: number }> {
    switch (stmt.kind) {
      case 'create_kb':
        return this.create(stmt.name, stmt.params, stmt.ifNotExists);
      case 'drop_kb': {
        const kb = this.kbs.get(stmt.name.toLowerCase());
        if (!kb) {
          if (stmt.ifExists) return { affected: 0 };
          throw new SqlError(ErrorCode.UNKNOWN_TABLE, `Knowledge base '${stmt.name}' does not exist`);
        }
        await this.o.catalog.deleteKnowledgeBase(kb.rec.name);
        this.kbs.delete(stmt.name.toLowerCase());
        // The definition is gone first: a store that cannot be reached now (its source down)
        // leaves tables behind, named in the log, rather than a KB that cannot be dropped.
        try {
          const store = await kb.store.catch(() => this.stores.open(kb.rec.id, kb.rec.name, kb.def));
          await store.drop();
        } catch (e) {
          this.o.logger.warn(
            { kb: kb.rec.name, storage: this.stores.storageOf(kb.def), err: (e as Error).message },
            'knowledge base dropped, but its stored chunks could not be removed',
          );
        }
        return { affected: 0 };
      }
      case 'alter_kb':
        return this.alter(stmt.name, stmt.params);
      case 'show_kbs':
        await this.sync();
        return this.show(stmt.like);
      case 'describe_kb':
        await this.sync();
        return this.describe(stmt.name);
      case 'evaluate_kb':
        return evaluate(stmt.name, stmt.params, ctx, this.o.engine, (req, mode) =>
          this.searchMode(stmt.name, req, mode),
        );
    }
  }

  private async create(name: string, params: Record<string, unknown>, ifNotExists: boolean) {
    if (this.has(name)) {
      if (ifNotExists) return { affected: 0 };
      throw new SqlError(1050, `Knowledge base '${name}' already exists`);
    }
    const parsed = parseDefinition(name, params);
    const provider = this.embedder(parsed.embedding_model);
    // Embed once to learn the model's dimension (and that it answers at all).
    const [probe] = await provider.embed(['dimension probe']);
    const def: KbDefinition = { ...parsed, dimension: probe.length };
    const rec: KnowledgeBaseRecord = {
      id: randomUUID(),
      name,
      params: def as unknown as Record<string, unknown>,
      createdAt: new Date().toISOString(),
    };
    // The store first (a missing pgvector, a taken table: nothing is recorded), then the
    // definition; a definition refused (the name taken meanwhile) removes the store again.
    const store = await this.stores.create(rec.id, name, def);
    try {
      await this.o.catalog.putKnowledgeBase(rec, true);
    } catch (e) {
      await store.drop().catch(() => {});
      if (e instanceof CatalogConflictError) {
        if (ifNotExists) return { affected: 0 };
        throw new SqlError(1050, `Knowledge base '${name}' already exists`);
      }
      throw e;
    }
    this.attach(rec, store);
    return { affected: 1 };
  }

  /**
   * ALTER KNOWLEDGE_BASE kb USING embedding_model = {"api_key": "..."} (only the key may
   * change) and/or reranking_model = {...}: a whole model sets or replaces it, `{"api_key":
   * "..."}` alone changes the key of the one the KB has.
   */
  private async alter(name: string, params: Record<string, unknown>) {
    const kb = this.get(name);
    const keys = Object.keys(params);
    const model = params.embedding_model as Record<string, unknown> | undefined;
    const modelKeys = model && typeof model === 'object' ? Object.keys(model) : [];
    const bad =
      keys.find((k) => k !== 'embedding_model' && k !== 'reranking_model') ??
      modelKeys.find((k) => k !== 'api_key');
    if (bad || keys.length === 0 || (model !== undefined && modelKeys.length === 0))
      throw new SqlError(
        1235,
        `ALTER KNOWLEDGE_BASE '${kb.rec.name}': only embedding_model = {"api_key": "..."} and reranking_model = {...} may change${bad ? ` (not '${bad}')` : ''}`,
      );
    let def: KbDefinition = kb.def;
    if (model !== undefined)
      def = {
        ...def,
        embedding_model: {
          ...def.embedding_model,
          api_key: model.api_key == null ? null : String(model.api_key),
        },
      };
    if (params.reranking_model !== undefined)
      def = { ...def, reranking_model: this.alteredReranker(kb, params.reranking_model) };
    const rec = { ...kb.rec, params: def as unknown as Record<string, unknown> };
    await this.o.catalog.putKnowledgeBase(rec, false);
    kb.rec = rec;
    kb.def = def;
    kb.provider = this.embedder(def.embedding_model);
    kb.reranker = this.rerankerOf(kb.rec.name, def);
    return { affected: 0 };
  }

  private alteredReranker(kb: Kb, raw: unknown) {
    const o = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
    if (o && Object.keys(o).length === 1 && 'api_key' in o) {
      const cur = kb.def.reranking_model;
      if (!cur)
        throw new SqlError(
          1210,
          `ALTER KNOWLEDGE_BASE '${kb.rec.name}': it has no reranking_model whose api_key could change; give the whole model`,
        );
      return { ...cur, api_key: o.api_key == null ? null : String(o.api_key) };
    }
    return parseRerankSpec(kb.rec.name, raw);
  }

  private async show(like: string | null): Promise<KbRows> {
    const re = like === null ? null : likeToRegex(like);
    const rows: Row[] = [];
    for (const kb of [...this.kbs.values()].sort((a, b) => a.rec.name.localeCompare(b.rec.name))) {
      if (re && !re.test(kb.rec.name)) continue;
      const counts = await (await kb.store).counts();
      rows.push([
        kb.rec.name,
        JSON.stringify(shownModel(kb.def.embedding_model, kb.def.dimension)),
        this.stores.storageOf(kb.def),
        JSON.stringify(kb.def.metadata_columns),
        JSON.stringify(kb.def.content_columns),
        kb.def.id_column,
        counts.rows,
        counts.chunks,
      ]);
    }
    return {
      columns: fields([
        ['NAME', 'VARCHAR'],
        ['EMBEDDING_MODEL', 'JSON'],
        ['STORAGE', 'VARCHAR'],
        ['METADATA_COLUMNS', 'JSON'],
        ['CONTENT_COLUMNS', 'JSON'],
        ['ID_COLUMN', 'VARCHAR'],
        ['ROWS', 'BIGINT'],
        ['CHUNKS', 'BIGINT'],
      ]),
      rows,
    };
  }

  private async describe(name: string): Promise<KbRows> {
    const kb = this.get(name);
    const shown = await this.show(null);
    const row = shown.rows.find((r) => String(r[0]).toLowerCase() === kb.rec.name.toLowerCase())!;
    const m = kb.def.embedding_model;
    const model =
      m.provider === 'builtin'
        ? BUILTIN_NOTE
        : `${m.provider} model ${m.model_name}: semantic embeddings from ${m.base_url}`;
    const note = `${model} ${STORE_NOTES[(await kb.store).kind] ?? ''}`.trim();
    return {
      columns: [
        ...shown.columns,
        ...fields([
          ['CHUNK_SIZE', 'INT'],
          ['CHUNK_OVERLAP', 'INT'],
          ['SEARCH', 'TEXT'],
          ['RERANKING_MODEL', 'JSON'],
        ]),
      ],
      rows: [
        [
          ...row,
          kb.def.preprocessing.chunk_size,
          kb.def.preprocessing.chunk_overlap,
          note,
          kb.def.reranking_model ? JSON.stringify(shownReranker(kb.def.reranking_model)) : null,
        ],
      ],
    };
  }

  async search(name: string, req: KbSearch, signal?: AbortSignal): Promise<KbRows> {
    const mode: SearchMode =
      req.query === null ? 'vector' : req.hybrid ? (req.alpha === 0 ? 'keyword' : 'hybrid') : 'vector';
    return this.searchMode(name, req, mode, signal);
  }

  /** One search in an explicit mode (EVALUATE compares vector, keyword and hybrid), timed for GET /metrics. */
  async searchMode(name: string, req: KbSearch, mode: SearchMode, signal?: AbortSignal): Promise<KbRows> {
    const meter = this.o.meter;
    if (!meter) return this.searchOnce(name, req, mode, signal);
    const started = performance.now();
    try {
      return await this.searchOnce(name, req, mode, signal);
    } finally {
      const kb = this.kbs.get(name.toLowerCase());
      // Lower case, as the audit log names KBs (`kb:<name>`).
      if (kb)
        meter.search(
          kb.rec.name.toLowerCase(),
          req.query === null ? 'filter' : mode,
          (performance.now() - started) / 1000,
        );
    }
  }

  /**
   * One search, untimed. With a reranking model (and not `reranking = false`), the first
   * stage's `rerankDepth(k)` best are reordered by it before the limit and the threshold,
   * and relevance is its score.
   */
  private async searchOnce(
    name: string,
    req: KbSearch,
    mode: SearchMode,
    signal?: AbortSignal,
  ): Promise<KbRows> {
    const kb = this.get(name);
    const store = await kb.store;
    const meta = kb.def.metadata_columns;
    const resolved = {
      ...req,
      filters: resolveConditions(kb.rec.name, req.filters, { metadata: meta, types: kb.def.metadata_types }),
    };
    let hits: Hit[];
    if (req.query === null) {
      const rows = await store.scan(resolved.filters, req.limit);
      // Written out: keys added after a spread cost V8 about 1.6 us an object.
      hits = rows.map((r) => ({
        id: r.id,
        chunkId: r.chunkId,
        content: r.content,
        metadata: r.metadata,
        distance: null,
        relevance: null,
      }));
    } else {
      let q: Float32Array | null = null;
      if (mode !== 'keyword') {
        [q] = await kb.provider.embed([req.query]);
        checkDimension(kb, q);
      }
      if (kb.reranker && req.reranking !== false) {
        const k = topK(req);
        const first = await candidates(store, resolved, q, mode, rerankDepth(k));
        hits = aboveThreshold(await rerankHits(kb.reranker, req.query, first, k, signal), req.minRelevance);
      } else hits = await rank(store, resolved, q, mode);
    }
    const columns = await this.columns(name);
    const metaTypes = columns.slice(4, 4 + meta.length).map((c) => c.type);
    const rows: Row[] = hits.map((h) => [
      h.id,
      h.chunkId,
      h.content,
      JSON.stringify(h.metadata),
      ...meta.map((c, i) => canonical(h.metadata[c], metaTypes[i])),
      h.distance,
      h.relevance,
    ]);
    return { columns: columns.map(({ name, type }) => ({ name, type })), rows };
  }

  /**
   * The relation a search of `name` is (the one place that decides it): id, chunk_id,
   * chunk_content, metadata, each metadata column with its recorded type (else guessed from
   * the stored values), distance, relevance.
   */
  async columns(name: string): Promise<ColumnInfo[]> {
    const kb = this.get(name);
    const meta = kb.def.metadata_columns;
    const recorded = kb.def.metadata_types ?? {};
    const guess = meta.every((c) => recorded[c]) ? null : await this.guess(kb);
    const col = (n: string, type: MysqlType): ColumnInfo => ({
      name: n,
      type,
      nativeType: type,
      nullable: true,
    });
    return [
      col('id', 'VARCHAR'),
      col('chunk_id', 'VARCHAR'),
      col('chunk_content', 'TEXT'),
      col('metadata', 'JSON'),
      ...meta.map((c) => col(c, recorded[c] ?? guess?.type(c) ?? 'VARCHAR')),
      col('distance', 'DOUBLE'),
      col('relevance', 'DOUBLE'),
    ];
  }

  /** Kinds of the stored metadata values: read once per KB, then widened by each INSERT. */
  private guess(kb: Kb): Promise<MetadataKinds> {
    let p = this.guessed.get(kb.rec.id);
    if (!p) {
      p = (async () => {
        const kinds = new MetadataKinds();
        for (const r of await (await kb.store).scan([], null))
          for (const c of kb.def.metadata_columns) kinds.observe(c, r.metadata[c]);
        return kinds;
      })();
      p.catch(() => this.guessed.delete(kb.rec.id));
      this.guessed.set(kb.rec.id, p);
    }
    return p;
  }

  filterSupport(name: string, c: KbCondition): 'exact' | 'inexact' | 'unsupported' {
    const def = this.get(name).def;
    return conditionSupport(c, { metadata: def.metadata_columns, types: def.metadata_types });
  }

  async insert(name: string, src: KbRowSource, opts: KbInsertOptions): Promise<KbInsertCounts> {
    const kb = this.get(name);
    const prev = this.locks.get(kb.rec.id) ?? Promise.resolve();
    const run = prev
      .catch(() => {})
      .then(async () => {
        const typed = observeMetadataTypes(kb.def, src);
        try {
          return await ingest(
            {
              name: kb.rec.name,
              def: kb.def,
              provider: kb.provider,
              store: await kb.store,
              checkDimension: (v) => checkDimension(kb, v),
              onStored: this.o.meter
                ? (c) => this.o.meter!.ingested(kb.rec.name.toLowerCase(), c)
                : undefined,
            },
            typed.rows,
            opts,
            this.o.logger,
          );
        } finally {
          // Rows stored before a failure keep their types too.
          const types = typed.merged();
          if (types) await this.recordTypes(kb, types);
        }
      });
    this.locks.set(kb.rec.id, run);
    try {
      return await run;
    } finally {
      // The types this insert saw are recorded (recordTypes) and win over the guess in columns().
      if (this.locks.get(kb.rec.id) === run) this.locks.delete(kb.rec.id);
    }
  }

  /** Keep the metadata columns' types in the definition (every replica compares by them). */
  private async recordTypes(kb: Kb, types: Record<string, MysqlType>): Promise<void> {
    const def: KbDefinition = { ...kb.def, metadata_types: types };
    const rec = { ...kb.rec, params: def as unknown as Record<string, unknown> };
    await this.o.catalog.putKnowledgeBase(rec, false);
    kb.rec = rec;
    kb.def = def;
  }

  async delete(name: string, ids: CanonicalValue[]): Promise<number> {
    const kb = this.get(name);
    const store = await kb.store;
    return store.delete(ids.map(text));
  }
}

/** How each store searches, for DESCRIBE. */
const STORE_NOTES: Record<string, string> = {
  embedded: 'Stored in the embedded store: exact search.',
  pgvector:
    'Stored with pgvector: an HNSW index (cosine) without filters; exact search when a filter is given.',
  array: 'Stored in PostgreSQL without pgvector: exact search computed in SQL.',
};

/** For services built without sources (benchmarks): storage = src.table names an unknown source. */
const noSources: SourceManager = {
  getRecord: async () => null,
  get: async (name) => {
    throw new SqlError(ErrorCode.UNKNOWN_DATABASE, `Unknown database '${name}'`);
  },
  names: async () => [],
  create: async () => {
    throw new SqlError(ErrorCode.NOT_SUPPORTED, 'no sources here');
  },
  drop: async () => {},
  close: async () => {},
};

function checkDimension(kb: Kb, v: Float32Array): void {
  if (v.length !== kb.def.dimension)
    throw new SqlError(
      1105,
      `Knowledge base '${kb.rec.name}': embedding provider '${kb.provider.provider}' (model ${kb.provider.model}) returned a vector of ${v.length} dimensions; the knowledge base holds ${kb.def.dimension}`,
    );
}

/** The rows as they go by, each metadata value's kind noted in `seen`. */
/** A stored metadata value as a value of its column's type (one that does not fit is NULL, as a failed cast). */
function canonical(v: unknown, type: MysqlType): CanonicalValue {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'YEAR': {
      const n = typeof v === 'boolean' ? Number(v) : Number(v);
      return Number.isSafeInteger(n) ? n : null;
    }
    case 'FLOAT':
    case 'DOUBLE': {
      const n = Number(v);
      return typeof v !== 'object' && String(v).trim() !== '' && Number.isFinite(n) ? n : null;
    }
    case 'DECIMAL': {
      const t = String(v).trim();
      return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t) ? t : null;
    }
    case 'BOOLEAN':
      return typeof v === 'boolean' ? v : Boolean(Number(v));
    default:
      return typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
}

function fields(list: [string, MysqlType][]): FieldInfo[] {
  return list.map(([name, type]) => ({ name, type }));
}

function likeToRegex(like: string): RegExp {
  const body = like
    .replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    .replace(/%/g, '.*')
    .replace(/_/g, '.');
  return new RegExp(`^${body}$`, 'i');
}
