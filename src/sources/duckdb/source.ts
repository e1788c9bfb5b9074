import { existsSync } from 'node:fs';
import { type DuckDBConnection, DuckDBInstance, type DuckDBResult, type DuckDBType } from '@duckdb/node-api';
import { quoteIdent } from '../../core/sql-text.js';
import type { ColumnInfo } from '../../core/types.js';
import { cannotConnect, interrupted, sourceClosed, unknownTable } from '../error-util.js';
import type { Collation } from '../params.js';
import { checkReadOnlySql, readOnlyRefusal } from '../read-only.js';
import { SQL_CAPABILITIES } from '../sql-util.js';
import { makeQueryStream, type RowReader } from '../stream-util.js';
import type { HeldConnection, QueryOptions, QueryStream, Source, TableInfo } from '../types.js';
import { mapDuckError } from './errors.js';
import { DuckHeld } from './held.js';
import { DuckChunkConverter, duckTypeToMysql } from './values.js';

export interface DuckdbParams {
  path: string;
  read_only: boolean;
  collation: Collation;
}

const LIST_TABLES_SQL = `
SELECT table_name, table_schema, table_type FROM information_schema.tables
WHERE table_catalog = current_database() AND table_schema = 'main' ORDER BY table_name`;

const LIST_COLUMNS_SQL = `
SELECT column_name, data_type, is_nullable, column_default FROM duckdb_columns()
WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2 ORDER BY column_index`;

const KEYS_SQL = `
SELECT constraint_type, constraint_column_names FROM duckdb_constraints()
WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2
  AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')`;

/**
 * Interrupts until the statement in flight (if any) settles: an interrupt that lands before
 * DuckDB starts a query is forgotten when it starts.
 */
async function interruptUntilSettled(
  conn: DuckDBConnection,
  inFlight: () => Promise<unknown> | null,
): Promise<void> {
  for (let p = inFlight(); p; p = inFlight()) {
    conn.interrupt();
    await Promise.race([p.catch(() => {}), new Promise((r) => setTimeout(r, 20))]);
  }
}

export class DuckdbSource implements Source {
  readonly engine = 'duckdb';
  readonly dialect = 'duckdb' as const;
  readonly capabilities = SQL_CAPABILITIES;
  readonly rowMarker = 'rowid';
  readonly defaultSchema = 'main';
  get collation(): Collation {
    return this.params.collation ?? 'mysql';
  }
  private instance: Promise<DuckDBInstance> | null = null;
  private closed = false;
  private readonly active = new Set<QueryStream>();
  /** Connections held for transactions now (Source.hold): rolled back when the source closes. */
  private readonly held = new Set<DuckHeld>();

  constructor(
    readonly name: string,
    private readonly params: DuckdbParams,
  ) {}

  /** Opens the file (read-only unless asked otherwise); a missing file is an error, never created. */
  private open(): Promise<DuckDBInstance> {
    if (this.closed) return Promise.reject(sourceClosed(this.name));
    const { path, read_only } = this.params;
    this.instance ??= (async () => {
      if (!existsSync(path)) throw cannotConnect(this.name, path, 'the file does not exist');
      try {
        return await DuckDBInstance.create(path, { access_mode: read_only ? 'READ_ONLY' : 'READ_WRITE' });
      } catch (e) {
        throw mapDuckError(this.name, path, e, true);
      }
    })();
    const p = this.instance;
    p.catch(() => {
      if (this.instance === p) this.instance = null;
    });
    return p;
  }

  /** One connection per statement: a DuckDB connection runs one query at a time, and opening one is cheap. */
  private async connect(): Promise<DuckDBConnection> {
    const inst = await this.open();
    return inst.connect();
  }

  private async rows(sql: string, values: string[] = []): Promise<Record<string, unknown>[]> {
    const c = await this.connect();
    try {
      const reader = await c.runAndReadAll(sql, values);
      return reader.getRowObjectsJS() as Record<string, unknown>[];
    } catch (e) {
      throw mapDuckError(this.name, this.params.path, e);
    } finally {
      c.closeSync();
    }
  }

  async test(): Promise<void> {
    await this.rows('SELECT 1');
  }

  async listTables(): Promise<TableInfo[]> {
    const rows = await this.rows(LIST_TABLES_SQL);
    return rows.map((r) => ({
      name: String(r.table_name),
      schema: String(r.table_schema),
      type: r.table_type === 'VIEW' ? 'VIEW' : 'BASE TABLE',
    }));
  }

