import {
  BIGINT,
  BLOB,
  BOOLEAN,
  blobValue,
  DOUBLE,
  type DuckDBAppender,
  type DuckDBConnection,
  DuckDBDataChunk,
  type DuckDBType,
  type DuckDBValue,
  INTEGER,
  VARCHAR,
} from '@duckdb/node-api';
import { quoteIdent, stringLiteral } from '../../core/sql-text.js';
import type { CanonicalValue, FieldInfo, MysqlType, Row } from '../../core/types.js';

/** An identifier quoted for DuckDB (core/sql-text.ts). */
export const dq = (name: string): string => quoteIdent('duckdb', name);

interface ColumnPlan {
  staging: string;
  /** Expression turning the staged column into the typed one (the cast runs vectorised, once). */
  view: (col: string) => string;
  /** The staging type, for data chunks. */
  type: DuckDBType;
  /** A non-null canonical value as the staging vector takes it. */
  value: (v: NonNullable<CanonicalValue>) => DuckDBValue;
}

const text = (v: NonNullable<CanonicalValue>) => (typeof v === 'string' ? v : String(v));
const varchar = (view: (c: string) => string): ColumnPlan => ({
  staging: 'VARCHAR',
  view,
  type: VARCHAR,
  value: text,
});

/**
 * Text → DECIMAL. DuckDB parses text into a DECIMAL wider than 18 digits about 100x slower
 * than into one that fits 64 bits, so the narrow parse is tried first and only the values
 * that do not fit take the wide one.
 */
function decimalCast(c: string, precision: number | undefined, scale: number): string {
  if (precision !== undefined && precision <= 18)
    return `CAST(${c} AS DECIMAL(${Math.max(precision, scale)},${scale}))`;
  if (scale > 17) return `CAST(${c} AS DECIMAL(38,${scale}))`;
  return `COALESCE(CAST(TRY_CAST(${c} AS DECIMAL(18,${scale})) AS DECIMAL(38,${scale})), CAST(${c} AS DECIMAL(38,${scale})))`;
}

function planColumn(type: MysqlType, scale: number, precision?: number): ColumnPlan {
  const same = (c: string) => c;
  switch (type) {
    case 'BOOLEAN':
      return { staging: 'BOOLEAN', view: same, type: BOOLEAN, value: (v) => !!v };
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'YEAR':
    case 'BIGINT':
      return {
        staging: 'BIGINT',
        view: same,
        type: BIGINT,
        value: (v) => (typeof v === 'bigint' ? v : BigInt(v as number | string)),
      };
    case 'FLOAT':
    case 'DOUBLE':
      return { staging: 'DOUBLE', view: same, type: DOUBLE, value: (v) => Number(v) };
    case 'DECIMAL':
      return varchar((c) => decimalCast(c, precision, scale));
    case 'DATE':
      return varchar((c) => `TRY_CAST(${c} AS DATE)`);
    case 'DATETIME':
    case 'TIMESTAMP':
      return varchar((c) => `TRY_CAST(${c} AS TIMESTAMP)`);
    case 'TIME':
      return varchar((c) => `TRY_CAST(${c} AS TIME)`);
    case 'JSON':
      return varchar((c) => `CAST(${c} AS JSON)`);
    case 'BLOB':
    case 'BINARY':
      return {
        staging: 'BLOB',
        view: same,
        type: BLOB,
        value: (v) => blobValue(v instanceof Uint8Array ? v : Buffer.from(String(v))),
      };
    default:
      return varchar(same);
  }
}

function decimalScale(rows: Row[], col: number): number {
  let s = 0;
  for (const r of rows) {
    const v = r[col];
    if (typeof v === 'string') {
      const dot = v.indexOf('.');
      if (dot >= 0) s = Math.max(s, v.length - dot - 1);
    }
  }
  return Math.min(Math.max(s, 2), 18);
}

/**
 * Loads a stream of canonical row batches into DuckDB as the table `schema.name`: rows are
 * appended to a staging table, which becomes the table itself when every column is staged
 * in its type, else is converted into it in one vectorised pass. A table, not a view: its
 * rowid keeps the rows' order (two-phase grouping reads it). Returns rows loaded.
 */
