import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { parseCatalogUrl } from '../../catalog/pg-store.js';
import type { SourceManager } from '../../catalog/source-manager-types.js';
import { ErrorCode, SqlError } from '../../core/errors.js';
import { PostgresSource } from '../../sources/postgres/source.js';
import { type KbDefinition, parseStorage } from '../definition.js';
import { EmbeddedKbStore } from './embedded-kb.js';
import { PgKbStore, type PgRunner, type PgTables } from './pg.js';
import type { KbStore } from './types.js';

export interface StoreContext {
  storageDir: string;
  sources: SourceManager;
  /** TRIBUTARY_CATALOG_URL: KBs without `storage` keep their chunks in that database. */
  catalogUrl: string | null;
  logger: Logger;
}

/**
 * Where each knowledge base's chunks live, and the connections to reach them:
 * `storage = src.table` → that PostgreSQL source (pgvector required); otherwise the shared
 * catalog's database when there is one (every replica must see the same chunks; pgvector when
 * the database has it, plain arrays otherwise); otherwise the embedded store under the
 * storage dir.
 */
export class KbStores {
  private catalogPool: pg.Pool | null = null;
  private readonly catalogSchema: string | null;

  constructor(private readonly ctx: StoreContext) {
    this.catalogSchema = ctx.catalogUrl ? parseCatalogUrl(ctx.catalogUrl).schema : null;
  }

  /** What SHOW KNOWLEDGE_BASES says in STORAGE. */
  storageOf(def: KbDefinition): string {
    return def.storage ?? (this.ctx.catalogUrl ? 'catalog' : 'embedded');
  }

  /** Make the store of a new KB: its tables are created now, so a missing pgvector fails the CREATE. */
  async create(kbId: string, name: string, def: KbDefinition): Promise<KbStore> {
    const pgTarget = await this.pgTarget(kbId, name, def);
    if (!pgTarget) return EmbeddedKbStore.open(this.dir, kbId, def.dimension);
    return PgKbStore.create(pgTarget.run, pgTarget.tables, def.dimension, def.storage ? 'pgvector' : null);
  }

  /** Attach to the store of an existing KB (start-up, or a KB another replica created). */
  async open(kbId: string, name: string, def: KbDefinition): Promise<KbStore> {
    const pgTarget = await this.pgTarget(kbId, name, def);
    if (!pgTarget) return EmbeddedKbStore.open(this.dir, kbId, def.dimension);
    return PgKbStore.open(pgTarget.run, pgTarget.tables, def.dimension);
  }

  async close(): Promise<void> {
    const p = this.catalogPool;
    this.catalogPool = null;
    await p?.end();
  }

  private get dir(): string {
    return join(this.ctx.storageDir, 'kb');
  }

  private async pgTarget(
    kbId: string,
    name: string,
    def: KbDefinition,
  ): Promise<{ run: PgRunner; tables: PgTables } | null> {
    if (def.storage) {
      const { source, schema, table } = parseStorage(name, def.storage);
      const src = await this.pgSource(name, source);
      return {
        // The source is looked up per use: DROP DATABASE and re-create give a new pool.
        run: async (fn) => (await this.pgSource(name, source)).withClient(fn),
        tables: { schema: schema ?? src.defaultSchema, table, where: `source '${source}'` },
      };
    }
    if (!this.ctx.catalogUrl) return null;
    return {
      run: (fn) => this.withCatalog(fn),
      tables: {
        schema: this.catalogSchema!,
        table: `kb_${kbId.replace(/-/g, '')}`,
        where: 'the catalog database',
      },
    };
  }

  private async pgSource(kb: string, name: string): Promise<PostgresSource> {
    const src = await this.ctx.sources.get(name);
    if (!(src instanceof PostgresSource))
      throw new SqlError(
        ErrorCode.NOT_SUPPORTED,
        `Knowledge base '${kb}': storage must name a PostgreSQL source with pgvector; '${name}' is a ${src.engine} source`,
      );
    return src;
  }

  private async withCatalog<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    this.catalogPool ??= this.makeCatalogPool();
    let c: pg.PoolClient;
    try {
      c = await this.catalogPool.connect();
    } catch (e) {
      throw new SqlError(
        ErrorCode.SOURCE_ERROR,
        `The catalog database is unreachable: ${(e as Error).message}`,
      );
    }
    try {
      const out = await fn(c);
      c.release();
      return out;
    } catch (e) {
      c.release();
      if (e instanceof SqlError) throw e;
      throw new SqlError(
        ErrorCode.SOURCE_ERROR,
        `Knowledge base data in the catalog database: ${(e as Error).message}`,
      );
    }
  }

  private makeCatalogPool(): pg.Pool {
    const pool = new pg.Pool({
      connectionString: parseCatalogUrl(this.ctx.catalogUrl!).connectionString,
      max: 4,
      idleTimeoutMillis: 30_000,
    });
    pool.on('error', (e) =>
      this.ctx.logger.warn({ err: e.message }, 'knowledge base catalog connection error'),
    );
    return pool;
  }
}
