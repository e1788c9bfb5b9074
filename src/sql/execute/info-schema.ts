import { ErrorCode, SqlError } from '../../core/errors.js';
import type { FieldInfo, MysqlType, Row } from '../../core/types.js';
import type { ExecutionContext } from './context.js';

const f = (name: string, type: MysqlType = 'VARCHAR'): FieldInfo => ({ name, type });

/**
 * information_schema.schemata|tables|columns across all sources, MySQL-shaped:
 * TABLE_SCHEMA is the data source's name (what MySQL clients qualify tables with).
 * A source that cannot be reached is skipped rather than failing the whole listing.
 */
export async function infoSchemaRows(
  engine: ExecutionContext,
  table: string,
): Promise<{ columns: FieldInfo[]; rows: Row[] }> {
  const names = await engine.listDatabases();
  if (table === 'schemata') {
    return {
      columns: [
        f('CATALOG_NAME'),
        f('SCHEMA_NAME'),
        f('DEFAULT_CHARACTER_SET_NAME'),
        f('DEFAULT_COLLATION_NAME'),
        f('SQL_PATH'),
      ],
      rows: names.map((n) => ['def', n, 'utf8mb4', 'utf8mb4_general_ci', null]),
    };
  }
  if (table === 'tables') {
    const rows: Row[] = [];
    for (const n of names) {
      const tables = await engine.listTables(n).catch(() => []);
      for (const t of tables) rows.push(['def', n, t.name, t.type, engineOf(t.type), t.schema]);
    }
    return {
      columns: [
        f('TABLE_CATALOG'),
        f('TABLE_SCHEMA'),
        f('TABLE_NAME'),
        f('TABLE_TYPE'),
        f('ENGINE'),
        f('SOURCE_SCHEMA'),
      ],
      rows,
    };
  }
  if (table === 'columns') {
    const rows: Row[] = [];
    for (const n of names) {
      const source = await engine.sources.get(n).catch(() => null);
      if (!source) continue;
      const tables = await source.listTables().catch(() => []);
      for (const t of tables) {
        const cols = await source.listColumns(t.name, t.schema).catch(() => []);
        cols.forEach((c, i) => {
          rows.push([
            'def',
            n,
            t.name,
            c.name,
            i + 1,
            c.default ?? null,
            c.nullable ? 'YES' : 'NO',
            c.type.toLowerCase(),
            c.nativeType,
            c.key ?? '',
          ]);
        });
      }
    }
    return {
      columns: [
        f('TABLE_CATALOG'),
        f('TABLE_SCHEMA'),
        f('TABLE_NAME'),
        f('COLUMN_NAME'),
        f('ORDINAL_POSITION', 'BIGINT'),
        f('COLUMN_DEFAULT'),
        f('IS_NULLABLE'),
        f('DATA_TYPE'),
        f('COLUMN_TYPE'),
        f('COLUMN_KEY'),
      ],
      rows,
    };
  }
  throw new SqlError(
    ErrorCode.UNKNOWN_TABLE,
    `Table 'information_schema.${table}' doesn't exist (supported: schemata, tables, columns)`,
  );
}

function engineOf(type: string): string | null {
  return type === 'VIEW' ? null : 'tributary';
}
