import { ErrorCode, SqlError } from '../../core/errors.js';
import { columnType, quoteIdent, tableName, valueLiteral } from '../../core/sql-text.js';
import type { DialectName } from '../../core/types.js';
import type { HeldConnection, Source, TableWrite } from '../../sources/types.js';
import type { SelectStmt, SqlStatement } from '../ast/nodes.js';
import { breathe } from '../breathe.js';
import type { ExecOptions, QueryContext } from '../engine-types.js';
import { type BoundRef, bindTables } from '../plan/bind.js';
import { compileFor, tryCompileFor } from '../plan/planner.js';
import { bindBinaryColumns } from './binary-values.js';
import type { ExecutionContext, Outcome } from './context.js';
import { runPlan } from './run-plan.js';

const BATCH = 500;

/**
 * INSERT/UPDATE/DELETE/CREATE TABLE against one source. When the statement reads
 * only that source it runs there whole; `INSERT INTO s.t SELECT` and `CREATE TABLE
 * s.t AS SELECT` may read other sources: the SELECT runs federated and its rows are
 * written in batches.
 */
export async function runWrite(
  engine: ExecutionContext,
  ast: SqlStatement,
  ctx: QueryContext,
  opts: ExecOptions,
  /** The statement's text length: a big one lets others run between binding and compiling. */
  size = 0,
): Promise<Outcome> {
  const kind = String(ast.type);
  if (ast.type === 'select' || ast.type === 'drop' || (ast.type === 'create' && ast.keyword !== 'table')) {
    throw new SqlError(ErrorCode.NOT_SUPPORTED, `Statement '${kind.toUpperCase()}' is not supported`);
  }
  const refs = bindTables(ast, ctx);
  const targetNode = ast.type === 'delete' ? (ast.from?.[0] ?? ast.table?.[0]) : ast.table?.[0];
  const target = refs.find((r) => r.node === targetNode) ?? refs.find((r) => r.kind === 'source');
  if (target?.kind !== 'source')
    throw new SqlError(ErrorCode.NOT_SUPPORTED, 'Writes need a table in a data source (source.table)');
  const source = await engine.sources.get(target.source!);
  if (!source.dialect)
    throw new SqlError(
      ErrorCode.NOT_SUPPORTED,
      `Source '${source.name}' is a ${source.engine} source: SQL is not supported; call POST /api/integrations/${source.name}/passthrough`,
    );
  const others = refs.filter(
    (r) =>
      r.kind !== 'cte' && (r.kind !== 'source' || r.source!.toLowerCase() !== target.source!.toLowerCase()),
  );
  engine.forgetColumns();
  await breathe(size);
  const dialect = source.dialect;
  // Inside the caller's transaction the write runs on the connection held for it (1235 for a second source).
  const run = (held: HeldConnection | undefined) =>
    writeTo(engine, source, ast, ctx, opts, size, { kind, target, refs, others, dialect }, held);
  const outcome = await (opts.transaction
    ? opts.transaction.write(source, opts.signal, run)
    : run(undefined));
  // CREATE TABLE: the source's table list changed.
  if (ast.type === 'create') engine.schemaChanged();
  return outcome;
}

