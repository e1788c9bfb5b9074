import { execFile } from 'node:child_process';
import { constants, createWriteStream } from 'node:fs';
import { lstat, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ErrorCode, SqlError } from '../../core/errors.js';
import type { ColumnOrigin, FieldInfo, MysqlType, Row } from '../../core/types.js';
import { epochMs, type FragmentReport } from '../../observe/statement.js';
import type { HeldConnection, QueryStream, Source } from '../../sources/types.js';
import type { ResultType } from '../dialects/infer.js';
import type { KbSearch } from '../kb-port.js';
import { tooMany } from '../plan/kb-k.js';
import type { DynamicFilter, KbPart } from '../plan/plan-types.js';
import type { Fragment, Plan } from '../plan/planner.js';
import { fetchHits, loadHits, loadSearch, nextLimit } from './kb-load.js';
import type { LocalEngine } from './local.js';
import { localError } from './local.js';
import { dq, loadBatches, loadCsvFile } from './local-load.js';

let querySeq = 0;

type LocalPlan = Extract<Plan, { kind: 'local' }>;

export interface RunOptions {
  signal?: AbortSignal;
  onProgress?: (rows: number) => void;
  /** Rows of information_schema tables the plan reads, built on demand. */
  infoRows?: (table: string) => Promise<{ columns: FieldInfo[]; rows: Row[] }>;
  /** A knowledge base's answer to its part of the statement (kb-port.ts). */
  kbRows?: (
    name: string,
    search: KbSearch,
    signal?: AbortSignal,
  ) => Promise<{ columns: FieldInfo[]; rows: Row[] }>;
  /** query.max_fragment_rows: a fragment loaded for local work may hold at most this many rows (1104 beyond). */
  maxFragmentRows?: number;
  /** Each source runs its part in its own read-only mode (api.mcp.read_only). */
  readOnly?: boolean;
  /** When given (traces are on), what each source ran is recorded here. */
  fragments?: FragmentReport[];
  /** The connection a source's reads run on, when the caller's transaction holds one of it. */
  held?: (source: Source) => HeldConnection | undefined;
}

/** Run a plan to a stream of canonical rows. */
export async function runPlan(plan: Plan, local: LocalEngine, opts: RunOptions = {}): Promise<QueryStream> {
  let stream = await runPlanned(plan, local, opts);
  if (plan.retype) stream = retyped(stream, plan.retype);
  return plan.origins ? withOrigins(stream, plan.origins) : stream;
}

/**
 * The result columns with the origins the planner bound them to (plan/origins.ts); a column
 * whose source described its origin itself (a MySQL source's column definition) keeps that.
 * One new column list per plan: a statement of a planned shape reuses it.
 */
function withOrigins(stream: QueryStream, origins: (ColumnOrigin | null)[]): QueryStream {
  const cols = stream.columns;
  if (cols.length !== origins.length) return stream;
  let memo = originMemo.get(origins);
  if (!memo || !sameColumns(memo.from, cols)) {
    if (!cols.some((c, i) => !c.origin && origins[i])) return stream;
    memo = {
      from: cols,
      to: cols.map((c, i) => (c.origin || !origins[i] ? c : originated(c, origins[i]!))),
    };
    originMemo.set(origins, memo);
  }
  return { columns: memo.to, batches: stream.batches, cancel: () => stream.cancel() };
}

