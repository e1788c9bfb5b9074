/**
 * What a statement asks to do, read off its parsed tree without binding it (binding
 * rewrites the tree; this only looks): each table it reads or changes with the privilege
 * that needs, the columns it names that may be that table's, whether a `*` reaches it, and
 * the sources and knowledge bases it changes. enforce.ts checks the list against the
 * policy; the engine computes it once per statement text or shape.
 */
import {
  type ColumnRef,
  isTableItem,
  type SelectStmt,
  type SqlStatement,
  type TableItem,
} from '../ast/nodes.js';
import { columnRefs, cteNames, flatFrom, nameOf, tableItems, visit } from '../ast/walk.js';
import type { Statement } from '../parse/index.js';
import { SCHEMA_SEP } from '../parse/prepass.js';
import type { Privilege } from './model.js';

export interface TableAccess {
  kind: 'table';
  privilege: Privilege;
  /** As written, or the default database when unqualified (null: none selected; binding answers 1046). */
  source: string | null;
  schema: string | null;
  table: string;
  /** The name the statement's columns qualify it by (alias or table). */
  qualifier: string;
  /** Lower-case names of columns the statement names that may be this table's: qualified by it, or unqualified. */
  columns: string[];
  /** A `*` (or `qualifier.*`) that reaches this table. */
  star: boolean;
  /** The command a denial names when it is not the privilege (`CREATE`, `DROP`). */
  command?: string;
  /** The statement has a NATURAL join, which compares every shared column without naming it. */
  natural?: boolean;
}

export type Access =
  | TableAccess
  /** CREATE / DROP DATABASE, USE, SHOW CREATE DATABASE: `OWNERSHIP` needs the source's `allow: all`, `SELECT` that it is visible. */
  | { kind: 'source'; privilege: Privilege; source: string }
  | { kind: 'kb'; privilege: Privilege; name: string };

/** Options of the reading: the default database, and which unqualified names are knowledge bases. */
export interface AccessScope {
  db: string | undefined;
  isKb?: (name: string) => boolean;
}

export function statementAccess(stmt: Statement, scope: AccessScope): Access[] {
  switch (stmt.kind) {
    case 'explain':
      return statementAccess(stmt.inner, scope);
    case 'create_database':
    case 'drop_database':
      return [{ kind: 'source', privilege: 'OWNERSHIP', source: stmt.name }];
    case 'use':
    case 'show_create_database':
      return [{ kind: 'source', privilege: 'SELECT', source: stmt.name }];
    case 'describe':
    case 'show_columns':
    case 'drop_table': {
      const t = stmt.table;
      return [
        {
          kind: 'table',
          privilege: stmt.kind === 'drop_table' ? 'OWNERSHIP' : 'SELECT',
          source: t.db ?? scope.db ?? null,
          schema: t.schema,
          table: t.table,
          qualifier: t.table,
          columns: [],
          star: false,
          ...(stmt.kind === 'drop_table' ? { command: 'DROP' } : {}),
        },
      ];
    }
    case 'create_kb':
    case 'drop_kb':
    case 'alter_kb':
      return [{ kind: 'kb', privilege: 'OWNERSHIP', name: stmt.name }];
    case 'describe_kb':
    case 'evaluate_kb':
      return [{ kind: 'kb', privilege: 'SELECT', name: stmt.name }];
    case 'sql':
      return sqlAccess(stmt.ast, scope);
    // Listings are filtered where they are made; the process list shows a principal its own.
    case 'show_databases':
    case 'show_tables':
    case 'show_engines':
    case 'show_kbs':
    case 'show_processlist':
    case 'show_grants':
    case 'kill':
    case 'noop':
    case 'set_global':
      return [];
    default: {
      const never: never = stmt;
      return never;
    }
  }
}

/** The tables a DML statement changes, by node, with the privilege each needs. */
function targets(ast: SqlStatement, items: TableItem[]): Map<TableItem, Privilege[]> {
  const out = new Map<TableItem, Privilege[]>();
  const byQualifier = (q: string) =>
    items.find((t) => (nameOf(t.as) ?? t.table).toLowerCase() === q.toLowerCase());
  switch (ast.type) {
    case 'insert':
    case 'replace': {
      const privs: Privilege[] = ['INSERT'];
      if (ast.type === 'replace') privs.push('DELETE');
      if (ast.on_duplicate_update) privs.push('UPDATE');
      for (const t of ast.table) out.set(t, privs);
      break;
    }
    case 'update': {
      const named = new Set(ast.set.map((a) => a.table).filter((q): q is string => !!q));
      const first = flatFrom(ast.table).find(isTableItem);
      if (named.size === 0 && first) out.set(first, ['UPDATE']);
      for (const q of named) {
        const t = byQualifier(q);
        if (t) out.set(t, ['UPDATE']);
      }
      break;
    }
    case 'delete': {
      // `DELETE t1 FROM t1 JOIN t2`: the listed names point at FROM tables; `DELETE FROM t` lists t.
      const from = flatFrom(ast.from).filter(isTableItem);
      for (const l of ast.table ?? []) {
        const t = from.find((f) => (nameOf(f.as) ?? f.table).toLowerCase() === l.table.toLowerCase());
        if (t) out.set(t, ['DELETE']);
      }
      if (!ast.table?.length && from[0]) out.set(from[0], ['DELETE']);
      break;
    }
    case 'create':
    case 'drop':
      for (const t of ast.type === 'create' ? (ast.table ?? []) : ast.name) out.set(t, ['OWNERSHIP']);
      break;
    case 'select':
      break;
  }
  return out;
}

