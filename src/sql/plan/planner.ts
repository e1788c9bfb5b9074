import type { DialectName, Source } from '../../sources/types.js';
import { canCompile, compile, UnsupportedError } from '../dialects/index.js';
import { ErrorCode, SqlError } from '../errors.js';
import type { ColumnInfo } from '../types.js';
import {
  andAll,
  clone,
  columnRefs,
  conjuncts,
  hasAggregate,
  hasSubquery,
  nameOf,
  tableItems,
  visit,
} from './ast-walk.js';
import type { BoundRef } from './bind.js';
import { sourceTableText } from './target-names.js';

export interface Fragment {
  ref: BoundRef;
  source: Source;
  /** SQL in the source's dialect. */
  sql: string;
  /** Local temp table the fragment's rows land in. */
  temp: string;
  columns: string[];
  /** Metadata of `columns`, in order (for loaders that need types before the first row). */
  columnInfo: ColumnInfo[];
  pushedFilters: number;
}

export type Plan =
  | { kind: 'pushdown'; source: Source; sql: string }
  | { kind: 'local'; fragments: Fragment[]; info: BoundRef[]; localSql: string };

export interface PlanLookup {
  source(name: string): Promise<Source>;
  columns(source: Source, schema: string | null, table: string): Promise<ColumnInfo[]>;
  /** The default database (context.db / USE), if any: where a statement without tables may run. */
  defaultSource?(): Promise<Source | null>;
}

/**
 * Compile for a target. Bound table items carry `db: null` by now; the remaining
 * schema/table pair is named the way the source itself names it. Column types and real
 * spellings come from the tables' metadata when the planner has it.
 */
export function compileFor(ast: any, dialect: DialectName, columns?: ColumnLookup): string {
  return compile(
    ast,
    dialect,
    columns
      ? compileOpts(dialect, columns)
      : { tableName: (ref) => sourceTableText(dialect, ref.schema ?? null, ref.table) },
  );
}

/** Resolves a column reference to the metadata of the bound table that owns it. */
export class ColumnLookup {
  constructor(private readonly tables: { qualifier: string; cols: ColumnInfo[] }[]) {}
  find(ref: { table: string | null; column: string }): ColumnInfo | undefined {
    const col = ref.column.toLowerCase();
    if (ref.table) {
      const t = this.tables.find((x) => x.qualifier.toLowerCase() === ref.table!.toLowerCase());
      return t?.cols.find((c) => c.name.toLowerCase() === col);
    }
    let hit: ColumnInfo | undefined;
    for (const t of this.tables) {
      const c = t.cols.find((x) => x.name.toLowerCase() === col);
      if (c) {
        // The same table in a subquery (`WHERE x > (SELECT AVG(x) FROM t)`) repeats the name
        // in another scope; the lookup is flat, so only a real disagreement stays unknown.
        if (hit && (hit.type !== c.type || hit.name !== c.name)) return undefined;
        hit ??= c;
      }
    }
    return hit;
  }
}

/**
 * Decide what each source runs and what runs locally. One SQL source holding every
 * table whose dialect can say the statement: push it all down. Otherwise each source
 * table becomes a fragment (needed columns, its own WHERE conjuncts) loaded into the
 * local DuckDB, where the rest of the statement runs. Filters pushed to fragments are
 * re-checked locally (DataFusion's Inexact), so a fragment can never change the answer.
 */
