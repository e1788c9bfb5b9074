import { ErrorCode, SqlError } from '../../core/errors.js';
import type { ColumnRef, SqlStatement, TableItem } from '../ast/nodes.js';
import { isTableItem, nameOf, visit } from '../ast/walk.js';
import type { QueryContext } from '../engine-types.js';
import { SCHEMA_SEP } from '../parse/prepass.js';

export type RefKind = 'source' | 'information_schema' | 'cte' | 'dual' | 'kb';

/** One table reference in a statement, bound to where its rows live. */
export interface BoundRef {
  /** The AST node (FROM/JOIN/target item); planners rewrite it in clones by index. */
  node: TableItem;
  index: number;
  kind: RefKind;
  /** Source name as written (lookup is case-insensitive); null for CTEs. */
  source: string | null;
  schema: string | null;
  table: string;
  /** The name columns are qualified by: the alias, else the table name. */
  qualifier: string;
}

/**
 * Bind every table of the statement: `src.t`, `src.schema.t`, an unqualified name in
 * the default database, a CTE, or information_schema. Also rewrites column references
 * qualified by a source (`src.t.col`) to the table's qualifier, so every later stage
 * sees `qualifier.col`.
 */
export function bindTables(
  ast: SqlStatement,
  ctx: QueryContext,
  isKb?: (name: string) => boolean,
): BoundRef[] {
  const { ctes, tables, qualifiedColumns } = bindingParts(ast);
  const refs: BoundRef[] = [];
  for (const node of tables) {
    let table: string = node.table;
    let schema: string | null = node.schema ? nameOf(node.schema) : null;
    const sep = table.indexOf(SCHEMA_SEP);
    if (sep >= 0) {
      schema = table.slice(0, sep);
      table = table.slice(sep + 1);
      node.table = table;
      node.schema = schema;
    }
    const db: string | null = node.db ? nameOf(node.db) : null;
    const qualifier = (nameOf(node.as) ?? table) as string;
    const index = refs.length;
    if (!db && ctes.has(table.toLowerCase())) {
      refs.push({ node, index, kind: 'cte', source: null, schema: null, table, qualifier });
      continue;
    }
    if (db && db.toLowerCase() === 'information_schema') {
      refs.push({
        node,
        index,
        kind: 'information_schema',
        source: 'information_schema',
        schema: null,
        table,
        qualifier,
      });
      continue;
    }
    // An unqualified knowledge-base name (or MindsDB's `mindsdb.kb`) is the KB, whatever the default database holds.
    if ((!db || db.toLowerCase() === 'mindsdb') && isKb?.(table)) {
      refs.push({ node, index, kind: 'kb', source: null, schema: null, table, qualifier });
      continue;
    }
    const source = db ?? ctx.db ?? null;
    if (!source) {
      throw new SqlError(
        1046,
        `No database selected: write the table as source.${table}, pass context.db, or run USE <source> first`,
      );
    }
    refs.push({ node, index, kind: 'source', source, schema, table, qualifier });
  }
  // `src.t.col` / `src.schema.t.col`: point the column at its table's qualifier.
  for (const col of qualifiedColumns) {
    const db = col.db ? nameOf(col.db) : null;
    if (!db) continue;
    let t = nameOf(col.table) ?? '';
    const sep = t.indexOf(SCHEMA_SEP);
    if (sep >= 0) t = t.slice(sep + 1);
    const match = refs.find(
      (r) => r.source?.toLowerCase() === db.toLowerCase() && r.table.toLowerCase() === t.toLowerCase(),
    );
    if (!match) {
      throw new SqlError(
        ErrorCode.UNKNOWN_COLUMN,
        `Unknown column '${db}.${t}.${nameOf(col.column)}': table ${db}.${t} is not in the FROM clause`,
      );
    }
    col.db = null;
    col.table = match.qualifier;
  }
  return refs;
}

/**
 * What binding reads of a statement, in one walk (a 300-member UNION is thousands of
 * objects): the CTE names (lower case), the table items (walk.ts tableItems) and the column
 * references qualified by a source (walk.ts cteNames and columnRefs ask the same).
 */
function bindingParts(ast: SqlStatement): {
  ctes: Set<string>;
  tables: TableItem[];
  qualifiedColumns: ColumnRef[];
} {
  const ctes = new Set<string>();
  const tables: TableItem[] = [];
  const qualifiedColumns: ColumnRef[] = [];
  visit(ast, (n, key, parent) => {
    if (n.type === 'column_ref') {
      if (n.db) qualifiedColumns.push(n as unknown as ColumnRef);
    } else if (key === 'with' && typeof n.name === 'string' && n.stmt !== undefined)
      ctes.add(n.name.toLowerCase());
    if (isTableItem(n, key, parent)) tables.push(n as unknown as TableItem);
  });
  return { ctes, tables, qualifiedColumns };
}
