import { pipeline } from 'node:stream/promises';
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import type { Logger } from 'pino';
import { SqlError } from '../../core/errors.js';
import { quoteIdent } from '../../core/sql-text.js';
import type { ColumnInfo } from '../../core/types.js';
import { interrupted, scrub, sourceClosed, unknownDatabase, unknownTable } from '../error-util.js';
import { PoolGate } from '../pool-gate.js';
import { checkReadOnlySql, readOnlyRefusal } from '../read-only.js';
import { SQL_CAPABILITIES } from '../sql-util.js';
import { batchSize, makeQueryStream } from '../stream-util.js';
import type { HeldConnection, QueryOptions, QueryStream, Source, TableInfo } from '../types.js';
import { sendCancelRequest } from './cancel.js';
import { copyOut } from './copy-out.js';
import { isBrokenConnection, mapPgError, type PgErrorContext } from './errors.js';
import { PgHeld, STATEMENT_SAVEPOINT } from './held.js';
import {
  type ColumnRow,
  KNOWN_VALUES_SQL,
  LIST_COLUMNS_SQL,
  LIST_TABLES_SQL,
  TABLE_EXISTS_SQL,
  toColumnInfo,
  toTableInfo,
} from './meta.js';
import type { PostgresParams, SslMode } from './params.js';
import { cancelUntilFinished, PgStreamReader } from './stream.js';
import { StreamedQuery } from './streamed-query.js';
import { mysqlTypeForOid, pgTypes } from './types.js';

const POOL_MAX = 10;
/**
 * A reused idle client may have died since (server restart, pg_terminate_backend), and
 * then so may every other idle one, whose death notices can still be unread: a statement
 * the driver refused because its client was already dead is tried on the next, up to a
 * whole pool of them. A statement that may have reached the server is never sent again.
 */
const READ_RETRIES_REUSED = POOL_MAX;
const READ_RETRIES_FRESH = 2;
/** A client idle longer than this (ms) is probed (`SELECT 1`) before a statement is sent on it: a restart while idle is found before, not after. Busier clients skip the round trip; the pool drops those whose death it has heard of. */
const PROBE_IDLE_MS = 1_000;

/** The driver refused the statement: its client was dead before anything was sent. */
function neverSent(e: unknown): boolean {
  return /is not queryable/.test((e as Error | null)?.message ?? '');
}

type Ssl = false | ConnectionOptions;

/** The TLS settings to try in order, as libpq's sslmode means them. */
function sslAttempts(mode: SslMode): Ssl[] {
  const lax: Ssl = { rejectUnauthorized: false };
  switch (mode) {
    case 'disable':
      return [false];
    case 'allow':
      return [false, lax];
    case 'prefer':
      return [lax, false];
    case 'require':
      return [lax];
    case 'verify-ca':
      return [{ rejectUnauthorized: true, checkServerIdentity: () => undefined }];
    case 'verify-full':
      return [{ rejectUnauthorized: true }];
  }
}

/** Whether the next sslmode attempt may help: the server refused TLS, or refused plain connections. */
function tryNextSsl(e: unknown): boolean {
  const msg = e instanceof Error ? e.message : '';
  const code = (e as { code?: unknown }).code;
  return /does not support SSL/i.test(msg) || (code === '28000' && /no encryption|SSL off/i.test(msg));
}

/** A startup `options` value: spaces and backslashes are escaped, as the protocol asks. */
function optionValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/ /g, '\\ ');
}

export class PostgresSource implements Source {
  readonly engine = 'postgres';
  readonly dialect = 'postgres' as const;
  readonly capabilities = SQL_CAPABILITIES;
  readonly rowMarker = 'ctid';
  get collation(): 'mysql' | 'source' {
    return this.params.collation ?? 'mysql';
  }
  readonly defaultSchema: string;
  private pool: Promise<pg.Pool> | null = null;
  private closed = false;
  private readonly active = new Set<QueryStream>();
  /** Clients that have been back in the pool at least once (see READ_RETRIES_REUSED). */
  private readonly reused = new WeakSet<pg.PoolClient>();
  private readonly ctx: PgErrorContext;
  private readonly onClientError: (e: Error) => void;
  private readonly gate: PoolGate;
  /** When each client last went back to the pool. */
  private readonly idleSince = new WeakMap<pg.PoolClient, number>();
  /** The gate permit each checked-out client holds. */
  private readonly permits = new WeakMap<pg.PoolClient, () => void>();
  /** Clients whose session is in read-only mode now (default_transaction_read_only = on). */
  private readonly readOnlySessions = new WeakSet<pg.PoolClient>();
  /** Clients held for transactions now (Source.hold): rolled back when the source closes. */
  private readonly held = new Set<PgHeld>();