export async function planQuery(ast: any, refs: BoundRef[], lookup: PlanLookup): Promise<Plan> {
  const sourceRefs = refs.filter((r) => r.kind === 'source');
  const info = refs.filter((r) => r.kind === 'information_schema');
  const names = new Set(sourceRefs.map((r) => r.source!.toLowerCase()));
  const sources = new Map<string, Source>();
  for (const n of names) sources.set(n, await lookup.source(n));

  if (names.size === 1 && info.length === 0) {
    const source = sources.values().next().value!;
    if (source.dialect === null) {
      throw new SqlError(
        ErrorCode.NOT_SUPPORTED,
        `Source '${source.name}' is a ${source.engine} source: SQL is not supported; call POST /api/integrations/${source.name}/passthrough`,
      );
    }
    if (source.capabilities.fullStatements) {
      const pushed = clone(ast);
      const items = tableItems(pushed);
      for (const r of sourceRefs) items[r.index].db = null;
      const lookup2 = new ColumnLookup(
        await Promise.all(
          sourceRefs.map(async (r) => ({
            qualifier: r.qualifier,
            cols: await lookup.columns(source, r.schema, r.table),
          })),
        ),
      );
      const dialect = source.dialect;
      const sql = tryCompile(pushed, dialect, compileOpts(dialect, lookup2));
      if (sql !== null) return { kind: 'pushdown', source, sql };
    }
  }

  // No table at all (`SELECT NOW()`, a recursive CTE of constants): a MySQL default database
  // answers it natively; anything else is evaluated locally.
  if (names.size === 0 && info.length === 0 && lookup.defaultSource) {
    const s = await lookup.defaultSource();
    if (s?.dialect === 'mysql' && s.capabilities.fullStatements && canCompile(ast, 'mysql').ok) {
      return { kind: 'pushdown', source: s, sql: compileFor(ast, 'mysql') };
    }
  }

  for (const s of sources.values()) {
    if (s.dialect === null)
      throw new SqlError(
        ErrorCode.NOT_SUPPORTED,
        `Source '${s.name}' is a ${s.engine} source: SQL is not supported; call POST /api/integrations/${s.name}/passthrough`,
      );
  }

  const colsByRef = new Map<number, ColumnInfo[]>();
  for (const r of sourceRefs) {
    colsByRef.set(r.index, await lookup.columns(sources.get(r.source!.toLowerCase())!, r.schema, r.table));
  }
  const refsUsed = columnRefs(ast);
  const starAll = refsUsed.some((c) => nameOf(c.column) === '*' && !nameOf(c.table));
  const naturalOrUsing = tableItems(ast).some((n) => /NATURAL/i.test(String(n.join ?? '')));
  const using = new Set<string>();
  visit(ast, (n) => {
    if (Array.isArray(n.using)) for (const u of n.using) using.add(String(nameOf(u)).toLowerCase());
  });

  const fragments: Fragment[] = [];
  const local = clone(ast);
  const localItems = tableItems(local);
  const topWhere = ast.type === 'select' ? conjuncts(ast.where) : [];
  const topFrom: any[] = ast.type === 'select' && Array.isArray(ast.from) ? ast.from : [];
  const hasRightOrFull = topFrom.some((n) => /RIGHT|FULL/i.test(String(n.join ?? '')));

  for (const r of sourceRefs) {
    const source = sources.get(r.source!.toLowerCase())!;
    const dialect = source.dialect!;
    const cols = colsByRef.get(r.index)!;
    const q = r.qualifier.toLowerCase();
    const needed = new Set<string>();
    const byLower = new Map(cols.map((c) => [c.name.toLowerCase(), c.name]));
    const all = starAll || naturalOrUsing;
    for (const c of refsUsed) {
      const t = nameOf(c.table)?.toLowerCase() ?? null;
      const col = nameOf(c.column) ?? '';
      if (t === q) {
        if (col === '*') for (const x of cols) needed.add(x.name);
        else if (byLower.has(col.toLowerCase())) needed.add(byLower.get(col.toLowerCase())!);
        else if (ownsQualifier(refs, r, q))
          throw new SqlError(
            ErrorCode.UNKNOWN_COLUMN,
            `Unknown column '${r.qualifier}.${col}': table ${r.source}.${r.table} has no such column`,
          );
      } else if (t === null && byLower.has(col.toLowerCase())) needed.add(byLower.get(col.toLowerCase())!);
    }
    for (const u of using) if (byLower.has(u)) needed.add(byLower.get(u)!);
    if (all) for (const x of cols) needed.add(x.name);
    const columns = cols.map((c) => c.name).filter((n) => needed.has(n));

    // WHERE conjuncts that touch only this table, when it is not on an outer join's null side.
    const nullSide =
      /LEFT|RIGHT|FULL/i.test(String(r.node.join ?? '')) || (hasRightOrFull && topFrom.indexOf(r.node) >= 0);
    const inTop = topFrom.includes(r.node);
    const pushed: any[] = [];
    const mineLookup = new ColumnLookup([{ qualifier: r.qualifier, cols }]);
    if (inTop && !nullSide) {
      for (const cj of topWhere) {
        if (hasSubquery(cj) || hasAggregate(cj)) continue;
        const crs = columnRefs(cj);
        if (crs.length === 0) continue;
        const mine = crs.every((c) => {
          const t = nameOf(c.table)?.toLowerCase() ?? null;
          const col = (nameOf(c.column) ?? '').toLowerCase();
          if (t !== null) return t === q && byLower.has(col);
          return byLower.has(col) && !otherHas(sourceRefs, colsByRef, r, col);
        });
        if (!mine) continue;
        const probe = fragmentAst(r, columns, [...pushed, clone(cj)]);
        if (canCompile(probe, dialect, compileOpts(dialect, mineLookup)).ok) pushed.push(clone(cj));
      }
    }
    const fast = fragmentAst(r, columns, pushed);
    const temp = `__f${r.index}`;
    fragments.push({
      ref: r,
      source,
      sql: compileFor(fast, dialect, mineLookup),
      temp,
      columns,
      columnInfo: columns.map((n) => cols.find((c) => c.name === n)!),
      pushedFilters: pushed.length,
    });
    renameLocal(localItems[r.index], temp, r.qualifier);
  }
  for (const r of info) {
    renameLocal(localItems[r.index], `__info_${r.table.toLowerCase()}`, r.qualifier);
  }
  const localLookup = new ColumnLookup(
    sourceRefs.map((r) => ({ qualifier: r.qualifier, cols: colsByRef.get(r.index)! })),
  );
  const check = canCompile(local, 'duckdb', compileOpts('duckdb', localLookup));
  if (!check.ok) {
    const only = sources.size === 1 ? sources.values().next().value! : null;
    throw new SqlError(
      ErrorCode.NOT_SUPPORTED,
      only
        ? `Not supported: ${check.reason} (neither source '${only.name}' (${only.engine}) nor the local engine can run it)`
        : `Not supported across sources: ${check.reason}`,
    );
  }
  return { kind: 'local', fragments, info, localSql: compileFor(local, 'duckdb', localLookup) };
}

