/**
 * `SELECT *` without the columns a principal may not see: each `*` or `q.*` of a select
 * list that reaches a table with hidden columns becomes that table's visible columns,
 * named one by one, before the statement is planned (so no source is ever asked for a
 * hidden column). A `*` over a USING / NATURAL join, whose shared columns MySQL merges, is
 * refused with 1143 rather than guessed. Rewrites the tree it is given (the caller's copy).
 */
import { SqlError } from '../../core/errors.js';
import type { ColumnRef, FromItem, SelectItem, SelectStmt, SqlStatement } from '../ast/nodes.js';
import { cteNames, nameOf, visit } from '../ast/walk.js';
import { SCHEMA_SEP } from '../parse/prepass.js';
import type { TableName } from './decide.js';
import { COLUMN_ACCESS_DENIED } from './enforce.js';

export interface StarLookups {
  db: string | undefined;
  /** Lower-case hidden column names of a table for this principal (empty: none). */
  hidden(t: TableName): ReadonlySet<string>;
  /** The table's columns, in order, as its source names them. */
  columns(t: TableName): Promise<string[]>;
  /** Whether an unqualified name is a knowledge base. */
  isKb?(name: string): boolean;
  user: string;
}

/** Whether the statement has a `*` in some select list (cheap pre-check). */
export function hasSelectStar(ast: SqlStatement): boolean {
  let found = false;
  visit(ast, (n) => {
    if (n.type === 'column_ref' && n.column === '*') found = true;
    return !found && n.type !== 'aggr_func';
  });
  return found;
}

/** Expand stars that reach hidden columns; true when the tree changed. */
export async function leaveOutHidden(ast: SqlStatement, look: StarLookups): Promise<boolean> {
  const ctes = cteNames(ast);
  const selects: SelectStmt[] = [];
  visit(ast, (n) => {
    if (n.type === 'select' && Array.isArray(n.columns)) selects.push(n as unknown as SelectStmt);
  });
  let changed = false;
  for (const s of selects) {
    if (!s.columns.some((c) => isStarRef(c.expr))) continue;
    const from = tablesOf(s.from ?? [], ctes, look);
    const out: SelectItem[] = [];
    for (const item of s.columns) {
      if (!isStarRef(item.expr)) {
        out.push(item);
        continue;
      }
      const q = nameOf(item.expr.table)?.toLowerCase() ?? null;
      const reached = from.filter((f) => q === null || f.qualifier.toLowerCase() === q);
      if (!reached.some((f) => f.name && look.hidden(f.name).size > 0)) {
        out.push(item);
        continue;
      }
      if (q === null && from.some((f) => f.merges)) {
        const f = reached.find((x) => x.name && look.hidden(x.name).size > 0)!;
        throw new SqlError(
          COLUMN_ACCESS_DENIED,
          `SELECT command denied to user '${look.user}' for column '${[...look.hidden(f.name!)][0]}' in table '${f.name!.source}.${f.name!.table}': name the columns instead of * over a USING or NATURAL join`,
        );
      }
      for (const f of reached) {
        const hidden = f.name ? look.hidden(f.name) : null;
        if (!f.name || !hidden || hidden.size === 0) {
          out.push({ expr: starOf(f.qualifier), as: null });
          continue;
        }
        for (const c of await look.columns(f.name))
          if (!hidden.has(c.toLowerCase()))
            out.push({ expr: { type: 'column_ref', table: f.qualifier, column: c }, as: null });
      }
      changed = true;
    }
    s.columns = out;
  }
  return changed;
}

function isStarRef(e: unknown): e is ColumnRef {
  const r = e as ColumnRef;
  return r?.type === 'column_ref' && r.column === '*';
}

function starOf(qualifier: string): ColumnRef {
  return { type: 'column_ref', table: qualifier, column: '*' };
}

interface FromTable {
  qualifier: string;
  /** A source table (null: a derived table, CTE, information_schema or knowledge base). */
  name: TableName | null;
  /** Joined with USING or NATURAL: `*` merges shared columns. */
  merges: boolean;
}

function tablesOf(items: FromItem[], ctes: Set<string>, look: StarLookups): FromTable[] {
  const out: FromTable[] = [];
  for (const f of items) {
    const merges = !!(f.natural || f.using?.length);
    if (f.type === 'join_group') {
      const inner = tablesOf(f.expr, ctes, look);
      if (merges) for (const i of inner) i.merges = true;
      out.push(...inner);
      continue;
    }
    if (f.type === 'dual') continue;
    if (f.expr) {
      out.push({ qualifier: nameOf(f.as) ?? '', name: null, merges });
      continue;
    }
    let table = f.table;
    let schema = f.schema ? nameOf(f.schema) : null;
    const sep = table.indexOf(SCHEMA_SEP);
    if (sep >= 0) {
      schema = table.slice(0, sep);
      table = table.slice(sep + 1);
    }
    const db = f.db ? nameOf(f.db) : null;
    const qualifier = nameOf(f.as) ?? table;
    const source = db ?? look.db ?? null;
    const special =
      (!db && ctes.has(table.toLowerCase())) ||
      db?.toLowerCase() === 'information_schema' ||
      (!db && look.isKb?.(table)) ||
      source === null;
    out.push({ qualifier, name: special ? null : { source: source!, schema, table }, merges });
  }
  // A USING / NATURAL join merges with what came before it.
  if (out.some((t) => t.merges)) for (const t of out) t.merges = true;
  return out;
}
