import type { ColumnInfo, MysqlType } from '../../core/types.js';
import type { TableInfo } from '../types.js';
import { mysqlTypeForOid } from './types.js';

/** Relations of one schema; partitions are hidden behind their parent, as psql's \dt does. */
export const LIST_TABLES_SQL = `
SELECT c.relname AS name, n.nspname AS schema,
       CASE WHEN c.relkind IN ('v', 'm') THEN 'VIEW' ELSE 'BASE TABLE' END AS type,
       CASE WHEN c.relkind IN ('r', 'p', 'm') AND c.reltuples >= 0 THEN c.reltuples::float8 END AS rows,
       COALESCE(pg_catalog.obj_description(c.oid, 'pg_class'), '') AS comment
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
ORDER BY c.relname`;

/**
 * Columns of one relation. `tname` matches exactly, else case-insensitively (an unquoted
 * MySQL name against a folded PostgreSQL one); the exact match sorts first.
 * Keys follow MySQL's DESCRIBE: PRI, else UNI (single-column unique), else MUL (leads an index).
 */
export const LIST_COLUMNS_SQL = `
WITH rel AS (
  SELECT c.oid, c.relname
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
    AND (c.relname = $2 OR lower(c.relname) = lower($2))
  ORDER BY (c.relname = $2) DESC
  LIMIT 1
)
SELECT rel.relname AS table_name, a.attname AS name,
       COALESCE(NULLIF(t.typbasetype, 0), a.atttypid)::int AS oid,
       (bt.typcategory = 'A') AS is_array, bt.typtype AS typtype,
       pg_catalog.format_type(a.atttypid, a.atttypmod) AS native,
       NOT a.attnotnull AS nullable,
       pg_catalog.pg_get_expr(d.adbin, d.adrelid) AS dflt,
       (a.attidentity <> '' OR COALESCE(pg_catalog.pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%', false)) AS auto,
       COALESCE((
         SELECT CASE WHEN bool_or(i.indisprimary) THEN 'PRI'
                     WHEN bool_or(i.indisunique AND i.indnatts = 1) THEN 'UNI'
                     WHEN bool_or(i.indkey[0] = a.attnum) THEN 'MUL' ELSE '' END
         FROM pg_catalog.pg_index i
         WHERE i.indrelid = rel.oid AND a.attnum = ANY (i.indkey)
       ), '') AS key,
       COALESCE(pg_catalog.col_description(rel.oid, a.attnum), '') AS comment,
       (SELECT fr.relname || '.' || fa.attname
        FROM pg_catalog.pg_constraint f
        JOIN pg_catalog.pg_class fr ON fr.oid = f.confrelid
        JOIN pg_catalog.pg_attribute fa
          ON fa.attrelid = f.confrelid AND fa.attnum = f.confkey[array_position(f.conkey, a.attnum)]
        WHERE f.conrelid = rel.oid AND f.contype = 'f' AND a.attnum = ANY (f.conkey)
        ORDER BY f.conname LIMIT 1) AS refs
FROM rel
JOIN pg_catalog.pg_attribute a ON a.attrelid = rel.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
JOIN pg_catalog.pg_type bt ON bt.oid = COALESCE(NULLIF(t.typbasetype, 0), a.atttypid)
LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = rel.oid AND d.adnum = a.attnum
ORDER BY a.attnum`;

export const TABLE_EXISTS_SQL = `
SELECT c.relname FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND (c.relname = $2 OR lower(c.relname) = lower($2))
LIMIT 1`;

export function toTableInfo(r: {
  name: string;
  schema: string;
  type: TableInfo['type'];
  rows: number | null;
  comment: string;
}): TableInfo {
  return { name: r.name, schema: r.schema, type: r.type, rows: r.rows, comment: r.comment };
}

export interface ColumnRow {
  name: string;
  oid: number;
  is_array: boolean;
  typtype: string;
  native: string;
  nullable: boolean;
  dflt: string | null;
  key: string;
  comment: string;
  refs: string | null;
  auto?: boolean;
}

export function toColumnInfo(r: ColumnRow): ColumnInfo {
  let type: MysqlType = r.is_array ? 'JSON' : mysqlTypeForOid(r.oid);
  if (r.typtype === 'e') type = 'VARCHAR';
  return {
    name: r.name,
    type,
    nativeType: r.native,
    nullable: r.nullable,
    key: r.key,
    default: r.dflt,
    comment: r.comment,
    references: r.refs,
    ...(r.auto ? { autoIncrement: true as const } : {}),
  };
}

/**
 * Most common values of some text columns, as text: statistics only (ANALYZE's sample), used
 * to say MySQL-equal comparisons cheaply; never needed for a right answer.
 */
export const KNOWN_VALUES_SQL = `
SELECT s.attname AS name, array_to_json(s.most_common_vals::text::text[])::text AS vals
FROM pg_catalog.pg_stats s
WHERE s.schemaname = $1 AND s.tablename = $2 AND s.attname = ANY ($3::text[])
  AND s.most_common_vals IS NOT NULL`;