export async function loadBatches(
  conn: DuckDBConnection,
  schema: string,
  name: string,
  fields: FieldInfo[],
  batches: AsyncIterable<Row[]>,
  onRows?: (n: number) => void,
): Promise<number> {
  const raw = `${name}__raw`;
  const q = (t: string) => `${dq(schema)}.${dq(t)}`;
  let plans: ColumnPlan[] | null = null;
  let appender: DuckDBAppender | null = null;
  let count = 0;
  const width = fields.length;
  const start = async (first: Row[]) => {
    plans = fields.map((f, i) => planColumn(f.type, f.type === 'DECIMAL' ? decimalScale(first, i) : 0));
    const cols = fields.map((f, i) => `${dq(f.name)} ${plans![i].staging}`).join(', ');
    await conn.run(`CREATE TABLE ${q(raw)} (${cols || '"__row" INTEGER'})`);
    appender = await conn.createAppender(raw, schema);
  };
  // Rows wait here until they fill whole data chunks: sources send batches of any size, and a
  // part-filled chunk costs as much to store as a full one. No flush per batch either: the
  // appender flushes itself every ~100 chunks, and a flush per 1,000-row batch cost 5x the
  // append (100,000 rows of an integer and a string: 55-93 ms of flushes against 8-12 once).
  let pending: Row[] = [];
  try {
    for await (const batch of batches) {
      if (!appender) await start(batch);
      pending = pending.length ? pending.concat(batch) : batch;
      const whole = pending.length - (pending.length % CHUNK_ROWS);
      if (whole > 0) {
        appendRows(appender!, plans!, width, whole === pending.length ? pending : pending.slice(0, whole));
        pending = pending.slice(whole);
      }
      count += batch.length;
      onRows?.(count);
    }
    if (!appender) await start([]);
    if (pending.length) appendRows(appender!, plans!, width, pending);
  } finally {
    if (appender) (appender as DuckDBAppender).closeSync();
  }
  await typedTable(
    conn,
    schema,
    raw,
    name,
    fields.map((f, i) => ({ name: f.name, view: plans![i].view })),
  );
  return count;
}

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048;

/**
 * Rows appended a column at a time through data chunks: numbers go into the chunk's
 * typed arrays in JS, where the appender would make one native call per value
 * (100,000 rows of an integer and a string: 27 → 17 ms).
 */
function appendRows(a: DuckDBAppender, plans: ColumnPlan[], width: number, rows: Row[]): void {
  const types = width ? plans.map((p) => p.type) : [INTEGER];
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    const n = Math.min(CHUNK_ROWS, rows.length - start);
    const chunk = DuckDBDataChunk.create(types, n);
    if (width === 0) chunk.setColumnValues(0, new Array(n).fill(1));
    for (let c = 0; c < width; c++) {
      const value = plans[c].value;
      const col: DuckDBValue[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const v = rows[start + i][c];
        col[i] = v === null || v === undefined ? null : value(v);
      }
      chunk.setColumnValues(c, col);
    }
    a.appendDataChunk(chunk);
  }
}

/** The staged table `raw` as the typed table `name`: renamed when nothing converts, else converted. */
async function typedTable(
  conn: DuckDBConnection,
  schema: string,
  raw: string,
  name: string,
  cols: { name: string; view: (col: string) => string }[],
): Promise<void> {
  const q = (t: string) => `${dq(schema)}.${dq(t)}`;
  const sel = cols.map((c) => [c.view(dq(c.name)), dq(c.name)]);
  if (sel.every(([expr, col]) => expr === col)) {
    await conn.run(`ALTER TABLE ${q(raw)} RENAME TO ${dq(name)}`);
    return;
  }
  await conn.run(
    `CREATE TABLE ${q(name)} AS SELECT ${sel.map(([e, c]) => `${e} AS ${c}`).join(', ')} FROM ${q(raw)}`,
  );
  await conn.run(`DROP TABLE ${q(raw)}`);
}

/**
 * Loads a CSV file a source wrote itself (PostgreSQL COPY ... TO STDOUT, FORMAT csv) as
 * `schema.name`: DuckDB's parallel CSV reader does the parsing, so no row passes through JS.
 * An unquoted empty field is NULL, a quoted one the empty string (COPY's convention).
 */
export async function loadCsvFile(
  conn: DuckDBConnection,
  schema: string,
  name: string,
  fields: (FieldInfo & { scale?: number; precision?: number })[],
  path: string,
  opts: { hexBinary?: boolean } = {},
): Promise<void> {
  const q = (t: string) => `${dq(schema)}.${dq(t)}`;
  const plans = fields.map((f) => {
    // A DECIMAL that fits 64 bits is parsed by the CSV reader itself: no text column, no cast.
    if (f.type === 'DECIMAL' && f.precision !== undefined && f.precision <= 18) {
      const scale = f.scale ?? 0;
      return { staging: `DECIMAL(${Math.max(f.precision, scale, 1)},${scale})`, view: (c: string) => c };
    }
    const p = planColumn(f.type, f.scale ?? 10, f.precision);
    if (p.staging === 'BLOB' && opts.hexBinary)
      return { staging: 'VARCHAR', view: (c: string) => `from_hex(substr(${c}, 3))` };
    return p;
  });
  const width = fields.length;
  const cols = width
    ? fields.map((f, i) => `${lit(f.name)}: ${lit(plans[i].staging)}`).join(', ')
    : `'__row': 'INTEGER'`;
  const sel = width
    ? fields.map((f, i) => `${plans[i].view(dq(f.name))} AS ${dq(f.name)}`).join(', ')
    : '"__row"';
  // One pass from the CSV reader to the typed table (a table, not a view: see loadBatches).
  await conn.run(
    `CREATE TABLE ${q(name)} AS SELECT ${sel} FROM read_csv(${lit(path)}, header = false, auto_detect = false, ` +
      `columns = {${cols}}, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, null_padding = false)`,
  );
}

function lit(s: string): string {
  return stringLiteral('duckdb', s);
}
