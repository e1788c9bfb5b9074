import { existsSync, statSync } from 'node:fs';
import type { ColumnInfo, FieldInfo, MysqlType, Row } from '../../core/types.js';
import { cannotConnect, interrupted, sourceClosed, unknownTable } from '../error-util.js';
import type { Collation } from '../params.js';
import { checkReadOnlySql, readOnlyRefusal } from '../read-only.js';
import { SQL_CAPABILITIES } from '../sql-util.js';
import { batchSize, makeQueryStream, type RowReader, yieldToLoop } from '../stream-util.js';
import type { HeldConnection, QueryOptions, QueryStream, Source, TableInfo } from '../types.js';
import { Database, StatementCursor } from './driver.js';
import { mapSqliteError } from './errors.js';
import { SqliteHeld } from './held.js';
import { converterFor, mysqlTypeOfDeclared, mysqlTypeOfValues } from './types.js';

export interface SqliteParams {
  path: string;
  collation: Collation;
  read_only: boolean;
}

const LIST_TABLES_SQL = `
SELECT name, type FROM sqlite_schema
WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
ORDER BY name`;

const TABLE_INFO_SQL = 'SELECT name, type, "notnull" AS not_null, dflt_value, pk FROM pragma_table_info(?)';

/** Index columns: which are alone in a unique index (UNI) or lead an index (MUL), as MySQL's DESCRIBE. */
const INDEX_INFO_SQL = `
SELECT ii.name AS col, il."unique" AS uniq, ii.seqno AS seqno,
       (SELECT count(*) FROM pragma_index_info(il.name)) AS ncols
FROM pragma_index_list(?) il JOIN pragma_index_info(il.name) ii`;

/** Statements whose sqlite3_changes() is their own; for others it still holds the last DML's count. */
const DML_RE = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*(insert|update|delete|replace|with)\b/i;

export class SqliteSource implements Source {
  readonly engine = 'sqlite';
  readonly dialect = 'sqlite' as const;
  readonly capabilities = SQL_CAPABILITIES;
  readonly rowMarker = 'rowid';
  readonly defaultSchema = 'main';
  get collation(): Collation {
    return this.params.collation ?? 'mysql';
  }
  private db: Database | null = null;
  /** A second handle opened read-only, for read-only statements of a read-write source. */
  private roDb: Database | null = null;
  private closed = false;
  private readonly open = new Set<StatementCursor>();
  /** Handles held for transactions now (Source.hold): rolled back when the source closes. */
  private readonly held = new Set<SqliteHeld>();

  constructor(
    readonly name: string,
    private readonly params: SqliteParams,
  ) {}

  /**
   * Opens the file (read-write unless the source is read_only); never creates one (a typo
   * must not leave an empty database behind). `readOnly`: a handle SQLite itself keeps from
   * writing (SQLITE_OPEN_READONLY), opened beside the read-write one when needed.
   */
  private handle(readOnly = false): Database {
    if (this.closed) throw sourceClosed(this.name);
    const ro = readOnly || this.params.read_only === true;
    const open = ro && !this.params.read_only ? this.roDb : this.db;
    if (open) return open;
    const { path } = this.params;
    if (!existsSync(path)) throw cannotConnect(this.name, path, 'the file does not exist');
    if (!statSync(path).isFile()) throw cannotConnect(this.name, path, 'not a file');
    let db: Database;
    try {
      db = new Database(path, { fileMustExist: true, readOnly: ro });
    } catch (e) {
      throw mapSqliteError(this.name, path, e);
    }
    if (ro && !this.params.read_only) this.roDb = db;
    else this.db = db;
    return db;
  }

  /** Catalog queries: their text parameters are names, their row shapes known per query. */
  private all<T>(sql: string, values?: string[]): T[] {
    try {
      // While a transaction holds the file's write lock, the other handles cannot read it:
      // the catalog is read through the held handle then (it only adds the transaction's DDL).
      const held = this.held.values().next().value;
      return (held ? held.use() : this.handle()).all(sql, values) as T[];
    } catch (e) {
      throw mapSqliteError(this.name, this.params.path, e);
    }
  }

  async test(): Promise<void> {
    // Reading the schema proves the file is an SQLite database, not just a file.
    this.all('SELECT count(*) FROM sqlite_schema');
  }

  async listTables(): Promise<TableInfo[]> {
    return this.all<{ name: string; type: string }>(LIST_TABLES_SQL).map((r) => ({
      name: r.name,
      schema: 'main',
      type: r.type === 'view' ? 'VIEW' : 'BASE TABLE',
    }));
  }

  async listColumns(table: string): Promise<ColumnInfo[]> {
    type Info = { name: string; type: string; not_null: number; dflt_value: string | null; pk: number };
    const cols = this.all<Info>(TABLE_INFO_SQL, [table]);
    if (cols.length === 0) throw unknownTable(this.name, table);
    const idx = this.all<{ col: string | null; uniq: number; seqno: number; ncols: number }>(INDEX_INFO_SQL, [
      table,
    ]);
    const key = (c: Info): string => {
      if (c.pk > 0) return 'PRI';
      const mine = idx.filter((i) => i.col === c.name);
      if (mine.some((i) => i.uniq && i.ncols === 1)) return 'UNI';
      return mine.some((i) => i.seqno === 0) ? 'MUL' : '';
    };
    return cols.map((c) => ({
      name: c.name,
      type: mysqlTypeOfDeclared(c.type) ?? 'BLOB',
      nativeType: c.type,
      nullable: !c.not_null && c.pk === 0,
      key: key(c),
      default: c.dflt_value,
    }));
  }