  async listColumns(table: string, schema?: string): Promise<ColumnInfo[]> {
    const s = schema ?? this.defaultSchema;
    const cols = await this.rows(LIST_COLUMNS_SQL, [s, table]);
    if (cols.length === 0) throw unknownTable(this.name, s === this.defaultSchema ? table : `${s}.${table}`);
    // The exact types (JSON is a VARCHAR alias, for one) come from describing the relation itself.
    const c = await this.connect();
    let types: DuckDBType[];
    try {
      const p = await c.prepare(
        `SELECT * FROM ${quoteIdent('duckdb', s)}.${quoteIdent('duckdb', table)} LIMIT 0`,
      );
      types = Array.from({ length: p.columnCount }, (_, i) => p.columnType(i));
    } catch (e) {
      throw mapDuckError(this.name, this.params.path, e);
    } finally {
      c.closeSync();
    }
    const keys = new Map<string, string>();
    for (const k of await this.rows(KEYS_SQL, [s, table])) {
      const names = k.constraint_column_names as string[];
      for (const n of names) {
        if (k.constraint_type === 'PRIMARY KEY') keys.set(n, 'PRI');
        else if (names.length === 1 && !keys.has(n)) keys.set(n, 'UNI');
      }
    }
    return cols.map((r, i) => ({
      name: String(r.column_name),
      type: types[i] ? duckTypeToMysql(types[i]) : 'VARCHAR',
      nativeType: String(r.data_type),
      nullable: r.is_nullable === true,
      key: keys.get(String(r.column_name)) ?? '',
      default: r.column_default === null ? null : String(r.column_default),
    }));
  }

  async query(sql: string, opts: QueryOptions = {}): Promise<QueryStream> {
    if (opts.signal?.aborted) throw interrupted(this.name);
    // A read-write file cannot also be opened read-only in this process (DuckDB refuses a
    // second configuration of one file): read-only calls rely on the kind check and this one.
    if (this.params.read_only || opts.readOnly) checkReadOnlySql(this.name, sql);
    const held = this.ownHeld(opts.held);
    const conn = held ? held.use() : await this.connect();
    // A held connection stays open for its transaction.
    const closeConn = () => {
      if (!held) conn.closeSync();
    };
    let result: DuckDBResult | null = null;
    let start: () => Promise<DuckDBResult>;
    let converter: DuckChunkConverter;
    try {
      // Preparing describes the result without running it, so a slow query can still be cancelled.
      const p = await conn.prepare(sql);
      converter = new DuckChunkConverter(
        Array.from({ length: p.columnCount }, (_, i) => p.columnName(i)),
        Array.from({ length: p.columnCount }, (_, i) => p.columnType(i)),
      );
      start = () => p.stream();
    } catch (e) {
      if (!/Cannot prepare multiple statements/.test(String((e as Error)?.message))) {
        closeConn();
        throw mapDuckError(this.name, this.params.path, e);
      }
      // Several statements: run them, stream the last one's rows.
      try {
        result = await conn.stream(sql);
      } catch (e2) {
        closeConn();
        throw mapDuckError(this.name, this.params.path, e2);
      }
      converter = new DuckChunkConverter(result.columnNames(), result.columnTypes());
      const r = result;
      start = async () => r;
    }
    let done = false;
    let pending: Promise<unknown> | null = null;
    const fetch = async () => {
      result ??= await start();
      return result.fetchChunk();
    };
    const reader: RowReader = {
      next: async () => {
        if (done) return null;
        const p = fetch();
        pending = p;
        const chunk = await p.finally(() => {
          pending = null;
        });
        if (!chunk || chunk.rowCount === 0) {
          done = true;
          return null;
        }
        return converter.rows(chunk);
      },
      // Closing the connection under a fetch in flight is not safe: stop it first.
      cancel: async () => interruptUntilSettled(conn, () => pending),
      release: async () => {
        this.active.delete(stream);
        closeConn();
      },
    };
    const stream = makeQueryStream(this.name, converter.fields, reader, opts.signal, (e) =>
      mapDuckError(this.name, this.params.path, e),
    );
    this.active.add(stream);
    return stream;
  }

  async execute(sql: string, opts: QueryOptions = {}): Promise<{ affectedRows: number | null }> {
    const { signal } = opts;
    if (signal?.aborted) throw interrupted(this.name);
    if (opts.readOnly) throw readOnlyRefusal(this.name, 'a statement that writes');
    const held = this.ownHeld(opts.held);
    const conn = held ? held.use() : await this.connect();
    let running: Promise<unknown> | null = null;
    const onAbort = () => void interruptUntilSettled(conn, () => running);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const run = conn.run(sql);
      running = run;
      const r = await run.finally(() => {
        running = null;
      });
      return { affectedRows: r.rowsChanged };
    } catch (e) {
      throw mapDuckError(this.name, this.params.path, e);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (!held) conn.closeSync();
    }
  }

  /** See Source.hold: a connection of its own with BEGIN TRANSACTION sent. */
  async hold(): Promise<HeldConnection> {
    if (this.params.read_only) throw readOnlyRefusal(this.name, 'a statement that writes');
    const conn = await this.connect();
    try {
      await conn.run('BEGIN TRANSACTION');
    } catch (e) {
      conn.closeSync();
      throw mapDuckError(this.name, this.params.path, e);
    }
    const h = new DuckHeld(this.name, conn, this.params.path, (x) => this.held.delete(x));
    this.held.add(h);
    return h;
  }

  /** `held` when this source handed it out. */
  private ownHeld(held: HeldConnection | undefined): DuckHeld | undefined {
    return held instanceof DuckHeld && this.held.has(held) ? held : undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.active].map((s) => s.cancel()));
    await Promise.all([...this.held].map((h) => h.end(false).catch(() => {})));
    const inst = this.instance;
    this.instance = null;
    if (inst) (await inst.catch(() => null))?.closeSync();
  }
}
