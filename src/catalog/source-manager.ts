import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ErrorCode, SqlError } from '../core/errors.js';
import type { SourceContext } from '../sources/engine-spec.js';
import { parseEngineParams } from '../sources/params.js';
import { getEngine } from '../sources/registry.js';
import type { Source } from '../sources/types.js';
import type { SourceManager } from './source-manager-types.js';
import { CatalogConflictError, type CatalogStore, type SourceRecord } from './types.js';

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const RESERVED = new Set(['information_schema', 'mysql', 'performance_schema', 'sys']);

interface Live {
  record: SourceRecord;
  source: Source;
}

/**
 * Live sources over the catalog. Pools open on first use and close on DROP; when
 * another replica changes the catalog, entries whose record vanished are closed.
 */
export class CatalogSourceManager implements SourceManager {
  private readonly live = new Map<string, Live>();
  private readonly opening = new Map<string, Promise<Live | null>>();
  /** Source names, kept until the catalog changes (the parser asks on every statement). */
  private namesCache: string[] | null = null;

  constructor(
    private readonly store: CatalogStore,
    private readonly ctx: SourceContext,
    private readonly logger: Logger,
    /** Built-in sources (e.g. `files`): always present, never droppable. */
    private readonly builtins: Map<string, Source> = new Map(),
  ) {
    store.onSourcesChanged(() => {
      this.namesCache = null;
      void this.reconcile();
    });
  }

  private async reconcile(): Promise<void> {
    const records = await this.store.listSources();
    const ids = new Map(records.map((r) => [r.name.toLowerCase(), r.id]));
    for (const [key, l] of this.live) {
      if (ids.get(key) !== l.record.id) {
        this.live.delete(key);
        await l.source.close().catch(() => {});
      }
    }
  }

  async getRecord(name: string): Promise<SourceRecord | null> {
    const l = await this.open(name);
    return l ? l.record : null;
  }

  async get(name: string): Promise<Source> {
    const b = this.builtins.get(name.toLowerCase());
    if (b) return b;
    const l = await this.open(name);
    if (!l) throw new SqlError(ErrorCode.UNKNOWN_DATABASE, `Unknown database '${name}'`);
    return l.source;
  }

  peek(name: string): Source | undefined {
    const key = name.toLowerCase();
    return this.builtins.get(key) ?? this.live.get(key)?.source;
  }

  private async open(name: string): Promise<Live | null> {
    const key = name.toLowerCase();
    const hit = this.live.get(key);
    if (hit) return hit;
    let p = this.opening.get(key);
    if (!p) {
      p = (async () => {
        const record = await this.store.getSource(name);
        if (!record) return null;
        const spec = getEngine(record.engine);
        const source = spec.create(record.name, parseEngineParams(spec, record.params), this.ctx);
        const l = { record, source };
        this.live.set(key, l);
        return l;
      })().finally(() => this.opening.delete(key));
      this.opening.set(key, p);
    }
    return p;
  }

  namesNow(): string[] | undefined {
    return this.namesCache ?? undefined;
  }

  async names(): Promise<string[]> {
    if (this.namesCache) return this.namesCache;
    const records = await this.store.listSources();
    const names = records.map((r) => r.name).sort((a, b) => a.localeCompare(b));
    this.namesCache = [...[...this.builtins.values()].map((s) => s.name), ...names];
    return this.namesCache;
  }

  async create(
    name: string,
    engine: string,
    rawParams: Record<string, unknown>,
    opts: { ifNotExists?: boolean } = {},
  ): Promise<void> {
    if (!NAME_RE.test(name))
      throw new SqlError(
        ErrorCode.SYNTAX,
        `Invalid database name '${name}': use letters, digits and underscores, starting with a letter or underscore (at most 64)`,
      );
    const key = name.toLowerCase();
    if (RESERVED.has(key) || this.builtins.has(key)) {
      throw new SqlError(ErrorCode.DATABASE_EXISTS, `Can't create database '${name}'; the name is reserved`);
    }
    const spec = getEngine(engine);
    if (await this.store.getSource(name)) {
      if (opts.ifNotExists) return;
      throw new SqlError(ErrorCode.DATABASE_EXISTS, `Can't create database '${name}'; database exists`);
    }
    const params = parseEngineParams(spec, rawParams);
    const source = spec.create(name, params, this.ctx);
    try {
      await source.test();
    } catch (e) {
      await source.close().catch(() => {});
      throw e;
    }
    const record: SourceRecord = {
      id: randomUUID(),
      name,
      engine: spec.name,
      params: params as Record<string, unknown>,
      createdAt: new Date().toISOString(),
    };
    try {
      await this.store.createSource(record, spec.secrets);
    } catch (e) {
      await source.close().catch(() => {});
      if (e instanceof CatalogConflictError) {
        if (opts.ifNotExists) return;
        throw new SqlError(ErrorCode.DATABASE_EXISTS, `Can't create database '${name}'; database exists`);
      }
      throw e;
    }
    this.live.set(key, { record, source });
    this.namesCache = null;
    this.logger.info({ source: name, engine: spec.name }, 'data source created');
  }

  async drop(name: string, opts: { ifExists?: boolean } = {}): Promise<void> {
    const key = name.toLowerCase();
    if (this.builtins.has(key)) {
      throw new SqlError(ErrorCode.NOT_SUPPORTED, `Database '${name}' is built in and cannot be dropped`);
    }
    const existed = await this.store.deleteSource(name);
    this.namesCache = null;
    const l = this.live.get(key);
    this.live.delete(key);
    if (l) await l.source.close().catch(() => {});
    if (!existed && !opts.ifExists) {
      throw new SqlError(
        ErrorCode.DATABASE_NOT_EXISTS,
        `Can't drop database '${name}'; database doesn't exist`,
      );
    }
    if (existed) this.logger.info({ source: name }, 'data source dropped');
  }

  async close(): Promise<void> {
    const all = [...this.live.values()];
    this.live.clear();
    await Promise.all(all.map((l) => l.source.close().catch(() => {})));
    await Promise.all([...this.builtins.values()].map((s) => s.close().catch(() => {})));
  }
}
