import { ErrorCode, SqlError } from '../../core/errors.js';
import { tableName } from '../../core/sql-text.js';
import type { ColumnInfo, DialectName } from '../../core/types.js';
import type { Source } from '../../sources/types.js';
import type { ColumnRef, Expr, FromItem, SqlStatement, TableItem } from '../ast/nodes.js';
import { clone, columnRefs, nameOf, tableItems, visit } from '../ast/walk.js';
import { displayName } from '../dialects/display.js';
import { canCompile, compile, UnsupportedError } from '../dialects/index.js';
import { type ResultType, resultTypes } from '../dialects/infer.js';
import type { CompileOptions } from '../dialects/types.js';
import type { BoundRef } from './bind.js';
import { ColumnLookup, type LookupTable } from './column-lookup.js';
import { planDynamicFilters } from './dynamic-filters.js';
import { fragmentAst, guaranteedLimit, negotiateFilters } from './fragments.js';
import { orderByRank, planKbSearch, selectBlocks } from './kb-search.js';
import { literalComparedColumns, textColumnsOf } from './known-values.js';
import { hasNaturalJoin, resolveNaturalJoins } from './natural.js';
import { resultOrigins } from './origins.js';
import type { Fragment, KbPart, Plan, PlanLookup } from './plan-types.js';

export { ColumnLookup } from './column-lookup.js';
export type { DynamicFilter, Fragment, Plan, PlanLookup } from './plan-types.js';

/**
 * Compile for a target. Bound table items carry `db: null` by now; the remaining
 * schema/table pair is named the way the source itself names it. Column types and real
 * spellings come from the tables' metadata when the planner has it.
 */
export function compileFor(ast: SqlStatement, dialect: DialectName, columns?: ColumnLookup): string {
  return compile(
    ast,
    dialect,
    columns
      ? compileOpts(dialect, columns)
      : { tableName: (ref) => tableName(dialect, ref.schema ?? null, ref.table) },
  );
}

/** `compileFor`, or null when the target cannot say the statement (compiled once either way). */
export function tryCompileFor(ast: SqlStatement, dialect: DialectName): string | null {
  try {
    return compileFor(ast, dialect);
  } catch (e) {
    if (e instanceof UnsupportedError) return null;
    throw e;
  }
}

/**
 * Decide what each source runs and what runs locally. One SQL source holding every
 * table whose dialect can say the statement: push it all down. Otherwise each source
 * table becomes a fragment (fragments.ts: the columns still needed, the filters its source
 * agreed to, a limit where guaranteed) loaded into the local DuckDB, where the rest runs.
 */