  constructor(
    readonly name: string,
    private readonly params: PostgresParams,
    private readonly log: Logger,
    poolWaitMs?: number,
  ) {
    this.defaultSchema = params.schema;
    this.gate = new PoolGate(name, POOL_MAX, log, poolWaitMs);
    this.ctx = {
      source: name,
      host: params.host,
      port: params.port,
      user: params.user,
      database: params.database,
      password: params.password,
    };
    this.onClientError = (e) =>
      this.log.warn({ source: name, error: scrub(e.message, params.password) }, 'connection error');
  }

  private makePool(ssl: Ssl): pg.Pool {
    const p = this.params;
    const pool = new pg.Pool({
      host: p.host,
      port: p.port,
      user: p.user,
      password: p.password,
      database: p.database,
      ssl,
      max: POOL_MAX,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      allowExitOnIdle: true,
      application_name: 'tributary',
      // Canonical values need ISO dates and UTC for zoned types; the schema is the default for unqualified names.
      // A read_only source's sessions are read-only from their first statement on.
      options: `-c search_path=${optionValue(quoteIdent('postgres', p.schema))} -c DateStyle=ISO -c TimeZone=UTC -c IntervalStyle=postgres${p.read_only ? ' -c default_transaction_read_only=on' : ''}`,
      types: pgTypes,
    });
    // Idle clients that die (server restart, terminated backend) are dropped by the pool; without
    // this listener their 'error' would crash the process.
    pool.on('error', this.onClientError);
    return pool;
  }

  /** The pool, created on first use with the first sslmode attempt that connects. */
  private getPool(): Promise<pg.Pool> {
    if (this.closed) return Promise.reject(sourceClosed(this.name));
    this.pool ??= (async () => {
      const attempts = sslAttempts(this.params.sslmode);
      for (let i = 0; ; i++) {
        const pool = this.makePool(attempts[i]);
        try {
          const c = await pool.connect();
          c.release();
          return pool;
        } catch (e) {
          await pool.end().catch(() => {});
          if (i + 1 < attempts.length && tryNextSsl(e)) continue;
          throw mapPgError(this.ctx, e, true);
        }
      }
    })();
    const p = this.pool;
    // A failed first connection is not remembered: the server may be up next time.
    p.catch(() => {
      if (this.pool === p) this.pool = null;
    });
    return p;
  }

  /**
   * A client known to be alive: one that sat idle is probed first and a dead one replaced,
   * so a restart or a killed session is found before a statement is sent, not after.
   */
  private async checkout(signal?: AbortSignal, readOnly?: boolean): Promise<pg.PoolClient> {
    const client = await this.checkoutAlive(signal);
    if (readOnly === undefined || this.params.read_only) return client;
    if (this.readOnlySessions.has(client) === readOnly) return client;
    // The session switches mode only between statements, and never inside the caller's text.
    try {
      await client.query(`SET default_transaction_read_only = ${readOnly ? 'on' : 'off'}`);
    } catch (e) {
      this.checkin(client, true);
      throw mapPgError(this.ctx, e);
    }
    if (readOnly) this.readOnlySessions.add(client);
    else this.readOnlySessions.delete(client);
    return client;
  }

  /** Whether a statement with these options runs read-only (checked first, 1290 when refused). */
  private readOnly(sql: string, opts: QueryOptions): boolean {
    const ro = this.params.read_only || opts.readOnly === true;
    if (ro) checkReadOnlySql(this.name, sql);
    return ro;
  }

