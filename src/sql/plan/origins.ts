/**
 * Where each result column of a SELECT comes from (MySQL's column definition: schema, table,
 * org_table, org_name and the column's flags), decided once, where the planner binds the
 * output columns to the source tables: a plain column reference of a source table keeps its
 * table (the alias the statement used, and its own name), its own name and its NOT NULL, key
 * and AUTO_INCREMENT flags as the source's catalog describes them (ColumnInfo, already looked
 * up and cached for planning: no round trip of its own); a column from the side of an outer
 * join that may be all NULL loses NOT NULL, as in MySQL. Expressions, derived tables and
 * CTEs have no origin. The same rule for a pushed-down statement and a locally joined one.
 */
import type { ColumnInfo, ColumnOrigin } from '../../core/types.js';
import type { ColumnRef, FromItem, SqlStatement } from '../ast/nodes.js';
import { nameOf } from '../ast/walk.js';
import type { BoundRef } from './bind.js';
import type { LookupTable } from './column-lookup.js';

/** MySQL column-definition flags (include/mysql_com.h). */
const FLAG = {
  NOT_NULL: 1,
  PRI_KEY: 2,
  UNIQUE_KEY: 4,
  MULTIPLE_KEY: 8,
  UNSIGNED: 32,
  AUTO_INCREMENT: 512,
  NO_DEFAULT_VALUE: 4096,
} as const;

interface Bound {
  ref: BoundRef;
  table: LookupTable;
  /** The source's name: MySQL's schema of the column. */
  schema: string;
  /** On the side of an outer join whose rows may be missing (NULL-extended). */
  nullable: boolean;
}

/**
 * The origin of each result column of `ast` (null where it has none), or undefined when the
 * statement is not one SELECT over tables (set operations, no FROM) or its `*` cannot be
 * expanded here (a derived table, USING or NATURAL joins coalescing columns).
 */
export function resultOrigins(
  ast: SqlStatement,
  refs: BoundRef[],
  tables: Map<number, LookupTable>,
  sourceName: (r: BoundRef) => string,
): (ColumnOrigin | null)[] | undefined {
  if (ast.type !== 'select' || ast._next || !ast.from?.length) return undefined;
  const byNode = new Map<FromItem, BoundRef>(refs.map((r) => [r.node as FromItem, r]));
  const from: (Bound | null)[] = [];
  let plainStar = true;
  ast.from.forEach((item, i) => {
    const join = String(item.join ?? '').toUpperCase();
    if (join.includes('RIGHT') || join.includes('FULL')) for (const b of from) if (b) b.nullable = true;
    if (item.using?.length || item.natural || join.includes('NATURAL')) plainStar = false;
    const ref = byNode.get(item);
    const table = ref?.kind === 'source' ? tables.get(ref.index) : undefined;
    if (!ref || !table) {
      plainStar = false;
      from.push(null);
      return;
    }
    const outer = i > 0 && (join.includes('LEFT') || join.includes('FULL'));
    from.push({ ref, table, schema: sourceName(ref), nullable: outer });
  });
  const bound = from.filter((b): b is Bound => b !== null);
  const out: (ColumnOrigin | null)[] = [];
  for (const item of ast.columns) {
    const e = item.expr;
    if (e.type !== 'column_ref') {
      out.push(null);
      continue;
    }
    const c = e as ColumnRef;
    const q = nameOf(c.table)?.toLowerCase() ?? null;
    const name = nameOf(c.column) ?? '';
    if (name === '*') {
      if (q === null) {
        if (!plainStar) return undefined;
        for (const b of bound) for (const col of b.table.cols) out.push(originOf(b, col));
        continue;
      }
      const b = from.find((x) => x?.ref.qualifier.toLowerCase() === q);
      if (!b) return undefined;
      for (const col of b.table.cols) out.push(originOf(b, col));
      continue;
    }
    const lower = name.toLowerCase();
    const owners = (q === null ? bound : bound.filter((b) => b.ref.qualifier.toLowerCase() === q)).filter(
      (b) => b.table.cols.some((x) => x.name.toLowerCase() === lower),
    );
    // Unqualified and also a column of a derived table, or of two tables: no origin claimed.
    if (owners.length !== 1 || (q === null && from.includes(null))) {
      out.push(null);
      continue;
    }
    const b = owners[0];
    out.push(originOf(b, b.table.cols.find((x) => x.name.toLowerCase() === lower)!));
  }
  return out;
}

function originOf(b: Bound, col: ColumnInfo): ColumnOrigin {
  return {
    schema: b.schema,
    table: b.ref.qualifier,
    orgTable: b.table.table ?? b.ref.table,
    orgName: col.name,
    flags: columnFlags(col, b.nullable),
  };
}

/**
 * MySQL's flags for a column as its source's catalog describes it (DESCRIBE's Null, Key,
 * Extra, and UNSIGNED of its type, which a locally joined result would otherwise lose).
 */
export function columnFlags(col: ColumnInfo, nullable = false): number {
  let flags = 0;
  const auto = col.autoIncrement === true;
  if (!col.nullable && !nullable) {
    flags |= FLAG.NOT_NULL;
    if (col.default == null && !auto) flags |= FLAG.NO_DEFAULT_VALUE;
  }
  if (col.key === 'PRI') flags |= FLAG.PRI_KEY;
  else if (col.key === 'UNI') flags |= FLAG.UNIQUE_KEY;
  else if (col.key === 'MUL') flags |= FLAG.MULTIPLE_KEY;
  if (auto) flags |= FLAG.AUTO_INCREMENT;
  if (/\bunsigned\b/i.test(col.nativeType)) flags |= FLAG.UNSIGNED;
  return flags;
}