function sqlAccess(ast: SqlStatement, scope: AccessScope): Access[] {
  const ctes = cteNames(ast);
  const items = tableItems(ast);
  const changed = targets(ast, items);
  // DELETE's listed names (`DELETE t1 FROM ...`) stand for FROM tables, not tables of their own.
  const aliasesOnly = new Set(ast.type === 'delete' ? (ast.table ?? []) : []);
  const named = namedColumns(ast);
  const reads = new Set(columnRefs(ast).map((r) => (nameOf(r.table) ?? '').toLowerCase()));
  const starred = starredTables(ast);
  const natural = items.some((t) => t.natural) || hasNaturalGroup(ast);
  const out: Access[] = [];
  for (const node of items) {
    const { db, schema, table } = namedTable(node);
    if (!db && ctes.has(table.toLowerCase())) continue;
    if (db?.toLowerCase() === 'information_schema') continue;
    if (aliasesOnly.has(node)) continue;
    const privileges: Privilege[] = [...(changed.get(node) ?? ['SELECT'])];
    const q0 = (nameOf(node.as) ?? table).toLowerCase();
    // As MySQL: an UPDATE or DELETE that reads the target's columns (WHERE, SET x = y) needs SELECT too.
    if (
      (ast.type === 'update' || ast.type === 'delete') &&
      changed.has(node) &&
      (reads.has(q0) || reads.has(''))
    )
      privileges.push('SELECT');
    if (!db && scope.isKb?.(table)) {
      for (const privilege of privileges) out.push({ kind: 'kb', privilege, name: table });
      continue;
    }
    const qualifier = nameOf(node.as) ?? table;
    const q = qualifier.toLowerCase();
    const columns = [...(named.get(q) ?? []), ...(named.get('') ?? [])];
    const star = starred.has(node);
    // Columns are checked for every privilege: `DELETE ... WHERE ssn = ...` would probe a hidden column.
    for (const privilege of privileges)
      out.push({
        kind: 'table',
        privilege,
        source: db ?? scope.db ?? null,
        schema,
        table,
        qualifier,
        columns,
        star: privilege === 'SELECT' && star,
        ...(privilege === 'OWNERSHIP' ? { command: ast.type === 'drop' ? 'DROP' : 'CREATE' } : {}),
        ...(natural ? { natural } : {}),
      });
  }
  return out;
}

/** Lower-case column names by lower-case qualifier (`''` for unqualified), from references, INSERT lists and SET targets. */
function namedColumns(ast: SqlStatement): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (q: string, c: string) => {
    const k = q.toLowerCase();
    const list = out.get(k);
    if (list) list.push(c.toLowerCase());
    else out.set(k, [c.toLowerCase()]);
  };
  // `JOIN ... USING (c)` names c for both sides without a column reference.
  visit(ast, (n) => {
    if (Array.isArray(n.using)) for (const c of n.using) if (typeof c === 'string') add('', c);
    return true;
  });
  for (const r of columnRefs(ast)) {
    if (r.column === '*') continue;
    let q = nameOf(r.table) ?? '';
    const sep = q.indexOf(SCHEMA_SEP);
    if (sep >= 0) q = q.slice(sep + 1);
    add(q, r.column);
  }
  if ((ast.type === 'insert' || ast.type === 'replace') && ast.columns)
    for (const c of ast.columns) add('', c);
  if (ast.type === 'update') for (const a of ast.set) add(a.table ?? '', a.column);
  if ((ast.type === 'insert' || ast.type === 'replace') && ast.set)
    for (const a of ast.set) add('', a.column);
  return out;
}

/** Whether a parenthesized join group is NATURAL (its items are seen by tableItems, not it). */
function hasNaturalGroup(ast: SqlStatement): boolean {
  let found = false;
  visit(ast, (n) => {
    if (n.type === 'join_group' && n.natural) found = true;
    return !found;
  });
  return found;
}

/** Table items a `*` or `q.*` of their own SELECT's list reaches (COUNT(*) is not one). */
function starredTables(ast: SqlStatement): Set<TableItem> {
  const out = new Set<TableItem>();
  visit(ast, (n) => {
    if (n.type !== 'select' || !Array.isArray(n.columns)) return true;
    const s = n as unknown as SelectStmt;
    const quals = s.columns
      .map((c) => c.expr as ColumnRef)
      .filter((e) => e?.type === 'column_ref' && e.column === '*')
      .map((e) => (nameOf(e.table) ?? '').toLowerCase());
    if (quals.length === 0) return true;
    for (const f of flatFrom(s.from).filter(isTableItem)) {
      const q = (nameOf(f.as) ?? tableOnly(f.table)).toLowerCase();
      if (quals.includes('') || quals.includes(q)) out.add(f);
    }
    return true;
  });
  return out;
}

function tableOnly(t: string): string {
  const sep = t.indexOf(SCHEMA_SEP);
  return sep >= 0 ? t.slice(sep + 1) : t;
}

/** A table item's database, schema and table as written (`src.schema.t` arrives with the schema in the table name). */
export function namedTable(node: TableItem): { db: string | null; schema: string | null; table: string } {
  let table = node.table;
  let schema = node.schema ? nameOf(node.schema) : null;
  const sep = table.indexOf(SCHEMA_SEP);
  if (sep >= 0) {
    schema = table.slice(0, sep);
    table = table.slice(sep + 1);
  }
  return { db: node.db ? nameOf(node.db) : null, schema, table };
}