  private async checkoutAlive(signal?: AbortSignal): Promise<pg.PoolClient> {
    for (let i = 0; ; i++) {
      const client = await this.checkoutAny(signal);
      const since = this.idleSince.get(client);
      if (since === undefined || performance.now() - since < PROBE_IDLE_MS || i > POOL_MAX) return client;
      try {
        await client.query('SELECT 1');
        return client;
      } catch {
        this.checkin(client, true);
      }
    }
  }

  /** A client, after a permit from the gate (1040 when the pool stays busy); 2003 when none can be made. */
  private async checkoutAny(signal?: AbortSignal): Promise<pg.PoolClient> {
    const release = await this.gate.acquire(signal);
    let client: pg.PoolClient;
    try {
      const pool = await this.getPool();
      client = await pool.connect();
    } catch (e) {
      release();
      // The pool was ended under a waiting connect (DROP DATABASE): it is closed, not unreachable.
      if (this.closed) throw sourceClosed(this.name);
      throw e instanceof SqlError ? e : mapPgError(this.ctx, e, true);
    }
    this.permits.set(client, release);
    client.on('error', this.onClientError);
    return client;
  }

  private readRetries(client: pg.PoolClient): number {
    return this.reused.has(client) ? READ_RETRIES_REUSED : READ_RETRIES_FRESH;
  }

  private checkin(client: pg.PoolClient, discard: boolean): void {
    if (!discard) this.reused.add(client);
    this.idleSince.set(client, performance.now());
    client.off('error', this.onClientError);
    client.release(discard ? new Error('discarded') : undefined);
    this.permits.get(client)?.();
    this.permits.delete(client);
  }