function ownsQualifier(refs: BoundRef[], r: BoundRef, q: string): boolean {
  return refs.filter((x) => x.qualifier.toLowerCase() === q).length === 1 && r.qualifier.toLowerCase() === q;
}

function otherHas(refs: BoundRef[], cols: Map<number, ColumnInfo[]>, r: BoundRef, col: string): boolean {
  return refs.some((x) => x !== r && (cols.get(x.index) ?? []).some((c) => c.name.toLowerCase() === col));
}

/** Compile once: the text, or null when the target cannot say the statement (compiling twice to ask first costs as much as compiling). */
function tryCompile(ast: any, dialect: DialectName, opts: ReturnType<typeof compileOpts>): string | null {
  try {
    return compile(ast, dialect, opts);
  } catch (e) {
    if (e instanceof UnsupportedError) return null;
    throw e;
  }
}

/** In the local statement a bound table becomes its loaded fragment, under the name the query uses. */
function renameLocal(node: any, temp: string, qualifier: string): void {
  node.db = null;
  node.schema = null;
  node.table = temp;
  if (!node.as) node.as = qualifier;
}

function compileOpts(dialect: DialectName, columns: ColumnLookup) {
  return {
    tableName: (ref: { schema?: string | null; table: string }) =>
      sourceTableText(dialect, ref.schema ?? null, ref.table),
    columnType: (ref: { table: string | null; column: string }) => columns.find(ref)?.type,
    columnName: (ref: { table: string | null; column: string }) => columns.find(ref)?.name ?? ref.column,
  };
}

function fragmentAst(r: BoundRef, columns: string[], where: any[]): any {
  const cols = columns.length
    ? columns.map((c) => ({ expr: { type: 'column_ref', table: null, column: c }, as: null }))
    : [{ expr: { type: 'number', value: 1 }, as: '__row' }];
  return {
    with: null,
    type: 'select',
    options: null,
    distinct: null,
    columns: cols,
    from: [{ db: null, schema: r.schema, table: r.table, as: r.qualifier }],
    where: where.length ? andAll(where) : null,
    groupby: null,
    having: null,
    orderby: null,
    limit: null,
    window: null,
  };
}
