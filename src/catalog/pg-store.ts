import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import { PgFileBytes } from './pg-file-bytes.js';
import { openKbParams, openParams, sealKbParams, sealMissing, sealParams } from './sealed-params.js';
import {
  CatalogConflictError,
  type CatalogStore,
  type FileRecord,
  type KnowledgeBaseRecord,
  type SourceRecord,
  type TokenRecord,
} from './types.js';

export const DEFAULT_CATALOG_SCHEMA = 'tributary';
const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export interface PgStoreOptions {
  /** postgres://...; an optional `?schema=name` picks the schema (default `tributary`). */
  url: string;
  secretKey: Buffer;
  logger?: Logger;
  /** Pool size for catalog queries (the catalog is small and hot paths are cached above it). */
  poolMax?: number;
}

/** Split `?schema=` off the URL; pg would pass unknown parameters to the server. */
export function parseCatalogUrl(url: string): { connectionString: string; schema: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error('TRIBUTARY_CATALOG_URL is not a valid URL');
  }
  const schema = u.searchParams.get('schema') ?? DEFAULT_CATALOG_SCHEMA;
  u.searchParams.delete('schema');
  if (!IDENT.test(schema)) {
    throw new Error(
      `TRIBUTARY_CATALOG_URL: schema '${schema}' is not a plain identifier (letters, digits, underscores)`,
    );
  }
  return { connectionString: u.toString(), schema };
}

/** The URL without its password, for logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}

const iso = (v: Date | string) => new Date(v).toISOString();

/** A row of tributary_sources as the pg driver returns it (jsonb parsed, bigint as text). */
interface SourceRow {
  id: string;
  name: string;
  engine: string;
  params: Record<string, unknown>;
  secrets: string[] | null;
  created_at: Date | string;
}

/** A row of tributary_files. */
interface FileRow {
  name: string;
  format: string;
  rows: string | number;
  columns: string | number;
  size_bytes: string | number;
  storage_path: string;
  created_at: Date | string;
  sha256: string | null;
  uploaded_by: string | null;
}

/**
 * The shared catalog for replicas (TRIBUTARY_CATALOG_URL). Tables live in their own schema;
 * names are unique case-insensitively through an index on lower(name), so two replicas
 * creating the same source race safely. Changes to sources are announced with NOTIFY; each
 * store LISTENs on a dedicated connection that reconnects, and after a reconnect tells its
 * listeners to re-read, since notifications sent meanwhile are lost.
 */
export class PgCatalogStore implements CatalogStore {
  private readonly pool: pg.Pool;
  private readonly connectionString: string;
  private readonly schema: string;
  private readonly channel: string;
  /** Notifications carry the sender's id so a store ignores its own. */
  private readonly instanceId = randomUUID();
  private readonly listeners = new Set<() => void>();
  private readonly kbListeners = new Set<() => void>();
  private readonly fileListeners = new Set<() => void>();
  private listenClient: pg.Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelay = 500;
  private closed = false;