  /** Declared column types of a table, by lower-case column name. */
  private declaredTypes(table: string, cache: Map<string, Map<string, string>>): Map<string, string> {
    let m = cache.get(table);
    if (!m) {
      m = new Map();
      for (const c of this.all<{ name: string; type: string }>(TABLE_INFO_SQL, [table]))
        m.set(c.name.toLowerCase(), c.type);
      cache.set(table, m);
    }
    return m;
  }

  async query(sql: string, opts: QueryOptions = {}): Promise<QueryStream> {
    if (opts.signal?.aborted) throw interrupted(this.name);
    const ro = this.params.read_only === true || opts.readOnly === true;
    if (ro) checkReadOnlySql(this.name, sql);
    const held = this.ownHeld(opts.held);
    const db = held ? held.use() : this.handle(ro);
    const size = batchSize(opts.batchRows);
    let cursor: StatementCursor;
    let first: Row[] = [];
    let tables: (string | null)[] = [];
    try {
      cursor = new StatementCursor(db, sql);
    } catch (e) {
      throw mapSqliteError(this.name, this.params.path, e);
    }
    this.open.add(cursor);
    let done = false;
    const step = (): boolean => {
      const r = cursor.next();
      if (!r) return false;
      first.push(r.row);
      return true;
    };
    let types: MysqlType[];
    try {
      // Types come from the first batch: the declared type of the column a value comes from,
      // else the values themselves. Reading it here is also what runs the statement.
      const r = cursor.next(true);
      if (r) {
        first.push(r.row);
        tables = r.tables ?? [];
        while (first.length < size && step());
        if (first.length < size) done = true;
      } else done = true;
      const cache = new Map<string, Map<string, string>>();
      types = cursor.names.map((name, i) => {
        const t = tables[i];
        const declared = t ? this.declaredTypes(t, cache).get(name.toLowerCase()) : undefined;
        return mysqlTypeOfDeclared(declared) ?? mysqlTypeOfValues(first.map((row) => row[i]));
      });
    } catch (e) {
      cursor.finalize();
      this.open.delete(cursor);
      throw mapSqliteError(this.name, this.params.path, e);
    }
    const convs = types.map(converterFor);
    const convert = (rows: Row[]): Row[] => {
      for (const row of rows)
        for (let i = 0; i < convs.length; i++) if (convs[i] && row[i] !== null) row[i] = convs[i]!(row[i]);
      return rows;
    };
    const columns: FieldInfo[] = cursor.names.map((name, i) => ({ name, type: types[i] }));
    const reader: RowReader = {
      next: async () => {
        if (first.length) {
          const b = first;
          first = [];
          return convert(b);
        }
        if (done) return null;
        // The driver is synchronous: let other work run between batches.
        await yieldToLoop();
        const batch: Row[] = [];
        for (let r = cursor.next(); r; r = batch.length < size ? cursor.next() : null) batch.push(r.row);
        if (batch.length < size) done = true;
        return batch.length ? convert(batch) : null;
      },
      cancel: async () => {},
      release: async () => {
        cursor.finalize();
        this.open.delete(cursor);
      },
    };
    return makeQueryStream(this.name, columns, reader, opts.signal, (e) =>
      mapSqliteError(this.name, this.params.path, e),
    );
  }

  async execute(sql: string, opts: QueryOptions = {}): Promise<{ affectedRows: number | null }> {
    if (opts.signal?.aborted) throw interrupted(this.name);
    if (this.params.read_only || opts.readOnly) throw readOnlyRefusal(this.name, 'a statement that writes');
    const held = this.ownHeld(opts.held);
    try {
      const r = (held ? held.use() : this.handle()).run(sql);
      return { affectedRows: DML_RE.test(sql) ? r.changes : 0 };
    } catch (e) {
      throw mapSqliteError(this.name, this.params.path, e);
    }
  }

  /** See Source.hold: a read-write handle of its own on the file, with BEGIN sent. */
  async hold(): Promise<HeldConnection> {
    if (this.params.read_only) throw readOnlyRefusal(this.name, 'a statement that writes');
    this.handle(); // the file's checks and their errors
    let db: Database | null = null;
    try {
      db = new Database(this.params.path, { fileMustExist: true });
      db.exec('BEGIN');
    } catch (e) {
      if (db?.isOpen) db.close();
      throw mapSqliteError(this.name, this.params.path, e);
    }
    const h = new SqliteHeld(this.name, db, this.params.path, (x) => this.held.delete(x));
    this.held.add(h);
    return h;
  }

  /** `held` when this source handed it out. */
  private ownHeld(held: HeldConnection | undefined): SqliteHeld | undefined {
    return held instanceof SqliteHeld && this.held.has(held) ? held : undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.held].map((h) => h.end(false).catch(() => {})));
    for (const c of this.open) c.finalize();
    this.open.clear();
    for (const db of [this.db, this.roDb]) if (db?.isOpen) db.close();
    this.db = null;
    this.roDb = null;
  }
}
