/**
 * The schema CodeMirror's SQL language completes from: `{ source: { table: [columns] } }`
 * (its SQLNamespace shape), so `pg.` offers pg's tables and `pg.orders.` their columns.
 */
export type SchemaTree = Record<string, Record<string, string[]>>;

/**
 * From SHOW DATABASES names and information_schema.columns rows
 * (TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME): every source appears, even one with no tables
 * or one that could not be listed, and columns keep their ordinal order.
 */
export function schemaTree(
  databases: readonly string[],
  columns: readonly (readonly unknown[])[],
  tables: readonly (readonly unknown[])[] = [],
): SchemaTree {
  const tree: SchemaTree = {};
  for (const d of databases) tree[d] ??= {};
  const tableOf = (db: unknown, table: unknown): string[] => {
    tree[String(db)] ??= {};
    const t = tree[String(db)];
    t[String(table)] ??= [];
    return t[String(table)];
  };
  for (const [db, table] of tables) tableOf(db, table);
  for (const [db, table, column] of columns) {
    const cols = tableOf(db, table);
    if (!cols.includes(String(column))) cols.push(String(column));
  }
  return tree;
}

export interface Candidate {
  label: string;
  type: 'database' | 'table' | 'column';
  detail?: string;
}

/**
 * Names to offer after a dotted prefix: `` (top level) → sources; `src` → its tables;
 * `src.table` → its columns; a bare table name → its columns when only one source has it.
 * What the editor's completion shows; kept apart from CodeMirror so it can be tested.
 */
export function candidates(tree: SchemaTree, path: readonly string[]): Candidate[] {
  const lower = (s: string) => s.toLowerCase();
  const find = <T>(obj: Record<string, T>, key: string): T | undefined => {
    const k = Object.keys(obj).find((n) => lower(n) === lower(key));
    return k === undefined ? undefined : obj[k];
  };
  if (path.length === 0) return Object.keys(tree).map((label) => ({ label, type: 'database' }));
  if (path.length === 1) {
    const db = find(tree, path[0]);
    if (db) return Object.keys(db).map((label) => ({ label, type: 'table', detail: path[0] }));
    const owners = Object.entries(tree).filter(([, t]) => find(t, path[0]) !== undefined);
    if (owners.length === 1) {
      return (find(owners[0][1], path[0]) ?? []).map((label) => ({ label, type: 'column', detail: path[0] }));
    }
    return [];
  }
  const db = find(tree, path[0]);
  const cols = db ? find(db, path[1]) : undefined;
  return (cols ?? []).map((label) => ({ label, type: 'column', detail: `${path[0]}.${path[1]}` }));
}
