import type { ColumnInfo } from '../../core/types.js';
import type { TableInfo } from '../types.js';
import { jsonColumnOfCheck } from './json-columns.js';
import { mysqlTypeOfDataType } from './types.js';

export const LIST_TABLES_SQL = `
SELECT TABLE_NAME AS name, TABLE_SCHEMA AS \`schema\`, TABLE_TYPE AS type, TABLE_ROWS AS \`rows\`,
       TABLE_COMMENT AS \`comment\`
FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME`;

export const LIST_COLUMNS_SQL = `
SELECT COLUMN_NAME AS name, DATA_TYPE AS data_type, COLUMN_TYPE AS column_type, IS_NULLABLE AS nullable,
       COLUMN_KEY AS \`key\`, COLUMN_DEFAULT AS dflt, COLUMN_COMMENT AS \`comment\`,
       EXTRA AS extra,
       (SELECT CONCAT(k.REFERENCED_TABLE_NAME, '.', k.REFERENCED_COLUMN_NAME)
        FROM information_schema.KEY_COLUMN_USAGE k
        WHERE k.TABLE_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME AND k.COLUMN_NAME = c.COLUMN_NAME
          AND k.REFERENCED_TABLE_NAME IS NOT NULL
        ORDER BY k.CONSTRAINT_NAME LIMIT 1) AS refs
FROM information_schema.COLUMNS c WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`;

/** MariaDB's JSON is LONGTEXT with a json_valid() check; this finds which columns carry one. */
export const MARIADB_JSON_CHECKS_SQL = `
SELECT CHECK_CLAUSE AS clause FROM information_schema.CHECK_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ? AND CHECK_CLAUSE LIKE 'json_valid(%'`;

export function toTableInfo(r: {
  name: string;
  schema: string;
  type: string;
  rows?: number | string | null;
  comment?: string | null;
}): TableInfo {
  const view = /VIEW/i.test(r.type);
  return {
    name: r.name,
    schema: r.schema,
    type: view ? 'VIEW' : 'BASE TABLE',
    rows: view || r.rows === null || r.rows === undefined ? null : Number(r.rows),
    comment: view ? '' : (r.comment ?? ''),
  };
}

export interface ColumnRow {
  name: string;
  data_type: string;
  column_type: string;
  nullable: string;
  key: string;
  dflt: string | null;
  comment?: string | null;
  refs?: string | null;
  extra?: string | null;
}

export function jsonColumnsFromChecks(rows: { clause: string }[]): Set<string> {
  const out = new Set<string>();
  for (const r of rows) {
    const col = jsonColumnOfCheck(r.clause);
    if (col) out.add(col);
  }
  return out;
}

/** MariaDB reports defaults as SQL expressions ('abc' quoted, NULL as text); MySQL as plain values. */
function mariaDefault(d: string | null): string | null {
  if (d === null || d === 'NULL') return null;
  const m = /^'(.*)'$/s.exec(d);
  return m ? m[1].replace(/''/g, "'") : d;
}

export function toColumnInfo(r: ColumnRow, jsonColumns: Set<string>, mariadb: boolean): ColumnInfo {
  return {
    name: r.name,
    type: jsonColumns.has(r.name) ? 'JSON' : mysqlTypeOfDataType(r.data_type),
    nativeType: r.column_type,
    nullable: r.nullable === 'YES',
    key: r.key ?? '',
    default: mariadb ? mariaDefault(r.dflt) : r.dflt,
    comment: r.comment ?? '',
    references: r.refs ?? null,
    ...(/auto_increment/i.test(r.extra ?? '') ? { autoIncrement: true as const } : {}),
  };
}