export async function planQuery(ast: SqlStatement, refs: BoundRef[], lookup: PlanLookup): Promise<Plan> {
  const sourceRefs = refs.filter((r) => r.kind === 'source');
  const info = refs.filter((r) => r.kind === 'information_schema');
  const names = new Set(sourceRefs.map((r) => r.source!.toLowerCase()));
  const sources = new Map<string, Source>();
  for (const n of names) sources.set(n, await lookup.source(n));
  const sourceOf = (r: BoundRef) => sources.get(r.source!.toLowerCase())!;
  // Each search takes its part of its own block (question, conditions, ranking; kb-search.ts).
  const kb = await planKbParts(ast, refs, sourceRefs, sourceOf, lookup);
  if (hasNaturalJoin(ast)) {
    for (const s of sources.values()) if (s.dialect === null) throw notSql(s);
    const tables = await lookupTables(ast, sourceRefs, sourceOf, lookup);
    const byNode = new Map<FromItem, number>(sourceRefs.map((r) => [r.node, r.index]));
    resolveNaturalJoins(ast, (item) => {
      const i = byNode.get(item);
      return i === undefined ? null : tables.get(i)!.cols.map((c) => c.name);
    });
  }

  if (names.size === 1 && info.length === 0 && kb.length === 0) {
    const source = sources.values().next().value!;
    if (source.dialect === null) throw notSql(source);
    if (source.capabilities.fullStatements) {
      const tables = await lookupTables(ast, sourceRefs, sourceOf, lookup);
      const retype = retypes(ast);
      const origins = resultOrigins(ast, sourceRefs, tables, (r) => sourceOf(r).name);
      // Compiled in place, the tables named as the source names them; put back if it cannot say it.
      const dbs = sourceRefs.map((r) => r.node.db);
      for (const r of sourceRefs) r.node.db = null;
      const sql = tryCompile(
        ast,
        source.dialect,
        compileOpts(source.dialect, new ColumnLookup([...tables.values()]), source.collation),
      );
      if (sql !== null) return { kind: 'pushdown', source, sql, retype, origins };
      sourceRefs.forEach((r, i) => {
        r.node.db = dbs[i];
      });
    }
  }

  // No table at all (`SELECT NOW()`, a recursive CTE of constants): a MySQL default database
  // answers it natively; anything else is evaluated locally.
  if (names.size === 0 && info.length === 0 && kb.length === 0 && lookup.defaultSource) {
    const s = await lookup.defaultSource();
    if (s?.dialect === 'mysql' && s.capabilities.fullStatements && canCompile(ast, 'mysql').ok) {
      return { kind: 'pushdown', source: s, sql: compileFor(ast, 'mysql'), retype: retypes(ast) };
    }
  }
  for (const s of sources.values()) if (s.dialect === null) throw notSql(s);

  const tables = await lookupTables(ast, sourceRefs, sourceOf, lookup);
  checkColumns(ast, refs, sourceRefs, tables, kb);
  const origins = resultOrigins(ast, sourceRefs, tables, (r) => sourceOf(r).name);
  const local = clone(ast);
  const byIndex = new Map(sourceRefs.map((r) => [r.index, sourceOf(r)]));
  const drafts = negotiateFilters(
    ast,
    local,
    sourceRefs,
    tables,
    byIndex,
    (s, l) => compileOpts(s.dialect!, l, s.collation),
    (t) => new ColumnLookup([t]),
  );
  const everything = wholeRows(ast);
  const using = usingColumns(ast);
  const localRefs = columnRefs(local);
  const fragments: Fragment[] = drafts.map((d) => {
    const r = d.ref;
    const dialect = d.source.dialect!;
    const mine = new ColumnLookup([d.table]);
    const opts = compileOpts(dialect, mine, d.source.collation);
    d.limit = guaranteedLimit(ast, local, d, sourceRefs.length + info.length + kb.length);
    const columns = neededColumns(d.table, localRefs, using, everything || !d.source.capabilities.projection);
    const sql = compile(fragmentAst(r, columns, d.filters, d.limit), dialect, opts);
    return {
      ref: r,
      source: d.source,
      sql,
      temp: `__f${r.index}`,
      columns,
      columnInfo: columns.map((n) => d.table.cols.find((c) => c.name === n)!),
      filters: d.agreed,
      limit: d.limit,
      withKeys: (column, keys) =>
        tryCompile(
          fragmentAst(r, columns, [...d.filters, keysFilter(r.qualifier, column, keys)], d.limit),
          dialect,
          opts,
        ),
    };
  });
  const localItems = tableItems(local);
  for (const f of fragments) renameLocal(localItems[f.ref.index], f.temp, f.ref.qualifier);
  for (const r of info) renameLocal(localItems[r.index], `__info_${r.table.toLowerCase()}`, r.qualifier);
  for (const k of kb) renameLocal(localItems[k.ref.index], k.temp, k.ref.qualifier);
  // Fragments and catalog rows land in the local engine as tables: rowid gives their order.
  const localLookup = new ColumnLookup([
    ...fragments.map((f) => ({ ...tables.get(f.ref.index)!, table: f.temp, rowMarker: 'rowid' })),
    ...info.map((r) => ({
      qualifier: r.qualifier,
      table: `__info_${r.table.toLowerCase()}`,
      cols: [],
      rowMarker: 'rowid',
    })),
    ...kb.map((k) => ({ qualifier: k.ref.qualifier, table: k.temp, cols: k.columns, rowMarker: 'rowid' })),
  ]);
  // A block that reads a search and does not order its rows returns them in relevance order.
  const blocks = selectBlocks(local);
  for (const k of kb) if (k.order !== null) orderByRank(blocks[k.order].block, k.ref.qualifier);
  // The local engine keeps MySQL's collation unless every source of the statement chose its own.
  const all = [...sources.values()];
  const localCollation = all.length > 0 && all.every((s) => s.collation === 'source') ? 'source' : 'mysql';
  const localOpts = compileOpts('duckdb', localLookup, localCollation);
  for (const k of kb) if (k.conds.length) k.prefilter = compile(prefilterAst(k), 'duckdb', localOpts);
  // Compiled once: the text, or why the local engine cannot say it.
  let localSql: string;
  try {
    localSql = compile(local, 'duckdb', localOpts);
  } catch (e) {
    if (!(e instanceof UnsupportedError)) throw e;
    const only = sources.size === 1 ? sources.values().next().value! : null;
    throw new SqlError(
      ErrorCode.NOT_SUPPORTED,
      only
        ? `Not supported: ${e.reason} (neither source '${only.name}' (${only.engine}) nor the local engine can run it)`
        : `Not supported across sources: ${e.reason}`,
    );
  }
  return {
    kind: 'local',
    fragments,
    info,
    kb: kb.map(({ order: _o, conds: _c, ...k }) => k),
    localSql,
    dynamic: planDynamicFilters(ast, fragments),
    retype: retypes(ast),
    origins,
  };
}

