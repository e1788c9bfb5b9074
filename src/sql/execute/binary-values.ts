/**
 * A string written into a binary column keeps its exact bytes (SPEC section 9, Bytes). MySQL
 * stores a string's bytes in a BLOB/VARBINARY column as they are; PostgreSQL would read an
 * untyped string into `bytea` through its escape syntax (`\x41` is one byte, `a\b` an error),
 * DuckDB's cast likewise, and SQLite would store text. So on those targets the string values
 * of INSERT/REPLACE ... VALUES rows and UPDATE ... SET that land in a binary column become
 * hex literals, which each dialect writes as bytes. A write to MySQL needs nothing.
 */
import type { ColumnInfo } from '../../core/types.js';
import type { Expr, SqlStatement } from '../ast/nodes.js';

const isBinary = (c: ColumnInfo | undefined) => c?.type === 'BLOB' || c?.type === 'BINARY';

const asBytes = (e: Expr): Expr => ({
  type: 'hex_string',
  value: Buffer.from(String((e as { value: unknown }).value), 'utf8').toString('hex'),
});

/** The string literals a write puts into columns, by column name (null: the table's n-th column). */
function stringTargets(ast: SqlStatement): { column: string | number; slot: Expr[]; at: number }[] {
  const out: { column: string | number; slot: Expr[]; at: number }[] = [];
  if ((ast.type === 'insert' || ast.type === 'replace') && ast.values?.type === 'values') {
    const names = Array.isArray(ast.columns) && ast.columns.length ? ast.columns.map(String) : null;
    for (const row of ast.values.values ?? []) {
      const list = row?.value as Expr[] | undefined;
      if (!Array.isArray(list)) continue;
      list.forEach((e, i) => {
        if (e?.type === 'string') out.push({ column: names ? names[i] : i, slot: list, at: i });
      });
    }
  } else if (ast.type === 'update' && Array.isArray(ast.set)) {
    const set = ast.set as { column: string; value: Expr }[];
    set.forEach((s, i) => {
      if (s.value?.type === 'string') out.push({ column: s.column, slot: set as unknown as Expr[], at: i });
    });
  }
  return out;
}

/**
 * Turns the string values of `ast` bound for binary columns into hex literals, in place.
 * `columns` is asked only when the write has a string value at all.
 */
export async function bindBinaryColumns(
  ast: SqlStatement,
  columns: () => Promise<ColumnInfo[]>,
): Promise<void> {
  const targets = stringTargets(ast);
  if (targets.length === 0) return;
  let cols: ColumnInfo[];
  try {
    cols = await columns();
  } catch {
    return; // the source answers the write with its own error (no such table)
  }
  if (!cols.some(isBinary)) return;
  const byName = new Map(cols.map((c) => [c.name.toLowerCase(), c]));
  for (const t of targets) {
    const col = typeof t.column === 'number' ? cols[t.column] : byName.get(t.column.toLowerCase());
    if (!isBinary(col)) continue;
    if (ast.type === 'update') {
      const s = t.slot[t.at] as unknown as { value: Expr };
      s.value = asBytes(s.value);
    } else t.slot[t.at] = asBytes(t.slot[t.at]);
  }
}