/** runWrite's work once its target source is known, on `held` when a transaction holds it. */
async function writeTo(
  engine: ExecutionContext,
  source: Source,
  ast: SqlStatement,
  ctx: QueryContext,
  opts: ExecOptions,
  size: number,
  bound0: { kind: string; target: BoundRef; refs: BoundRef[]; others: BoundRef[]; dialect: DialectName },
  held: HeldConnection | undefined,
): Promise<Outcome> {
  const { kind, target, refs, others, dialect } = bound0;
  if (others.length === 0) {
    // The statement runs at its source whole, its tables named as the source names them.
    if (source.dialect !== 'mysql')
      await bindBinaryColumns(ast, () => engine.columns(source, target.schema ?? null, target.table));
    const bound = refs.filter((r) => r.kind === 'source').map((r) => [r.node, r.node.db] as const);
    for (const [node] of bound) node.db = null;
    const write = tableWrite(ast, target.table, dialect);
    if (write) {
      const res = source.writeTable
        ? await source.writeTable(write, { signal: opts.signal, held })
        : await source.execute(write.kind === 'change' ? write.sql : compileFor(ast, dialect), {
            signal: opts.signal,
            held,
          });
      return { kind: 'ok', affected: res.affectedRows };
    }
    for (const [node, db] of bound) node.db = db;
  }

  const select: SelectStmt | null =
    ast.type === 'create'
      ? (ast.query_expr ?? null)
      : (ast.type === 'insert' || ast.type === 'replace') && ast.values?.type === 'select'
        ? ast.values
        : null;
  if (select?.type !== 'select') {
    const why = others.length ? 'it reads another source' : `the ${source.engine} dialect cannot express it`;
    throw new SqlError(
      ErrorCode.NOT_SUPPORTED,
      `${kind.toUpperCase()} on '${source.name}.${target.table}' is not supported: ${why}`,
    );
  }
  const plan = await engine.plan(select, ctx, size);
  // Its rows would come from the connection the batches below are written on, which runs one
  // statement at a time: refused rather than left waiting on itself.
  const readsTarget =
    plan.kind === 'pushdown' ? plan.source === source : plan.fragments.some((f) => f.source === source);
  if (held && readsTarget)
    throw new SqlError(
      ErrorCode.NOT_SUPPORTED,
      `${kind.toUpperCase()} on '${source.name}.${target.table}' is not supported inside a transaction: its SELECT reads '${source.name}' but cannot run there whole; run it outside a transaction (it is then written in batches), or in SQL the ${source.engine} source can run whole`,
    );
  const stream = await runPlan(plan, engine.local, engine.runOpts(opts));
  const table = tableName(dialect, target.schema, target.table);
  try {
    // Sources that store whole tables (files: Parquet) take the rows as one stream;
    // INSERT batches would rewrite the stored file once per batch.
    if (ast.type === 'create' && source.createTableFromStream) {
      const n = await source.createTableFromStream(target.table, stream.columns, stream.batches, {
        ifNotExists: !!ast.if_not_exists,
      });
      await stream.cancel().catch(() => {}); // IF NOT EXISTS on an existing table reads nothing
      return { kind: 'ok', affected: n };
    }
    if (ast.type === 'create') {
      const cols = stream.columns
        .map((c) => `${quoteIdent(dialect, c.name)} ${columnType(dialect, c.type)}`)
        .join(', ');
      const ine = ast.if_not_exists ? 'IF NOT EXISTS ' : '';
      await source.execute(`CREATE TABLE ${ine}${table} (${cols})`, { signal: opts.signal, held });
    }
    const names: string[] | null =
      (ast.type === 'insert' || ast.type === 'replace') && Array.isArray(ast.columns) && ast.columns.length
        ? ast.columns.map(String)
        : null;
    const colList = names
      ? ` (${names.map((n) => quoteIdent(dialect, n)).join(', ')})`
      : kind === 'create'
        ? ` (${stream.columns.map((c) => quoteIdent(dialect, c.name)).join(', ')})`
        : '';
    let total = 0;
    let pending: unknown[][] = [];
    const flush = async () => {
      if (!pending.length) return;
      const values = pending.map((r) => `(${r.map((v) => valueLiteral(dialect, v)).join(', ')})`).join(', ');
      await source.execute(`INSERT INTO ${table}${colList} VALUES ${values}`, { signal: opts.signal, held });
      total += pending.length;
      pending = [];
    };
    for await (const batch of stream.batches) {
      for (const row of batch) {
        pending.push(row);
        if (pending.length >= BATCH) await flush();
      }
    }
    await flush();
    return { kind: 'ok', affected: total };
  } catch (e) {
    await stream.cancel().catch(() => {});
    throw e;
  }
}

/**
 * The typed form of a write that reads only its target source (Source.writeTable), or null
 * when the source's dialect cannot say it. Each statement is compiled once.
 */
function tableWrite(whole: SqlStatement, table: string, dialect: DialectName): TableWrite | null {
  if (whole.type !== 'create') {
    const sql = tryCompileFor(whole, dialect);
    return sql === null ? null : { kind: 'change', table, sql };
  }
  const ifNotExists = !!whole.if_not_exists;
  if (whole.query_expr) {
    const select = tryCompileFor(whole.query_expr, dialect);
    return select === null ? null : { kind: 'create_as', table, ifNotExists, select };
  }
  if (tryCompileFor(whole, dialect) === null) return null;
  return {
    kind: 'create',
    table,
    ifNotExists,
    sqlFor: (name) => {
      const renamed = structuredClone(whole);
      if (renamed.table?.[0]) renamed.table[0].table = name;
      return compileFor(renamed, dialect);
    },
  };
}

export type { Source };