const NUMBERS = new Set<MysqlType>(['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'DECIMAL', 'FLOAT', 'DOUBLE']);

/** A column with its origin; a number column of an UNSIGNED source column stays UNSIGNED. */
function originated(c: FieldInfo, origin: ColumnOrigin): FieldInfo {
  return origin.flags & 32 && NUMBERS.has(c.type) ? { ...c, origin, unsigned: true } : { ...c, origin };
}

const originMemo = new WeakMap<(ColumnOrigin | null)[], { from: FieldInfo[]; to: FieldInfo[] }>();

function sameColumns(a: FieldInfo[], b: FieldInfo[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.name !== y.name || x.type !== y.type || x.unsigned !== y.unsigned || x.origin !== y.origin)
      return false;
  }
  return true;
}

async function runPlanned(plan: Plan, local: LocalEngine, opts: RunOptions): Promise<QueryStream> {
  if (plan.kind === 'pushdown') {
    opts.fragments?.push({
      source: plan.source.name,
      engine: plan.source.engine,
      pushdown: true,
      startedAt: epochMs(),
    });
    return plan.source.query(plan.sql, {
      signal: opts.signal,
      readOnly: opts.readOnly,
      held: opts.held?.(plan.source),
    });
  }
  if (plan.fragments.length === 0 && plan.info.length === 0 && plan.kb.length === 0) {
    // Nothing to load (SELECT 1, CTEs over literals): no per-query schema needed.
    return local.query(await local.pooled(), plan.localSql, 'pooled', opts.signal);
  }

  // Each query gets its own schema so fragments load in parallel on separate connections.
  const schema = `q${process.pid}_${++querySeq}`;
  const setup = await local.connect();
  await setup.run(`CREATE SCHEMA ${dq(schema)}`);
  const drop = async () => {
    try {
      await setup.run(`DROP SCHEMA IF EXISTS ${dq(schema)} CASCADE`);
    } finally {
      setup.closeSync();
    }
  };
  let loaded = 0;
  const progress = (n: number) => {
    loaded += n;
    opts.onProgress?.(loaded);
  };
  const streams: QueryStream[] = [];
  const kbState = new Map<KbPart, { limit: number | null; exhausted: boolean }>();
  try {
    // A fragment narrowed by a dynamic filter waits for the side whose keys it takes.
    const loaded = new Map<number, Promise<void>>();
    const loads: Promise<void>[] = [];
    const order = [...plan.fragments.keys()].sort(
      (a, b) =>
        Number(plan.dynamic.some((d) => d.probe === a)) - Number(plan.dynamic.some((d) => d.probe === b)),
    );
    for (const i of order) {
      const f = plan.fragments[i];
      const dyn = plan.dynamic.find((d) => d.probe === i);
      const p = dyn
        ? loaded.get(dyn.build)!.then(async () => loadFragment(f, await narrowed(local, schema, plan, dyn)))
        : loadFragment(f, f.sql);
      // A failure is reported by Promise.allSettled below; a waiting probe must not see it unhandled.
      loaded.set(
        i,
        p.catch(() => {}),
      );
      loads.push(p);
    }
    async function loadFragment(f: Fragment, planned: string): Promise<void> {
      // One row past the limit is enough to know it is passed; the source stops there.
      const max = opts.maxFragmentRows;
      const sql = max ? `SELECT * FROM (${planned}) AS __fragment LIMIT ${max + 1}` : planned;
      const report: FragmentReport | undefined = opts.fragments && {
        source: f.source.name,
        engine: f.source.engine,
        pushdown: false,
        startedAt: epochMs(),
      };
      try {
        const rows = await loadFragmentRows(f, sql);
        if (report && rows !== undefined) report.rows = rows;
        if (max) await checkFragmentRows(local, schema, f, max);
      } catch (e) {
        if (report) report.errorCode = e instanceof SqlError ? e.code : ErrorCode.SOURCE_ERROR;
        throw e;
      } finally {
        if (report) {
          report.endedAt = epochMs();
          opts.fragments!.push(report);
        }
      }
    }
    /** Rows loaded, when counted on the way (the CSV path does not count). */
    async function loadFragmentRows(f: Fragment, sql: string): Promise<number | undefined> {
      // A source held by the caller's transaction is read on its held connection, row by row.
      const held = opts.held?.(f.source);
      if (f.source.exportCsv && f.columnInfo.length && !held) {
        await loadViaCsv(local, schema, { ...f, sql }, opts.signal, opts.readOnly);
        return undefined;
      }
      const s = await f.source.query(sql, { signal: opts.signal, readOnly: opts.readOnly, held });
      streams.push(s);
      const conn = await local.connect();
      try {
        let last = 0;
        await loadBatches(conn, schema, f.temp, s.columns, s.batches, (n) => {
          progress(n - last);
          last = n;
        });
        return last;
      } finally {
        conn.closeSync();
      }
    }
    // A table named twice (`key_column_usage fk JOIN key_column_usage pk`) is loaded once.
    const infoTables = new Set(plan.info.map((r) => r.table.toLowerCase()));
    for (const table of infoTables) {
      loads.push(
        (async () => {
          const { columns, rows } = await opts.infoRows!(table);
          const conn = await local.connect();
          try {
            await loadBatches(conn, schema, `__info_${table}`, columns, one(rows));
          } finally {
            conn.closeSync();
          }
        })(),
      );
    }
    for (const k of plan.kb) {
      loads.push(
        (async () => {
          if (!opts.kbRows) throw new SqlError(1235, 'Knowledge bases are not available in this server');
          const conn = await local.connect();
          try {
            kbState.set(k, await loadSearch(conn, schema, k, opts.kbRows, opts.signal));
          } finally {
            conn.closeSync();
          }
        })(),
      );
    }
    const results = await Promise.allSettled(loads);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    if (failed) throw failed.reason;
  } catch (e) {
    await Promise.all(streams.map((s) => s.cancel().catch(() => {})));
    await drop().catch(() => {});
    throw localError(e, opts.signal);
  }
  const conn = await local.connect();
  let inner: QueryStream;
  try {
    // Fragments are named unqualified in the local SQL; the search path finds this query's.
    await conn.run(`SET search_path = '${schema},main'`);
    const batched = plan.kb.find((k) => k.k.kind === 'batches');
    inner = batched
      ? await untilComplete(local, conn, schema, plan.localSql, batched, kbState.get(batched)!, opts)
      : await local.query(conn, plan.localSql, true, opts.signal);
  } catch (e) {
    await drop().catch(() => {});
    throw e;
  }
  let dropped = false;
  const cleanup = async () => {
    if (dropped) return;
    dropped = true;
    await drop().catch(() => {});
  };
  async function* batches() {
    try {
      for await (const b of inner.batches) yield b;
    } finally {
      await cleanup();
    }
  }
  return {
    columns: inner.columns,
    batches: batches(),
    cancel: async () => {
      await inner.cancel();
      await cleanup();
    },
  };
}

/**
 * A statement over a search fetched in growing batches (kb-k.ts): run it; when it yields
 * fewer rows than its LIMIT and the search has more hits, fetch BATCH_GROWTH times more and
 * run it again. Its rows are ordered by rank, so once it has its rows, hits further down
 * cannot change them.
 */
async function untilComplete(
  local: LocalEngine,
  conn: DuckDBConnection,
  schema: string,
  sql: string,
  k: KbPart,
  state: { limit: number | null; exhausted: boolean },
  opts: RunOptions,
): Promise<QueryStream> {
  const want = k.k.kind === 'batches' ? k.k.want : 0;
  try {
    return await batches();
  } catch (e) {
    conn.closeSync();
    throw e;
  }
  async function batches(): Promise<QueryStream> {
    for (;;) {
      const stream = await local.query(conn, sql, false, opts.signal);
      const rows: Row[] = [];
      for await (const b of stream.batches) rows.push(...b);
      if (rows.length >= want || state.exhausted || state.limit === null) {
        conn.closeSync();
        return { columns: stream.columns, batches: one(rows), cancel: async () => {} };
      }
      const next = nextLimit(k, state.limit);
      if (next === null)
        throw tooMany(k.ref.table, `the LIMIT ${want} needs more than ${k.maxResults} hits`, k.maxResults);
      const hits = await fetchHits(k, next, opts.kbRows!, opts.signal);
      state.limit = next;
      state.exhausted = hits.exhausted;
      await loadHits(conn, schema, k, hits, null);
    }
  }
}

/**
 * The probe fragment's SQL narrowed to the build side's join keys, or as planned when the
 * keys are too many (or the build side failed: its error is the statement's).
 */
async function narrowed(
  local: LocalEngine,
  schema: string,
  plan: LocalPlan,
  d: DynamicFilter,
): Promise<string> {
  const probe = plan.fragments[d.probe];
  const build = plan.fragments[d.build];
  const conn = await local.connect();
  try {
    const col = dq(d.buildColumn);
    const reader = await conn.runAndReadAll(
      `SELECT DISTINCT ${col} FROM ${dq(schema)}.${dq(build.temp)} WHERE ${col} IS NOT NULL LIMIT ${d.maxKeys + 1}`,
    );
    const keys = reader.getRowsJS().map((r) => r[0]);
    if (keys.length > d.maxKeys) return probe.sql;
    // No key at all: the join is empty, and an empty IN list is not SQL; the planned SQL stays.
    if (keys.length === 0) return probe.sql;
    return probe.withKeys(d.probeColumn, keys) ?? probe.sql;
  } catch {
    return probe.sql;
  } finally {
    conn.closeSync();
  }
}

/**
 * MySQL's 1104 for a fragment past query.max_fragment_rows: a cross-source statement that
 * would pull that much into the local engine is almost always a missing join condition.
 */
async function checkFragmentRows(
  local: LocalEngine,
  schema: string,
  f: Fragment,
  max: number,
): Promise<void> {
  const conn = await local.connect();
  try {
    const r = await conn.runAndReadAll(`SELECT count(*) FROM ${dq(schema)}.${dq(f.temp)}`);
    if (Number(r.getRowsJS()[0][0]) <= max) return;
  } finally {
    conn.closeSync();
  }
  const table = f.ref.schema ? `${f.ref.schema}.${f.ref.table}` : f.ref.table;
  throw new SqlError(
    1104,
    `The SELECT would read more than ${max} rows of '${f.source.name}.${table}' into the local engine (query.max_fragment_rows); add a filter or a join condition, or raise the limit`,
  );
}

/**
 * A fragment the source can write as CSV itself (PostgreSQL COPY). The CSV goes through a
 * named pipe so DuckDB parses while the source is still sending: no row passes through JS
 * and the two overlap. Where a pipe cannot be made, a temp file is used instead.
 */
async function loadViaCsv(
  local: LocalEngine,
  schema: string,
  f: Fragment,
  signal?: AbortSignal,
  readOnly?: boolean,
): Promise<void> {
  const fields = f.columnInfo.map((c) => ({ name: c.name, type: c.type, ...decimalOf(c.nativeType) }));
  const load = async (path: string) => {
    const conn = await local.connect();
    try {
      await loadCsvFile(conn, schema, f.temp, fields, path, { hexBinary: f.source.dialect === 'postgres' });
    } finally {
      conn.closeSync();
    }
  };
  const slot = await pipeSlots.acquire(signal);
  const fifo = slot ? await takeFifo(local.tempDir) : null;
  if (!fifo) {
    if (slot) pipeSlots.release();
    const path = join(local.tempDir, `${schema}_${f.temp}.csv`);
    try {
      await f.source.exportCsv!(f.sql, createWriteStream(path), { signal, readOnly });
      await load(path);
    } finally {
      await rm(path, { force: true });
    }
    return;
  }
  const writer = createWriteStream(fifo);
  // A failed export must end the pipe, or DuckDB reads it for ever (a source whose pool is
  // full fails before writing anything).
  const exported = f.source.exportCsv!(f.sql, writer, { signal, readOnly }).catch((err) => {
    writer.destroy();
    throw err;
  });
  // DuckDB may fail before it opens the pipe: then release the writer still waiting on it.
  const loaded = load(fifo).catch(async (err) => {
    await unblockWriter(fifo);
    throw err;
  });
  let settled: [PromiseSettledResult<void>, PromiseSettledResult<void>];
  try {
    settled = await Promise.allSettled([exported, loaded]);
  } finally {
    pipeSlots.release();
  }
  const [e, l] = settled;
  if (e.status === 'fulfilled' && l.status === 'fulfilled') {
    keepFifo(local.tempDir, fifo);
    return;
  }
  await rm(fifo, { force: true });
  if (e.status === 'rejected') throw e.reason;
  throw (l as PromiseRejectedResult).reason;
}

/**
 * Named pipes kept for the next fragment, per directory: making one spawns `mkfifo`, which
 * held the event loop about 20 ms per fragment. A pipe is kept only after a load that read
 * it to its end with the writer closed, so it holds nothing; after a failure it is removed
 * (bytes left in it would be the next reader's). Before reuse it must still be a pipe: were
 * it a plain file, DuckDB would read it while it is being written and stop short.
 */
const idleFifos = new Map<string, string[]>();
let fifoSeq = 0;

async function takeFifo(dir: string): Promise<string | null> {
  const idle = idleFifos.get(dir) ?? [];
  for (let p = idle.pop(); p; p = idle.pop()) {
    const st = await lstat(p).catch(() => null);
    if (st?.isFIFO() && !(await hasReader(p))) return p;
    await rm(p, { force: true });
  }
  const path = join(dir, `pipe-${process.pid}-${++fifoSeq}.fifo`);
  return (await makeFifo(path)) ? path : null;
}

function keepFifo(dir: string, path: string): void {
  const idle = idleFifos.get(dir);
  if (idle) idle.push(path);
  else idleFifos.set(dir, [path]);
}

/**
 * At most two fragments stream through pipes at once. A DuckDB reader blocked on a pipe
 * holds one of libuv's four pool threads, and the writer's file writes need pool threads
 * too: with more pipes than that, readers and writers wait on each other for ever. Two
 * leaves the pool room to make progress; fragments beyond it wait for a slot, or use a
 * temp file when they have waited long enough.
 */
class PipeSlots {
  private free = 2;
  private readonly waiting: (() => void)[] = [];
  /** True when a slot was taken; false after waiting `ms` (then the caller uses a temp file). */
  async acquire(signal?: AbortSignal, ms = 50): Promise<boolean> {
    if (this.free > 0) {
      this.free--;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(
        () => {
          const i = this.waiting.indexOf(wake);
          if (i >= 0) this.waiting.splice(i, 1);
          resolve(false);
        },
        signal?.aborted ? 0 : ms,
      );
      this.waiting.push(wake);
    });
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

const pipeSlots = new PipeSlots();

/** Node has no mkfifo(); the command runs without blocking the event loop (a sync spawn held it ~8 ms). */
function makeFifo(path: string): Promise<boolean> {
  return new Promise((resolve) => execFile('mkfifo', ['-m', '600', path], (err) => resolve(!err)));
}

/**
 * Whether a kept pipe still has a reader. DuckDB opens files without O_CLOEXEC, so a child
 * process spawned while it read a pipe (`mkfifo` for another fragment, any tool the
 * process runs) inherits the read end and may outlive the load: the next writer would then
 * pair with that stray reader, write into it and finish, and DuckDB would wait on the empty
 * pipe for ever (seen as a hang about one cross-source statement in five while a child
 * process was starting). A non-blocking open for writing succeeds only when some reader
 * holds the pipe open.
 */
async function hasReader(path: string): Promise<boolean> {
  try {
    const h = await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
    await h.close();
    return true;
  } catch {
    // ENXIO: no reader
    return false;
  }
}

async function unblockWriter(path: string): Promise<void> {
  try {
    const h = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    await h.close();
  } catch {
    // nothing waiting
  }
}

/** Precision and scale of `numeric(p,s)` / `decimal(p,s)`, when the type says them. */
function decimalOf(nativeType: string): { precision?: number; scale?: number } {
  const m = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(nativeType);
  return m ? { precision: Number(m[1]), scale: Number(m[2] ?? 0) } : {};
}

async function* one(rows: Row[]): AsyncGenerator<Row[]> {
  yield rows;
}

const TEXT_TYPES = new Set<MysqlType>(['CHAR', 'VARCHAR', 'TEXT']);
const NARROW_INTS = new Set<MysqlType>(['TINYINT', 'SMALLINT', 'INT']);

/** Whether a column the source reported as `from` takes the type the statement settles. */
function takes(from: MysqlType, to: ResultType['type']): boolean {
  return to === 'BIGINT' ? NARROW_INTS.has(from) : TEXT_TYPES.has(from);
}

/**
 * MySQL's type for columns the statement settles (infer.ts resultTypes): JSON and TIME
 * computed as text, BIGINT for integer arithmetic a source reported narrower. Values are
 * unchanged: each is already the canonical value of the new type.
 */
function retyped(stream: QueryStream, types: ResultType[]): QueryStream {
  const n = stream.columns.length;
  const want = new Map(types.map((t) => [t.at < 0 ? n + t.at : t.at, t.type]));
  let changed = false;
  const columns = stream.columns.map((c, i) => {
    const to = want.get(i);
    if (!to || !takes(c.type, to)) return c;
    changed = true;
    return { ...c, type: to };
  });
  if (!changed) return stream;
  return { columns, batches: stream.batches, cancel: () => stream.cancel() };
}