  /** Runs one short statement; retried on a client that turns out dead (safe for reads only). */
  private async read<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.checkout();
      try {
        const r = await client.query<T>({ text, values, types: pgTypes });
        this.checkin(client, false);
        return r.rows;
      } catch (e) {
        const broken = isBrokenConnection(e);
        const retry = neverSent(e) && attempt < this.readRetries(client);
        this.checkin(client, broken);
        if (retry) continue;
        throw mapPgError(this.ctx, e);
      }
    }
  }

  poolStats() {
    return this.gate.stats();
  }

  async test(): Promise<void> {
    const rows = await this.read<{ ok: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1) AS ok',
      [this.params.schema],
    );
    if (!rows[0]?.ok) throw unknownDatabase(this.name, this.params.schema, undefined, 'schema');
  }

  async listTables(): Promise<TableInfo[]> {
    const rows = await this.read<Parameters<typeof toTableInfo>[0] & pg.QueryResultRow>(LIST_TABLES_SQL, [
      this.defaultSchema,
    ]);
    return rows.map(toTableInfo);
  }

  async listColumns(table: string, schema?: string): Promise<ColumnInfo[]> {
    const s = schema ?? this.defaultSchema;
    const rows = await this.read<ColumnRow>(LIST_COLUMNS_SQL, [s, table]);
    if (rows.length === 0) {
      // A relation may exist with no columns at all.
      const exists = await this.read(TABLE_EXISTS_SQL, [s, table]);
      if (exists.length === 0)
        throw unknownTable(this.name, s === this.defaultSchema ? table : `${s}.${table}`);
    }
    return rows.map(toColumnInfo);
  }

  async knownValues(table: string, schema: string | null, columns: string[]): Promise<Map<string, string[]>> {
    const rows = await this.read<{ name: string; vals: string }>(KNOWN_VALUES_SQL, [
      schema ?? this.defaultSchema,
      table,
      columns,
    ]);
    const out = new Map<string, string[]>();
    for (const r of rows) {
      const vals: unknown = JSON.parse(r.vals);
      if (Array.isArray(vals))
        out.set(
          r.name,
          vals.filter((v): v is string => typeof v === 'string'),
        );
    }
    return out;
  }

  async query(sql: string, opts: QueryOptions = {}): Promise<QueryStream> {
    const { signal } = opts;
    if (signal?.aborted) throw interrupted(this.name);
    const ro = this.readOnly(sql, opts);
    const held = this.ownHeld(opts.held);
    for (let attempt = 0; ; attempt++) {
      const client = held ? held.use() : await this.checkout(signal, ro);
      const q = new StreamedQuery(sql, batchSize(opts.batchRows));
      // In a held transaction the read runs in a savepoint of its own (queued, no round trip
      // awaited here), so a failed or stopped one does not abort the transaction.
      if (held) client.query(`SAVEPOINT ${STATEMENT_SAVEPOINT}`).catch(() => {});
      client.query(q as unknown as pg.Submittable);
      // One abort listener for the statement's whole life (EventTarget listeners are not
      // cheap on a point lookup): until the columns come with the first rows an abort (a
      // slow statement, a lock wait) cancels the statement on the server; after that it
      // cancels the stream, which does the same and then gives the client back.
      let stream: QueryStream | null = null;
      // PostgreSQL ignores a CancelRequest that lands while the backend still reads the
      // statement's messages: cancelUntilFinished repeats it until the statement ends.
      const onAbort = () =>
        stream ? void stream.cancel() : void cancelUntilFinished(this.params, client, q.finished);
      signal?.addEventListener('abort', onAbort);
      // An abort while the client was checked out came before the listener: cancel now.
      if (signal?.aborted) onAbort();
      let fields: Awaited<StreamedQuery['described']>;
      try {
        fields = await q.described;
      } catch (e) {
        signal?.removeEventListener('abort', onAbort);
        const broken = isBrokenConnection(e);
        const retry = !held && neverSent(e) && attempt < this.readRetries(client);
        await q.finished;
        // After an abort a CancelRequest may still be on its way: that client is not reused.
        this.back(client, broken || !!signal?.aborted, held, q, broken);
        if (signal?.aborted) throw interrupted(this.name);
        if (retry) continue;
        throw mapPgError(this.ctx, e);
      }
      if (signal?.aborted) {
        signal.removeEventListener('abort', onAbort);
        // A CancelRequest that reached the backend between protocol messages (before Execute
        // began) is ignored by PostgreSQL, and closing the socket does not stop a running
        // statement: cancel until it has stopped, then discard the client.
        q.discard();
        const stopped = await cancelUntilFinished(this.params, client, q.finished);
        this.back(client, true, held, q, !stopped);
        throw interrupted(this.name);
      }
      const reader = new PgStreamReader(q, client, this.ctx, (c, discard) => {
        signal?.removeEventListener('abort', onAbort);
        if (stream) this.active.delete(stream);
        this.back(c, discard, held, q);
      });
      const columns = fields.map((f) => ({ name: f.name, type: mysqlTypeForOid(f.dataTypeID) }));
      stream = makeQueryStream(this.name, columns, reader, signal, (e) => mapPgError(this.ctx, e), false);
      this.active.add(stream);
      return stream;
    }
  }

  async execute(sql: string, opts: QueryOptions = {}): Promise<{ affectedRows: number | null }> {
    const { signal } = opts;
    if (signal?.aborted) throw interrupted(this.name);
    if (this.params.read_only || opts.readOnly) throw readOnlyRefusal(this.name, 'a statement that writes');
    const held = this.ownHeld(opts.held);
    const client = held ? held.use() : await this.checkout(signal, false);
    const onAbort = this.cancelOnAbort(client);
    signal?.addEventListener('abort', onAbort, { once: true });
    // In a held transaction the write runs in a savepoint of its own, in the same round trip:
    // a failed one is undone alone, as MySQL undoes a failed statement.
    const text = held
      ? `SAVEPOINT ${STATEMENT_SAVEPOINT}; ${sql}; RELEASE SAVEPOINT ${STATEMENT_SAVEPOINT}`
      : sql;
    try {
      const r = (await client.query({ text, types: pgTypes })) as pg.QueryResult | pg.QueryResult[];
      this.back(client, false, held);
      // Several statements in one string give one result each.
      const results = Array.isArray(r) ? r : [r];
      return { affectedRows: results.reduce((n, x) => n + (x.rowCount ?? 0), 0) };
    } catch (e) {
      const broken = isBrokenConnection(e);
      if (held && !broken)
        await client
          .query(`ROLLBACK TO SAVEPOINT ${STATEMENT_SAVEPOINT}; RELEASE SAVEPOINT ${STATEMENT_SAVEPOINT}`)
          .catch(() => {});
      this.back(client, broken, held);
      throw mapPgError(this.ctx, e);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** See Source.hold: a writable client with BEGIN sent, out of the pool until its end. */
  async hold(signal?: AbortSignal): Promise<HeldConnection> {
    if (this.params.read_only) throw readOnlyRefusal(this.name, 'a statement that writes');
    const client = await this.checkout(signal, false);
    try {
      await client.query('BEGIN');
    } catch (e) {
      this.checkin(client, true);
      throw mapPgError(this.ctx, e);
    }
    const h: PgHeld = new PgHeld(this.name, client, this.ctx, (c, discard) => {
      this.held.delete(h);
      this.checkin(c, discard);
    });
    this.held.add(h);
    return h;
  }

  /** `held` when this source handed it out. */
  private ownHeld(held: HeldConnection | undefined): PgHeld | undefined {
    return held instanceof PgHeld && this.held.has(held) ? held : undefined;
  }

  /**
   * A statement's client back: to the pool (`discard`: closed instead), or, held, kept for
   * its transaction unless `broken`; a read's savepoint (`q`) is released, or rolled back to
   * when the read failed or was stopped.
   */
  private back(
    client: pg.PoolClient,
    discard: boolean,
    held: PgHeld | undefined,
    q?: StreamedQuery,
    broken = discard,
  ): void {
    if (!held) {
      this.checkin(client, discard);
      return;
    }
    if (broken) {
      held.done(true);
      return;
    }
    if (!q) return;
    const undo = q.failed || !q.done ? `ROLLBACK TO SAVEPOINT ${STATEMENT_SAVEPOINT}; ` : '';
    client.query(`${undo}RELEASE SAVEPOINT ${STATEMENT_SAVEPOINT}`).catch(() => {});
  }

  /**
   * Run `fn` on one client of this source's pool, in a writable session, outside the SQL
   * engine: a knowledge base stored here (kb/store/pg.ts) sends parameterised statements and
   * transactions of its own. The pool's gate and error mapping apply as to statements; a
   * source created read-only refuses with 1290.
   */
  async withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.params.read_only) throw readOnlyRefusal(this.name, 'a knowledge base stored in it');
    const client = await this.checkout(undefined, false);
    try {
      const out = await fn(client);
      this.checkin(client, false);
      return out;
    } catch (e) {
      this.checkin(client, isBrokenConnection(e));
      throw mapPgError(this.ctx, e);
    }
  }

  /** What an abort signal does to a statement running on `client`: a protocol CancelRequest. */
  private cancelOnAbort(client: pg.PoolClient): () => void {
    const c = client as pg.PoolClient & { processID?: number; secretKey?: number };
    return () => {
      if (typeof c.processID === 'number' && typeof c.secretKey === 'number')
        void sendCancelRequest(this.params.host, this.params.port, c.processID, c.secretKey);
    };
  }

  /**
   * Fragments for the local engine: COPY (sql) TO STDOUT as CSV straight into `dest`.
   * PostgreSQL formats the rows itself, so none is parsed into JS values on the way.
   */
  async exportCsv(sql: string, dest: NodeJS.WritableStream, opts: QueryOptions = {}): Promise<void> {
    const { signal } = opts;
    // Whatever fails before the copy runs, `dest` is closed: its reader (DuckDB on a named
    // pipe) waits for end-of-file and would otherwise wait for ever.
    const abandon = (e: unknown): never => {
      (dest as NodeJS.WritableStream & { destroy?: () => void }).destroy?.();
      throw e;
    };
    if (signal?.aborted) abandon(interrupted(this.name));
    let ro = false;
    try {
      ro = this.readOnly(sql, opts);
    } catch (e) {
      abandon(e);
    }
    const client = await this.checkout(signal, ro).catch(abandon);
    const onAbort = this.cancelOnAbort(client);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const copy = client.query(copyOut(`COPY (${sql}) TO STDOUT WITH (FORMAT csv)`));
      await pipeline(copy, dest);
      this.checkin(client, false);
    } catch (e) {
      this.checkin(client, true);
      if (signal?.aborted) throw interrupted(this.name);
      throw mapPgError(this.ctx, e);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.active].map((s) => s.cancel()));
    await Promise.all([...this.held].map((h) => h.end(false).catch(() => {})));
    const pool = this.pool;
    this.pool = null;
    if (pool) await (await pool.catch(() => null))?.end();
  }
}