  constructor(private readonly opts: PgStoreOptions) {
    const { connectionString, schema } = parseCatalogUrl(opts.url);
    this.connectionString = connectionString;
    this.schema = schema;
    // A hash keeps the channel a short plain identifier whatever the schema is called.
    this.channel = `tributary_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
    this.pool = new pg.Pool({ connectionString, max: opts.poolMax ?? 4, idleTimeoutMillis: 30_000 });
    this.pool.on('error', (e) =>
      this.opts.logger?.warn({ err: e.message }, 'catalog database connection error'),
    );
  }

  private t(name: string): string {
    return `"${this.schema}".${name}`;
  }

  async init(): Promise<void> {
    const c = await this.pool.connect().catch((e: Error) => {
      throw new Error(
        `Cannot connect to the catalog database ${redactUrl(this.connectionString)}: ${e.message}`,
      );
    });
    try {
      await c.query('BEGIN');
      // Replicas starting together would race on CREATE ... IF NOT EXISTS; take turns.
      await c.query(`SELECT pg_advisory_xact_lock(hashtext('tributary_catalog_init'))`);
      await c.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.t('tributary_sources')} (
        id text PRIMARY KEY,
        name text NOT NULL,
        engine text NOT NULL,
        params jsonb NOT NULL,
        secrets text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL)`);
      await c.query(
        `CREATE UNIQUE INDEX IF NOT EXISTS tributary_sources_lower_name ON ${this.t('tributary_sources')} (lower(name))`,
      );
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.t('tributary_tokens')} (
        hash text PRIMARY KEY,
        username text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL)`);
      await c.query(
        `CREATE INDEX IF NOT EXISTS tributary_tokens_expires_at ON ${this.t('tributary_tokens')} (expires_at)`,
      );
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.t('tributary_files')} (
        name text NOT NULL,
        format text NOT NULL,
        rows bigint NOT NULL,
        columns integer NOT NULL,
        size_bytes bigint NOT NULL,
        storage_path text NOT NULL,
        created_at timestamptz NOT NULL)`);
      await c.query(
        `CREATE UNIQUE INDEX IF NOT EXISTS tributary_files_lower_name ON ${this.t('tributary_files')} (lower(name))`,
      );
      // File bytes (pg-file-bytes.ts): one row per stored form by sha256, its 1 MiB chunks,
      // and the registration's reference to it.
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.t('tributary_file_blobs')} (
        sha256 text PRIMARY KEY,
        size_bytes bigint NOT NULL,
        chunk_bytes integer NOT NULL,
        complete boolean NOT NULL DEFAULT false,
        touched_at timestamptz NOT NULL DEFAULT now())`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.t('tributary_file_chunks')} (
        sha256 text NOT NULL REFERENCES ${this.t('tributary_file_blobs')} (sha256) ON DELETE CASCADE,
        seq integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (sha256, seq))`);
      // Parquet is compressed already: no second try at compressing each chunk.
      await c.query(`ALTER TABLE ${this.t('tributary_file_chunks')} ALTER COLUMN data SET STORAGE EXTERNAL`);
      await c.query(
        `ALTER TABLE ${this.t('tributary_files')} ADD COLUMN IF NOT EXISTS sha256 text REFERENCES ${this.t('tributary_file_blobs')} (sha256)`,
      );
      await c.query(`ALTER TABLE ${this.t('tributary_files')} ADD COLUMN IF NOT EXISTS uploaded_by text`);
      await c.query(
        `CREATE INDEX IF NOT EXISTS tributary_files_sha256 ON ${this.t('tributary_files')} (sha256)`,
      );
      // One counter bumped by every change of files: a replica compares it before a statement.
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.t('tributary_files_version')} (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        version bigint NOT NULL)`);
      await c.query(
        `INSERT INTO ${this.t('tributary_files_version')} (id, version) VALUES (true, 0) ON CONFLICT DO NOTHING`,
      );
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.t('tributary_knowledge_bases')} (
        id text PRIMARY KEY,
        name text NOT NULL,
        params jsonb NOT NULL,
        created_at timestamptz NOT NULL)`);
      await c.query(
        `CREATE UNIQUE INDEX IF NOT EXISTS tributary_knowledge_bases_lower_name ON ${this.t('tributary_knowledge_bases')} (lower(name))`,
      );
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw new Error(`Cannot prepare the catalog schema "${this.schema}": ${(e as Error).message}`);
    } finally {
      c.release();
    }
    await this.listen();
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    const lost = (why: string) => {
      if (this.listenClient !== client) return;
      this.listenClient = null;
      client.removeAllListeners('end');
      client.end().catch(() => {});
      if (this.closed) return;
      this.opts.logger?.warn({ err: why }, 'catalog change feed lost; reconnecting');
      this.scheduleReconnect();
    };
    // Payloads: the sender's id (sources changed), or `kb:` / `files:` and its id.
    client.on('notification', (m) => {
      if (m.channel !== this.channel || m.payload === this.instanceId) return;
      if (m.payload?.startsWith('kb:')) {
        if (m.payload !== `kb:${this.instanceId}`) this.emitTo(this.kbListeners);
      } else if (m.payload?.startsWith('files:')) {
        if (m.payload !== `files:${this.instanceId}`) this.emitTo(this.fileListeners);
      } else this.emit();
    });
    client.on('error', (e) => lost(e.message));
    client.on('end', () => lost('connection ended'));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (e) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      throw e;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.listenClient = client;
    this.reconnectDelay = 500;
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer || this.closed) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(delay * 2, 30_000);
    this.reconnectTimer = setTimeout(async () => {
      this.reconnectTimer = null;
      try {
        await this.listen();
        this.opts.logger?.info('catalog change feed reconnected');
        // Whatever changed while the feed was down went unannounced.
        this.emit();
        this.emitTo(this.kbListeners);
        this.emitTo(this.fileListeners);
      } catch (e) {
        this.opts.logger?.warn({ err: (e as Error).message }, 'catalog change feed reconnect failed');
        this.scheduleReconnect();
      }
    }, delay);
    this.reconnectTimer.unref();
  }

  private emit(): void {
    this.emitTo(this.listeners);
  }

  private emitTo(listeners: Set<() => void>): void {
    for (const l of listeners) {
      try {
        l();
      } catch (e) {
        this.opts.logger?.error({ err: (e as Error).message }, 'catalog change listener failed');
      }
    }
  }

  private toRecord(row: SourceRow): SourceRecord {
    return {
      id: row.id,
      name: row.name,
      engine: row.engine,
      params: openParams(this.opts.secretKey, row, row.params, row.secrets ?? []),
      createdAt: iso(row.created_at),
    };
  }

  async listSources(): Promise<SourceRecord[]> {
    const r = await this.pool.query(
      `SELECT id, name, engine, params, secrets, created_at FROM ${this.t('tributary_sources')} ORDER BY lower(name)`,
    );
    return r.rows.map((row) => this.toRecord(row));
  }

  async getSource(name: string): Promise<SourceRecord | null> {
    const r = await this.pool.query(
      `SELECT id, name, engine, params, secrets, created_at FROM ${this.t('tributary_sources')} WHERE lower(name) = lower($1)`,
      [name],
    );
    return r.rows[0] ? this.toRecord(r.rows[0]) : null;
  }

  /** Change sources and announce it in one transaction: the notification goes out only if the change commits. */
  private async changeSources<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const result = await fn(c);
      await c.query('SELECT pg_notify($1, $2)', [this.channel, this.instanceId]);
      await c.query('COMMIT');
      return result;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  async createSource(rec: SourceRecord, secrets: readonly string[]): Promise<void> {
    const sealed = sealParams(this.opts.secretKey, rec.id, structuredClone(rec.params), secrets);
    try {
      await this.changeSources((c) =>
        c.query(
          `INSERT INTO ${this.t('tributary_sources')} (id, name, engine, params, secrets, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
          [rec.id, rec.name, rec.engine, JSON.stringify(sealed.params), sealed.secrets, rec.createdAt],
        ),
      );
    } catch (e) {
      if ((e as { code?: string }).code === '23505') {
        throw new CatalogConflictError(`A source named '${rec.name}' already exists`);
      }
      throw e;
    }
  }

  async sealSecrets(secretsOf: (engine: string) => readonly string[]): Promise<number> {
    const t = this.t('tributary_sources');
    const r = await this.pool.query(`SELECT id, engine, params, secrets FROM ${t}`);
    const todo = r.rows.filter(
      (row) =>
        sealMissing(this.opts.secretKey, row.id, row.params, row.secrets ?? [], secretsOf(row.engine)) !==
        null,
    );
    if (todo.length === 0) return 0;
    return this.changeSources(async (c) => {
      let n = 0;
      for (const { id } of todo) {
        // Re-read under a row lock: another replica may be sealing the same row.
        const cur = await c.query(`SELECT engine, params, secrets FROM ${t} WHERE id = $1 FOR UPDATE`, [id]);
        const row = cur.rows[0];
        if (!row) continue;
        const sealed = sealMissing(
          this.opts.secretKey,
          id,
          row.params,
          row.secrets ?? [],
          secretsOf(row.engine),
        );
        if (!sealed) continue;
        await c.query(`UPDATE ${t} SET params = $2, secrets = $3 WHERE id = $1`, [
          id,
          JSON.stringify(sealed.params),
          sealed.secrets,
        ]);
        n++;
      }
      return n;
    });
  }

  async deleteSource(name: string): Promise<boolean> {
    return this.changeSources(async (c) => {
      const r = await c.query(`DELETE FROM ${this.t('tributary_sources')} WHERE lower(name) = lower($1)`, [
        name,
      ]);
      return (r.rowCount ?? 0) > 0;
    });
  }

  async putToken(rec: TokenRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.t('tributary_tokens')} (hash, username, created_at, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (hash) DO UPDATE SET username = EXCLUDED.username, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
      [rec.hash, rec.username, rec.createdAt, rec.expiresAt],
    );
    // Expired tokens are useless; pruning on login keeps the table small.
    await this.pool.query(`DELETE FROM ${this.t('tributary_tokens')} WHERE expires_at <= $1`, [new Date()]);
  }

  /** Null when unknown or expired. */
  async getToken(hash: string): Promise<TokenRecord | null> {
    const r = await this.pool.query(
      `SELECT hash, username, created_at, expires_at FROM ${this.t('tributary_tokens')} WHERE hash = $1 AND expires_at > $2`,
      [hash, new Date()],
    );
    const row = r.rows[0];
    return row
      ? {
          hash: row.hash,
          username: row.username,
          createdAt: iso(row.created_at),
          expiresAt: iso(row.expires_at),
        }
      : null;
  }

  async deleteToken(hash: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.t('tributary_tokens')} WHERE hash = $1`, [hash]);
  }

  private toFile(row: FileRow): FileRecord {
    return {
      name: row.name,
      format: row.format,
      rows: Number(row.rows),
      columns: Number(row.columns),
      sizeBytes: Number(row.size_bytes),
      storagePath: row.storage_path,
      createdAt: iso(row.created_at),
      ...(row.sha256 ? { sha256: row.sha256 } : {}),
      ...(row.uploaded_by ? { uploadedBy: row.uploaded_by } : {}),
    };
  }

  async listFiles(): Promise<FileRecord[]> {
    const r = await this.pool.query(`SELECT * FROM ${this.t('tributary_files')} ORDER BY lower(name)`);
    return r.rows.map((row) => this.toFile(row));
  }

  /** Case-insensitive, like source names. */
  async getFile(name: string): Promise<FileRecord | null> {
    const r = await this.pool.query(
      `SELECT * FROM ${this.t('tributary_files')} WHERE lower(name) = lower($1)`,
      [name],
    );
    return r.rows[0] ? this.toFile(r.rows[0]) : null;
  }

  /**
   * Inserts, or replaces the file of the same name (case-insensitive), and announces it, in
   * one transaction. A record naming stored bytes (sha256) is refused unless all of them
   * are in (pg-file-bytes.ts): bytes first, then the registration that commits them.
   */
  async putFile(rec: FileRecord): Promise<void> {
    await this.changeFiles(async (c) => {
      if (rec.sha256) {
        const b = await c.query(
          `SELECT complete FROM ${this.t('tributary_file_blobs')} WHERE sha256 = $1 FOR SHARE`,
          [rec.sha256],
        );
        if (!b.rows[0]?.complete)
          throw new Error(`The bytes of file '${rec.name}' are not all in the catalog; upload it again`);
      }
      await c.query(
        `INSERT INTO ${this.t('tributary_files')} (name, format, rows, columns, size_bytes, storage_path, created_at, sha256, uploaded_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT ((lower(name))) DO UPDATE SET name = EXCLUDED.name, format = EXCLUDED.format, rows = EXCLUDED.rows,
           columns = EXCLUDED.columns, size_bytes = EXCLUDED.size_bytes, storage_path = EXCLUDED.storage_path,
           created_at = EXCLUDED.created_at, sha256 = EXCLUDED.sha256, uploaded_by = EXCLUDED.uploaded_by`,
        [
          rec.name,
          rec.format,
          rec.rows,
          rec.columns,
          rec.sizeBytes,
          rec.storagePath,
          rec.createdAt,
          rec.sha256 ?? null,
          rec.uploadedBy ?? null,
        ],
      );
      return true;
    });
  }

  async deleteFile(name: string, beforeWrite?: () => Promise<void>): Promise<boolean> {
    await beforeWrite?.();
    return this.changeFiles(async (c) => {
      const r = await c.query(`DELETE FROM ${this.t('tributary_files')} WHERE lower(name) = lower($1)`, [
        name,
      ]);
      return (r.rowCount ?? 0) > 0;
    });
  }

  /** Change files and, when `fn` says something changed, announce it in the same transaction. */
  private async changeFiles<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const result = await fn(c);
      if (result) {
        await c.query(`UPDATE ${this.t('tributary_files_version')} SET version = version + 1`);
        await c.query('SELECT pg_notify($1, $2)', [this.channel, `files:${this.instanceId}`]);
      }
      await c.query('COMMIT');
      return result;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  /** The byte store of file tables on this catalog, with its local cache in `storageDir`. */
  fileBytes(storageDir: string, graceMs?: number): PgFileBytes {
    return new PgFileBytes({
      pool: this.pool,
      table: (n) => this.t(n),
      storageDir,
      logger: this.opts.logger,
      graceMs,
    });
  }

  /** Changes with every registration, replacement or removal of a file, by any replica. */
  async filesVersion(): Promise<string> {
    const r = await this.pool.query(`SELECT version FROM ${this.t('tributary_files_version')}`);
    return String(r.rows[0]?.version ?? '0');
  }

  onFilesChanged(listener: () => void): void {
    this.fileListeners.add(listener);
  }

  async listKnowledgeBases(): Promise<KnowledgeBaseRecord[]> {
    const r = await this.pool.query(
      `SELECT id, name, params, created_at FROM ${this.t('tributary_knowledge_bases')} ORDER BY lower(name)`,
    );
    return r.rows.map((row) => ({
      id: row.id,
      name: row.name,
      params: openKbParams(this.opts.secretKey, row, row.params),
      createdAt: new Date(row.created_at).toISOString(),
    }));
  }

  async putKnowledgeBase(rec: KnowledgeBaseRecord, create: boolean): Promise<void> {
    const params = sealKbParams(this.opts.secretKey, rec.id, structuredClone(rec.params));
    const table = this.t('tributary_knowledge_bases');
    if (create) {
      const r = await this.pool.query(
        `WITH ins AS (INSERT INTO ${table} (id, name, params, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1)
         SELECT pg_notify($5, $6) FROM ins`,
        [rec.id, rec.name, JSON.stringify(params), rec.createdAt, this.channel, `kb:${this.instanceId}`],
      );
      if ((r.rowCount ?? 0) === 0)
        throw new CatalogConflictError(`A knowledge base named '${rec.name}' already exists`);
      return;
    }
    await this.pool.query(
      `WITH up AS (UPDATE ${table} SET params = $2 WHERE lower(name) = lower($1) RETURNING 1)
       SELECT pg_notify($3, $4) FROM up`,
      [rec.name, JSON.stringify(params), this.channel, `kb:${this.instanceId}`],
    );
  }

  async deleteKnowledgeBase(name: string): Promise<boolean> {
    const r = await this.pool.query(
      `WITH del AS (DELETE FROM ${this.t('tributary_knowledge_bases')} WHERE lower(name) = lower($1) RETURNING 1)
       SELECT pg_notify($2, $3) FROM del`,
      [name, this.channel, `kb:${this.instanceId}`],
    );
    return (r.rowCount ?? 0) > 0;
  }

  onSourcesChanged(listener: () => void): void {
    this.listeners.add(listener);
  }

  onKnowledgeBasesChanged(listener: () => void): void {
    this.kbListeners.add(listener);
  }

  private closing: Promise<void> | null = null;

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.listeners.clear();
    this.kbListeners.clear();
    this.fileListeners.clear();
    const c = this.listenClient;
    this.listenClient = null;
    if (c) {
      c.removeAllListeners('end');
      await c.end().catch(() => {});
    }
    await this.pool.end();
  }
}