/** A KB's part as planned, before its local texts are compiled. */
type KbDraft = KbPart & { order: number | null; conds: Expr[] };

/** Each knowledge base of the statement planned as a search of its own block (kb-search.ts). */
async function planKbParts(
  ast: SqlStatement,
  refs: BoundRef[],
  sourceRefs: BoundRef[],
  sourceOf: (r: BoundRef) => Source,
  lookup: PlanLookup,
): Promise<KbDraft[]> {
  const kbRefs = refs.filter((r) => r.kind === 'kb');
  if (kbRefs.length === 0) return [];
  const kb = lookup.kb;
  if (!kb) throw new SqlError(ErrorCode.NOT_SUPPORTED, 'Knowledge bases are not available in this server');
  // Columns of the other tables, so an unqualified column is known to be the KB's or not.
  const known = new Map<FromItem, ColumnInfo[]>();
  await Promise.all([
    ...kbRefs.map(async (r) => known.set(r.node, await kb.columns(r.table))),
    ...sourceRefs.map(async (r) =>
      known.set(r.node, await lookup.columns(sourceOf(r), r.schema, r.table).catch(() => [])),
    ),
  ]);
  return kbRefs.map((r) => {
    const columns = known.get(r.node)!;
    const p = planKbSearch(ast, r, refs, {
      columns,
      support: (c) => kb.filterSupport(r.table, c),
      maxResults: kb.maxResults,
      columnsOf: (item) => known.get(item) ?? null,
    });
    return {
      ref: r,
      temp: `__kb${r.index}`,
      search: p.search,
      queries: p.queries,
      k: p.k,
      pushed: p.pushed,
      columns,
      maxResults: kb.maxResults,
      prefilter: null,
      local: p.prefilter.map((c) => displayName(c)),
      conds: p.prefilter,
      order: p.orderBlock,
    };
  });
}

/** `SELECT * FROM <temp>__hits AS q WHERE <conds> ORDER BY q.rowid`: the hits that pass, in rank order. */
function prefilterAst(k: KbDraft): SqlStatement {
  const ast = fragmentAst({ ...k.ref, schema: null, table: `${k.temp}__hits` }, ['*'], k.conds, null);
  orderByRank(ast, k.ref.qualifier);
  return ast;
}

function retypes(ast: SqlStatement): ResultType[] | undefined {
  const out = ast.type === 'select' && !ast._next ? resultTypes(ast.columns) : [];
  return out.length ? out : undefined;
}

function notSql(source: Source): SqlError {
  return new SqlError(
    ErrorCode.NOT_SUPPORTED,
    `Source '${source.name}' is a ${source.engine} source: SQL is not supported; call POST /api/integrations/${source.name}/passthrough`,
  );
}

/** Each source table's columns, and the known spellings of the text columns compared with literals. */
async function lookupTables(
  ast: SqlStatement,
  refs: BoundRef[],
  sourceOf: (r: BoundRef) => Source,
  lookup: PlanLookup,
): Promise<Map<number, LookupTable>> {
  const tables = new Map<number, LookupTable>();
  // Each table once, however many times the statement names it (a 300-member UNION of one table).
  const asked = new Map<string, Promise<[ColumnInfo[], string | null]>>();
  const ask = (source: Source, r: BoundRef) => {
    const key = `${source.name}\u0000${r.schema ?? ''}\u0000${r.table}`;
    let p = asked.get(key);
    if (!p) {
      p = Promise.all([
        lookup.columns(source, r.schema, r.table),
        source.rowMarker && lookup.tableType ? lookup.tableType(source, r.schema, r.table) : null,
      ]);
      asked.set(key, p);
    }
    return p;
  };
  await Promise.all(
    refs.map(async (r) => {
      const source = sourceOf(r);
      const [cols, type] = await ask(source, r);
      const rowMarker = type === 'BASE TABLE' ? source.rowMarker : undefined;
      tables.set(r.index, { qualifier: r.qualifier, table: r.table, cols, rowMarker });
    }),
  );
  const compared = literalComparedColumns(ast);
  if (compared.length && lookup.knownValues) {
    const all = [...tables.values()];
    await Promise.all(
      refs.map(async (r) => {
        const source = sourceOf(r);
        const t = tables.get(r.index)!;
        const cols = source.knownValues ? textColumnsOf(t, all, compared) : [];
        if (cols.length) t.known = await lookup.knownValues!(source, r.schema, r.table, cols);
      }),
    );
  }
  return tables;
}

