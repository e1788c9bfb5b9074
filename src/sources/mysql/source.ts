import type { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import mysql, { type Pool, type PoolConnection, type PoolOptions } from 'mysql2';
import type { Logger } from 'pino';
import type { ColumnInfo } from '../../core/types.js';
import { interrupted, scrub, sourceClosed, unknownTable } from '../error-util.js';
import { PoolGate } from '../pool-gate.js';
import { checkReadOnlySql, readOnlyRefusal } from '../read-only.js';
import { SQL_CAPABILITIES } from '../sql-util.js';
import { batchSize, makeQueryStream } from '../stream-util.js';
import type {
  HeldConnection,
  QueryOptions,
  QueryStream,
  ResultPacketSink,
  Source,
  TableInfo,
} from '../types.js';
import { isBrokenConnection, type MysqlErrorContext, mapMysqlError } from './errors.js';
import { MysqlHeld, run } from './held.js';
import { JsonColumns } from './json-columns.js';
import {
  type ColumnRow,
  jsonColumnsFromChecks,
  LIST_COLUMNS_SQL,
  LIST_TABLES_SQL,
  MARIADB_JSON_CHECKS_SQL,
  toColumnInfo,
  toTableInfo,
} from './meta.js';
import type { MysqlParams } from './params.js';
import { type PipeConnection, RelayPipeline } from './pipeline.js';
import { ColumnsMemo, connectionLost, type RawConnection, type RelayEnd, RelayLink } from './relay.js';
import { MysqlStreamReader } from './stream.js';
import { convertersFor, fieldInfoOf, type MysqlField } from './types.js';

const POOL_MAX = 10;
/** Statement shapes whose results the relay declined (their column types), remembered up to this many. */
const DECLINED_MAX = 500;
/** A relayed statement this quick (ms, source time) with at most FAST_ROWS rows may be pipelined next time (pipeline.ts). */
const FAST_MS = 5;
const FAST_ROWS = 100;
/** A statement the driver refused because its connection was already closed is tried again this often. */
const READ_RETRIES = 2;
/** A connection idle longer than this (ms) is pinged before a statement is sent on it: a restart or a KILL may have closed it. A ping is one loopback round trip; back-to-back statements skip it. */
const PING_IDLE_MS = 5;

function noop(): void {}

/** The driver refused the statement because the connection was already closed: nothing reached the server. */
function neverSent(e: unknown): boolean {
  return /in closed state/.test((e as Error | null)?.message ?? '');
}

function formatQuery(sql: string, values: unknown): string {
  return Array.isArray(values) && values.length > 0 ? mysql.format(sql, values) : sql;
}

export class MysqlSource implements Source {
  readonly dialect = 'mysql' as const;
  readonly capabilities = SQL_CAPABILITIES;
  readonly defaultSchema: string;
  private readonly pool: Pool;
  private readonly ctx: MysqlErrorContext;
  private readonly connOptions: PoolOptions;
  private readonly active = new Set<QueryStream>();
  private readonly gate: PoolGate;
  /** The gate permit each checked-out connection holds. */
  private readonly permits = new WeakMap<PoolConnection, () => void>();
  /** When each connection last went back to the pool. */
  private readonly idleSince = new WeakMap<PoolConnection, number>();
  /** Connections whose session runs every transaction READ ONLY now. */
  private readonly readOnlySessions = new WeakSet<PoolConnection>();
  /** Connections held for transactions now (Source.hold): rolled back when the source closes. */
  private readonly held = new Set<MysqlHeld>();
  private readonly readOnlySource: boolean;
  private closed = false;
  private mariadb: boolean | null = null;
  /** Statement shapes (digits folded) whose results the relay declined: not tried again. */
  private readonly declined = new Set<string>();
  private readonly jsonColumns = new JsonColumns((sql, values) => this.side(sql, values));

  readonly collation: 'mysql' | 'source';

  constructor(
    readonly name: string,
    readonly engine: 'mysql' | 'mariadb',
    params: MysqlParams,
    private readonly log: Logger,
    poolWaitMs?: number,
  ) {
    this.defaultSchema = params.database;
    this.readOnlySource = params.read_only;
    this.collation = params.collation ?? 'mysql';
    this.ctx = {
      source: name,
      host: params.host,
      port: params.port,
      user: params.user,
      database: params.database,
      password: params.password,
    };
    this.connOptions = {
      host: params.host,
      port: params.port,
      user: params.user,
      password: params.password,
      database: params.database,
      ssl: params.ssl === false ? undefined : params.ssl === true ? { rejectUnauthorized: true } : params.ssl,
      connectTimeout: 10_000,
      // Canonical values: dates as text, big integers exact (text beyond 2^53, turned into bigint),
      // DECIMAL as exact text, JSON as its text.
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: false,
      jsonStrings: true,
      charset: 'utf8mb4',
      multipleStatements: false,
      // A statement without values leaves as it is: mysql2 would scan it for `?` placeholders
      // to fill with nothing (1% of the server's time in point lookups at concurrency 16).
      queryFormat: formatQuery,
    };
    this.gate = new PoolGate(name, POOL_MAX, log, poolWaitMs);
    this.pool = mysql.createPool({
      ...this.connOptions,
      connectionLimit: POOL_MAX,
      maxIdle: POOL_MAX,
      idleTimeout: 60_000,
      enableKeepAlive: true,
    });
    this.pool.on('connection', (conn) => {
      conn.on('error', (e: Error) =>
        this.log.warn({ source: name, error: scrub(e.message, params.password) }, 'connection error'),
      );
      // TIMESTAMP values leave in UTC, as canonical values require.
      conn.query("SET time_zone = '+00:00'", (e: unknown) => {
        if (e)
          this.log.warn(
            { source: name, error: scrub(String(e), params.password) },
            'could not set time_zone',
          );
      });
    });
  }

  /**
   * A connection known to be alive: one that sat idle is pinged first, and a dead one is
   * replaced before any statement is sent. A statement is never sent twice: once it may have
   * reached the server, its failure is the answer (a killed statement must not run again).
   */
  private async getConnection(signal?: AbortSignal, readOnly = false): Promise<PoolConnection> {
    // getAlive inlined for its common case (a connection in use moments ago): one async layer less per statement.
    let conn = await this.checkout(signal);
    if (this.needsPing(conn)) {
      const alive = await new Promise<boolean>((resolve) => conn.ping((e) => resolve(!e)));
      if (!alive) {
        this.giveBack(conn, true);
        conn = await this.getAlive(signal);
      }
    }
    const ro = readOnly || this.readOnlySource;
    if (this.readOnlySessions.has(conn) === ro) return conn;
    // SET SESSION TRANSACTION makes every later transaction of the session READ ONLY (or
    // not), autocommitted statements included: START TRANSACTION READ ONLY's effect without
    // two more round trips per statement. A read_only source's sessions never switch back.
    try {
      await new Promise<void>((resolve, reject) =>
        conn.query(`SET SESSION TRANSACTION ${ro ? 'READ ONLY' : 'READ WRITE'}`, (e: unknown) =>
          e ? reject(e) : resolve(),
        ),
      );
    } catch (e) {
      this.giveBack(conn, true);
      throw mapMysqlError(this.ctx, e);
    }
    if (ro) this.readOnlySessions.add(conn);
    else this.readOnlySessions.delete(conn);
    return conn;
  }

  private async getAlive(signal?: AbortSignal): Promise<PoolConnection> {
    for (let i = 0; ; i++) {
      const conn = await this.checkout(signal);
      if (!this.needsPing(conn) || i > POOL_MAX) return conn;
      const alive = await new Promise<boolean>((resolve) => conn.ping((e) => resolve(!e)));
      if (alive) return conn;
      this.giveBack(conn, true);
    }
  }

  /** Whether `conn` sat idle long enough that it may have been closed under us. */
  private needsPing(conn: PoolConnection): boolean {
    const since = this.idleSince.get(conn);
    return since !== undefined && performance.now() - since >= PING_IDLE_MS;
  }

  /** A connection, after a permit from the gate (1040 when the pool stays busy). Give it back with `giveBack`. */
  private checkout(signal?: AbortSignal): Promise<PoolConnection> {
    if (this.closed) return Promise.reject(sourceClosed(this.name));
    return this.gate.acquire(signal).then(
      (release) =>
        new Promise<PoolConnection>((resolve, reject) => {
          this.pool.getConnection((err, c) => {
            if (err) {
              release();
              // The pool was ended under a waiting connect (DROP DATABASE): closed, not unreachable.
              reject(this.closed ? sourceClosed(this.name) : mapMysqlError(this.ctx, err, true));
            } else {
              this.permits.set(c, release);
              resolve(c);
            }
          });
        }),
    );
  }

  /** Back to the pool, or destroyed when it may be broken or busy; its gate permit with it. */
  private giveBack(conn: PoolConnection, destroy: boolean): void {
    if (destroy) conn.destroy();
    else conn.release();
    this.freePermit(conn);
  }

  private freePermit(conn: PoolConnection): void {
    this.idleSince.set(conn, performance.now());
    this.permits.get(conn)?.();
    this.permits.delete(conn);
  }

  /** One statement on a connection of its own, outside the pool: for work while a pooled one is busy. */
  private side = async <T>(sql: string, values: unknown[] = []): Promise<T[]> => {
    const c = mysql.createConnection({ ...this.connOptions, connectTimeout: 5000 });
    c.on('error', noop);
    try {
      return await new Promise<T[]>((resolve, reject) =>
        c.query({ sql, values }, (e: unknown, r: unknown) => (e ? reject(e) : resolve(r as T[]))),
      );
    } finally {
      c.destroy();
    }
  };

  /** KILL QUERY from a separate connection: the busy one cannot take commands. */
  private killQuery = async (threadId: number): Promise<void> => {
    await this.side(`KILL QUERY ${Number(threadId)}`).catch((e: unknown) =>
      this.log.warn({ source: this.name, error: scrub(String(e), this.ctx.password) }, 'KILL QUERY failed'),
    );
  };

  /** One short statement with object rows; retried on a connection that turns out dead (reads only). */
  private async read<T>(sql: string, values: unknown[]): Promise<T[]> {
    for (let attempt = 0; ; attempt++) {
      // Catalog reads leave the session's mode as it is.
      const conn = await this.getAlive();
      try {
        const rows = await new Promise<T[]>((resolve, reject) =>
          conn.query({ sql, values }, (e: unknown, r: unknown) => (e ? reject(e) : resolve(r as T[]))),
        );
        this.giveBack(conn, false);
        return rows;
      } catch (e) {
        const broken = isBrokenConnection(e);
        this.giveBack(conn, broken);
        if (neverSent(e) && attempt < READ_RETRIES) continue;
        throw mapMysqlError(this.ctx, e);
      }
    }
  }

  private async isMariaDb(): Promise<boolean> {
    if (this.mariadb === null) {
      const [row] = await this.read<{ v: string }>('SELECT VERSION() AS v', []);
      this.mariadb = /mariadb/i.test(row?.v ?? '');
    }
    return this.mariadb;
  }

  poolStats() {
    return this.gate.stats();
  }

  async test(): Promise<void> {
    await this.isMariaDb();
  }

  async listTables(): Promise<TableInfo[]> {
    const rows = await this.read<Parameters<typeof toTableInfo>[0]>(LIST_TABLES_SQL, [this.defaultSchema]);
    return rows.map(toTableInfo);
  }

  async listColumns(table: string, schema?: string): Promise<ColumnInfo[]> {
    const s = schema ?? this.defaultSchema;
    const rows = await this.read<ColumnRow>(LIST_COLUMNS_SQL, [s, table]);
    if (rows.length === 0) throw unknownTable(this.name, s === this.defaultSchema ? table : `${s}.${table}`);
    const maria = await this.isMariaDb();
    let json = new Set<string>();
    if (maria) {
      json = jsonColumnsFromChecks(
        await this.read<{ clause: string }>(MARIADB_JSON_CHECKS_SQL, [s, table]).catch(() => []),
      );
    }
    return rows.map((r) => toColumnInfo(r, json, maria));
  }

  async query(sql: string, opts: QueryOptions = {}): Promise<QueryStream> {
    const { signal } = opts;
    if (signal?.aborted) throw interrupted(this.name);
    const size = batchSize(opts.batchRows);
    const ro = this.readOnlySource || opts.readOnly === true;
    if (ro) checkReadOnlySql(this.name, sql);
    const held = this.ownHeld(opts.held);
    for (let attempt = 0; ; attempt++) {
      const conn = held ? held.use() : await this.getConnection(signal, ro);
      const q = conn.query({ sql, rowsAsArray: true });
      // Errors reach us through the stream; without these listeners a late one would be thrown.
      q.on('error', noop);
      const stream: Readable = q.stream({ highWaterMark: size });
      stream.on('error', noop);
      // mysql2 does not fail a callback-less query when its connection dies: do it here.
      const onConnGone = (e?: Error) => stream.destroy(e ?? connectionLost());
      conn.on('error', onConnGone);
      conn.on('end', onConnGone);
      const detach = () => {
        conn.off('error', onConnGone);
        conn.off('end', onConnGone);
      };
      let fields: MysqlField[];
      try {
        fields = await this.firstFields(q, stream, conn, signal);
      } catch (e) {
        detach();
        const broken = isBrokenConnection(e);
        // A held connection stays with its transaction: the statement was killed before this answer.
        if (held) held.done(broken);
        else this.giveBack(conn, broken || !!signal?.aborted);
        if (signal?.aborted) throw interrupted(this.name);
        if (!held && neverSent(e) && attempt < READ_RETRIES) continue;
        throw mapMysqlError(this.ctx, e);
      }
      const reader = new MysqlStreamReader(
        conn,
        stream,
        size,
        convertersFor(fields),
        this.killQuery,
        (lost) => {
          detach();
          if (held) held.done(lost);
          else this.freePermit(conn);
          this.active.delete(qs);
        },
        held !== undefined,
      );
      const json = await this.jsonColumns.find(fields);
      const columns = fields.map((f, i) => fieldInfoOf(f, json.has(i) ? 'JSON' : undefined, this.name));
      const qs = makeQueryStream(this.name, columns, reader, signal, (e) => mapMysqlError(this.ctx, e));
      this.active.add(qs);
      return qs;
    }
  }

  private decline(shape: string): void {
    if (this.declined.size >= DECLINED_MAX) this.declined.clear();
    this.declined.add(shape);
  }

  /** Each relayed shape's column definitions last time (relay.ts ColumnsMemo). */
  private readonly columnMemos = new Map<string, ColumnsMemo>();
  /** Shapes (QueryOptions.shape, else digits as 0) that relayed within FAST_MS with at most FAST_ROWS rows: these may be pipelined. */
  private readonly fastShapes = new Set<string>();
  private readonly pipeline = new RelayPipeline({
    open: () => this.getConnection(undefined, false) as unknown as Promise<PipeConnection>,
    release: (c, broken) => this.giveBack(c as unknown as PoolConnection, broken),
    kill: (threadId) => this.killQuery(threadId),
  });

  /** Each pooled connection's relay listeners, made once (see RelayLink). */
  private readonly relayLinks = new WeakMap<PoolConnection, RelayLink>();

  private relayLink(conn: PoolConnection): RelayLink {
    let link = this.relayLinks.get(conn);
    if (!link) {
      link = new RelayLink(conn as unknown as RawConnection & EventEmitter, () =>
        this.killQuery(conn.threadId),
      );
      this.relayLinks.set(conn, link);
    }
    return link;
  }

  /** See Source.relayQuery; relay.ts holds the command that reads the packets. */
  async relayQuery(sql: string, sink: ResultPacketSink, opts: QueryOptions = {}): Promise<number | null> {
    const { signal } = opts;
    // Read-only mode checks the text and switches the session: the normal path does both.
    // A held transaction's statements take the normal path too.
    if (this.readOnlySource || opts.readOnly || opts.held) return null;
    const shape = opts.shape ?? sql.replace(/\d+/g, '0');
    if (this.declined.has(shape)) return null;
    if (signal?.aborted) throw interrupted(this.name);
    let memo = this.columnMemos.get(shape);
    if (!memo) {
      if (this.columnMemos.size >= DECLINED_MAX) this.columnMemos.clear();
      memo = new ColumnsMemo(this.name);
      this.columnMemos.set(shape, memo);
    }
    if (this.fastShapes.has(shape) && this.pipeline.accepting()) {
      const end = await this.pipeline.run(sql, sink, signal, memo);
      if ('rows' in end) {
        if (end.ranMs >= FAST_MS || end.rows > FAST_ROWS) this.fastShapes.delete(shape);
        return end.rows;
      }
      if ('interrupted' in end) throw interrupted(this.name);
      if ('declined' in end) {
        this.fastShapes.delete(shape);
        this.decline(shape);
        return null;
      }
      // A kill meant for the statement ahead reached this one: run it again, alone.
      if ('error' in end) throw mapMysqlError(this.ctx, end.error);
    }
    for (let attempt = 0; ; attempt++) {
      const conn = await this.getConnection(signal, false);
      // The statement's own time, not the wait for a connection.
      const started = performance.now();
      const link = this.relayLink(conn);
      const end = await new Promise<RelayEnd>((resolve) => link.start(sql, sink, signal, resolve, memo));
      if ('rows' in end) {
        this.giveBack(conn, !!signal?.aborted);
        if (performance.now() - started < FAST_MS && end.rows <= FAST_ROWS) {
          if (this.fastShapes.size >= DECLINED_MAX) this.fastShapes.clear();
          this.fastShapes.add(shape);
        }
        return end.rows;
      }
      if ('declined' in end) {
        this.giveBack(conn, true);
        this.decline(shape);
        return null;
      }
      const e = end.error;
      this.giveBack(conn, isBrokenConnection(e) || !!signal?.aborted);
      if (signal?.aborted) throw interrupted(this.name);
      if (neverSent(e) && attempt < READ_RETRIES) continue;
      throw mapMysqlError(this.ctx, e);
    }
  }

  /**
   * Waits for the result's column definitions (or the end of a statement without rows).
   * The server sends them with its first network flush, so a slow query holds them back;
   * an abort meanwhile kills the query.
   */
  private firstFields(
    q: EventEmitter,
    stream: Readable,
    conn: PoolConnection,
    signal?: AbortSignal,
  ): Promise<MysqlField[]> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        q.off('fields', onFields);
        q.off('error', onError);
        q.off('end', onEnd);
        stream.off('close', onEnd);
        signal?.removeEventListener('abort', onAbort);
      };
      // A statement without rows gets 'fields' with nothing, or just its end.
      const onFields = (f: MysqlField[] | undefined) => {
        cleanup();
        resolve(f ?? []);
      };
      const onError = (e: unknown) => {
        cleanup();
        reject(e);
      };
      const onEnd = () => {
        cleanup();
        if (stream.errored) reject(stream.errored);
        else resolve([]);
      };
      const onAbort = () => {
        cleanup();
        void this.killQuery(conn.threadId).then(() => reject(interrupted(this.name)));
      };
      q.on('fields', onFields);
      q.on('error', onError);
      q.on('end', onEnd);
      stream.on('close', onEnd);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async execute(sql: string, opts: QueryOptions = {}): Promise<{ affectedRows: number | null }> {
    const { signal } = opts;
    if (signal?.aborted) throw interrupted(this.name);
    if (this.readOnlySource || opts.readOnly) throw readOnlyRefusal(this.name, 'a statement that writes');
    const held = this.ownHeld(opts.held);
    const conn = held ? held.use() : await this.getConnection(signal);
    const onAbort = () => void this.killQuery(conn.threadId);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const r = await run(conn, sql);
      if (!held) this.giveBack(conn, false);
      const affected = (r as { affectedRows?: unknown } | null)?.affectedRows;
      return { affectedRows: typeof affected === 'number' ? affected : null };
    } catch (e) {
      if (held) held.done(isBrokenConnection(e));
      else this.giveBack(conn, isBrokenConnection(e));
      throw mapMysqlError(this.ctx, e);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** See Source.hold: a writable connection with autocommit off, out of the pool until its end. */
  async hold(signal?: AbortSignal): Promise<HeldConnection> {
    if (this.readOnlySource) throw readOnlyRefusal(this.name, 'a statement that writes');
    const conn = await this.getConnection(signal, false);
    try {
      await run(conn, 'SET autocommit = 0');
    } catch (e) {
      this.giveBack(conn, true);
      throw mapMysqlError(this.ctx, e);
    }
    const h: MysqlHeld = new MysqlHeld(this.name, conn, this.ctx, (c, destroy) => {
      this.held.delete(h);
      this.giveBack(c, destroy);
    });
    this.held.add(h);
    return h;
  }

  /** `held` when this source handed it out. */
  private ownHeld(held: HeldConnection | undefined): MysqlHeld | undefined {
    return held instanceof MysqlHeld && this.held.has(held) ? held : undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pipeline.close();
    await Promise.all([...this.active].map((s) => s.cancel()));
    await Promise.all([...this.held].map((h) => h.end(false).catch(() => {})));
    await new Promise<void>((resolve) => this.pool.end(() => resolve()));
  }
}