/** A qualified column that names a table of the statement but none of its columns. */
function checkColumns(
  ast: SqlStatement,
  refs: BoundRef[],
  sourceRefs: BoundRef[],
  tables: Map<number, LookupTable>,
  kb: KbDraft[],
): void {
  for (const c of columnRefs(ast)) {
    const q = nameOf(c.table)?.toLowerCase();
    const col = nameOf(c.column) ?? '';
    if (!q || col === '*') continue;
    const owners = refs.filter((r) => r.qualifier.toLowerCase() === q);
    if (owners.length !== 1) continue;
    const search = kb.find((k) => k.ref === owners[0]);
    if (search && !search.columns.some((x) => x.name.toLowerCase() === col.toLowerCase()))
      throw new SqlError(
        ErrorCode.UNKNOWN_COLUMN,
        `Unknown column '${owners[0].qualifier}.${col}': knowledge base '${search.ref.table}' has the columns ${search.columns.map((x) => x.name).join(', ')}`,
      );
    if (!sourceRefs.includes(owners[0])) continue;
    const r = owners[0];
    if (!tables.get(r.index)!.cols.some((x) => x.name.toLowerCase() === col.toLowerCase()))
      throw new SqlError(
        ErrorCode.UNKNOWN_COLUMN,
        `Unknown column '${r.qualifier}.${col}': table ${r.source}.${r.table} has no such column`,
      );
  }
}

/** `SELECT *` and NATURAL JOIN read every column of every table. */
function wholeRows(ast: SqlStatement): boolean {
  if (columnRefs(ast).some((c) => nameOf(c.column) === '*' && !nameOf(c.table))) return true;
  return tableItems(ast).some((n) => /NATURAL/i.test(String(n.join ?? '')));
}

/** Column names of every USING list (lower case). */
function usingColumns(ast: SqlStatement): Set<string> {
  const out = new Set<string>();
  visit(ast, (n) => {
    if (Array.isArray(n.using)) for (const u of n.using) out.add(String(u).toLowerCase());
  });
  return out;
}

/** The columns of `table` the local statement reads, in the table's order. */
function neededColumns(
  table: LookupTable,
  refs: ColumnRef[],
  using: Set<string>,
  everything: boolean,
): string[] {
  if (everything) return table.cols.map((c) => c.name);
  const q = table.qualifier.toLowerCase();
  const byLower = new Map(table.cols.map((c) => [c.name.toLowerCase(), c.name]));
  const needed = new Set<string>();
  for (const c of refs) {
    const t = nameOf(c.table)?.toLowerCase() ?? null;
    const col = nameOf(c.column) ?? '';
    if (t === q && col === '*') for (const x of table.cols) needed.add(x.name);
    else if ((t === q || t === null) && byLower.has(col.toLowerCase()))
      needed.add(byLower.get(col.toLowerCase())!);
  }
  for (const u of using) if (byLower.has(u)) needed.add(byLower.get(u)!);
  return table.cols.map((c) => c.name).filter((n) => needed.has(n));
}

/** `qualifier.column IN (keys)` as an AST conjunct (numbers and strings only; others are never keys). */
function keysFilter(qualifier: string, column: string, keys: unknown[]): Expr {
  return {
    type: 'binary_expr',
    operator: 'IN',
    left: { type: 'column_ref', table: qualifier, column },
    right: {
      type: 'expr_list',
      value: keys.map(
        (k): Expr =>
          typeof k === 'string'
            ? { type: 'string', value: k }
            : { type: 'number', value: typeof k === 'bigint' ? k.toString() : Number(k) },
      ),
    },
  };
}

/** Compile once: the text, or null when the target cannot say the statement (compiling twice to ask first costs as much as compiling). */
function tryCompile(ast: SqlStatement, dialect: DialectName, opts: CompileOptions): string | null {
  try {
    return compile(ast, dialect, opts);
  } catch (e) {
    if (e instanceof UnsupportedError) return null;
    throw e;
  }
}

/** In the local statement a bound table becomes its loaded fragment, under the name the query uses. */
function renameLocal(node: TableItem, temp: string, qualifier: string): void {
  node.db = null;
  node.schema = null;
  node.table = temp;
  if (!node.as) node.as = qualifier;
}

function compileOpts(
  dialect: DialectName,
  columns: ColumnLookup,
  collation?: 'mysql' | 'source',
): CompileOptions {
  return {
    collation,
    tableName: (ref: { schema?: string | null; table: string }) =>
      tableName(dialect, ref.schema ?? null, ref.table),
    columnType: (ref: { table: string | null; column: string }) => columns.find(ref)?.type,
    columnName: (ref: { table: string | null; column: string }) => columns.find(ref)?.name ?? ref.column,
    knownValues: (ref: { table: string | null; column: string }) => columns.knownValues(ref),
    rowMarker: (ref: { table: string }) => columns.rowMarker(ref),
  };
}
