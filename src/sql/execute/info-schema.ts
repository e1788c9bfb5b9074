/**
 * information_schema across all sources, MySQL 8-shaped: TABLE_SCHEMA is the data source's
 * name (what MySQL clients qualify tables with). The tables and their columns are those
 * MySQL 8 has, in its order, because tools select them by name (DBeaver, Metabase, JDBC's
 * DatabaseMetaData, SQLAlchemy): SCHEMATA, TABLES, COLUMNS, STATISTICS, KEY_COLUMN_USAGE,
 * TABLE_CONSTRAINTS, REFERENTIAL_CONSTRAINTS, VIEWS, and ROUTINES / TRIGGERS / PARAMETERS /
 * EVENTS (always empty: sources bring no routines); PROCESSLIST is the engine's (processlist.ts). Column facts come from
 * core/mysql-columns.ts, the description SHOW CREATE TABLE uses too. A source that cannot be
 * reached is skipped rather than failing the whole listing.
 */
import { ErrorCode, SqlError } from '../../core/errors.js';
import {
  columnFacts,
  foreignKeyName,
  indexParts,
  indexPartTail,
  splitReference,
} from '../../core/mysql-columns.js';
import type { ColumnInfo, FieldInfo, MysqlType, Row } from '../../core/types.js';
import type { TableInfo } from '../../sources/types.js';
import type { PolicyView } from '../policy/enforce.js';
import type { ExecutionContext } from './context.js';

const f = (name: string, type: MysqlType = 'VARCHAR'): FieldInfo => ({ name, type });
const n = (name: string): FieldInfo => f(name, 'BIGINT');
const fields = (spec: string): FieldInfo[] =>
  spec
    .split(/\s+/)
    .map((s) => (s.startsWith('#') ? n(s.slice(1)) : s.startsWith('@') ? f(s.slice(1), 'DATETIME') : f(s)));

/** Columns of each table, MySQL 8's order; `#` marks a number, `@` a datetime. */
const COLUMNS = {
  schemata: fields(
    'CATALOG_NAME SCHEMA_NAME DEFAULT_CHARACTER_SET_NAME DEFAULT_COLLATION_NAME SQL_PATH DEFAULT_ENCRYPTION',
  ),
  // SOURCE_SCHEMA is ours: the schema inside the source (PostgreSQL's `public`).
  tables: fields(
    'TABLE_CATALOG TABLE_SCHEMA TABLE_NAME TABLE_TYPE ENGINE #VERSION ROW_FORMAT #TABLE_ROWS #AVG_ROW_LENGTH #DATA_LENGTH #MAX_DATA_LENGTH #INDEX_LENGTH #DATA_FREE #AUTO_INCREMENT @CREATE_TIME @UPDATE_TIME @CHECK_TIME TABLE_COLLATION #CHECKSUM CREATE_OPTIONS TABLE_COMMENT SOURCE_SCHEMA',
  ),
  columns: fields(
    'TABLE_CATALOG TABLE_SCHEMA TABLE_NAME COLUMN_NAME #ORDINAL_POSITION COLUMN_DEFAULT IS_NULLABLE DATA_TYPE #CHARACTER_MAXIMUM_LENGTH #CHARACTER_OCTET_LENGTH #NUMERIC_PRECISION #NUMERIC_SCALE #DATETIME_PRECISION CHARACTER_SET_NAME COLLATION_NAME COLUMN_TYPE COLUMN_KEY EXTRA PRIVILEGES COLUMN_COMMENT GENERATION_EXPRESSION #SRS_ID',
  ),
  statistics: fields(
    'TABLE_CATALOG TABLE_SCHEMA TABLE_NAME #NON_UNIQUE INDEX_SCHEMA INDEX_NAME #SEQ_IN_INDEX COLUMN_NAME COLLATION #CARDINALITY #SUB_PART PACKED NULLABLE INDEX_TYPE COMMENT INDEX_COMMENT IS_VISIBLE EXPRESSION',
  ),
  key_column_usage: fields(
    'CONSTRAINT_CATALOG CONSTRAINT_SCHEMA CONSTRAINT_NAME TABLE_CATALOG TABLE_SCHEMA TABLE_NAME COLUMN_NAME #ORDINAL_POSITION #POSITION_IN_UNIQUE_CONSTRAINT REFERENCED_TABLE_SCHEMA REFERENCED_TABLE_NAME REFERENCED_COLUMN_NAME',
  ),
  table_constraints: fields(
    'CONSTRAINT_CATALOG CONSTRAINT_SCHEMA CONSTRAINT_NAME TABLE_SCHEMA TABLE_NAME CONSTRAINT_TYPE ENFORCED',
  ),
  referential_constraints: fields(
    'CONSTRAINT_CATALOG CONSTRAINT_SCHEMA CONSTRAINT_NAME UNIQUE_CONSTRAINT_CATALOG UNIQUE_CONSTRAINT_SCHEMA UNIQUE_CONSTRAINT_NAME MATCH_OPTION UPDATE_RULE DELETE_RULE TABLE_NAME REFERENCED_TABLE_NAME',
  ),
  views: fields(
    'TABLE_CATALOG TABLE_SCHEMA TABLE_NAME VIEW_DEFINITION CHECK_OPTION IS_UPDATABLE DEFINER SECURITY_TYPE CHARACTER_SET_CLIENT COLLATION_CONNECTION',
  ),
  routines: fields(
    'SPECIFIC_NAME ROUTINE_CATALOG ROUTINE_SCHEMA ROUTINE_NAME ROUTINE_TYPE DATA_TYPE #CHARACTER_MAXIMUM_LENGTH #CHARACTER_OCTET_LENGTH #NUMERIC_PRECISION #NUMERIC_SCALE #DATETIME_PRECISION CHARACTER_SET_NAME COLLATION_NAME DTD_IDENTIFIER ROUTINE_BODY ROUTINE_DEFINITION EXTERNAL_NAME EXTERNAL_LANGUAGE PARAMETER_STYLE IS_DETERMINISTIC SQL_DATA_ACCESS SQL_PATH SECURITY_TYPE @CREATED @LAST_ALTERED SQL_MODE ROUTINE_COMMENT DEFINER CHARACTER_SET_CLIENT COLLATION_CONNECTION DATABASE_COLLATION',
  ),
  parameters: fields(
    'SPECIFIC_CATALOG SPECIFIC_SCHEMA SPECIFIC_NAME #ORDINAL_POSITION PARAMETER_MODE PARAMETER_NAME DATA_TYPE #CHARACTER_MAXIMUM_LENGTH #CHARACTER_OCTET_LENGTH #NUMERIC_PRECISION #NUMERIC_SCALE #DATETIME_PRECISION CHARACTER_SET_NAME COLLATION_NAME DTD_IDENTIFIER ROUTINE_TYPE',
  ),
  triggers: fields(
    'TRIGGER_CATALOG TRIGGER_SCHEMA TRIGGER_NAME EVENT_MANIPULATION EVENT_OBJECT_CATALOG EVENT_OBJECT_SCHEMA EVENT_OBJECT_TABLE #ACTION_ORDER ACTION_CONDITION ACTION_STATEMENT ACTION_ORIENTATION ACTION_TIMING ACTION_REFERENCE_OLD_TABLE ACTION_REFERENCE_NEW_TABLE ACTION_REFERENCE_OLD_ROW ACTION_REFERENCE_NEW_ROW @CREATED SQL_MODE DEFINER CHARACTER_SET_CLIENT COLLATION_CONNECTION DATABASE_COLLATION',
  ),
  events: fields(
    'EVENT_CATALOG EVENT_SCHEMA EVENT_NAME DEFINER TIME_ZONE EVENT_BODY EVENT_DEFINITION EVENT_TYPE @EXECUTE_AT INTERVAL_VALUE INTERVAL_FIELD SQL_MODE @STARTS @ENDS STATUS ON_COMPLETION @CREATED @LAST_ALTERED @LAST_EXECUTED EVENT_COMMENT #ORIGINATOR CHARACTER_SET_CLIENT COLLATION_CONNECTION DATABASE_COLLATION',
  ),
  // Always empty (no tablespaces, partitions or CHECK constraints are reported); dump and
  // BI tools select from them (mariadb-dump, DBeaver, Superset).
  files: fields(
    '#FILE_ID FILE_NAME FILE_TYPE TABLESPACE_NAME TABLE_CATALOG TABLE_SCHEMA TABLE_NAME LOGFILE_GROUP_NAME #LOGFILE_GROUP_NUMBER ENGINE FULLTEXT_KEYS #DELETED_ROWS #UPDATE_COUNT #FREE_EXTENTS #TOTAL_EXTENTS #EXTENT_SIZE #INITIAL_SIZE #MAXIMUM_SIZE #AUTOEXTEND_SIZE @CREATION_TIME @LAST_UPDATE_TIME @LAST_ACCESS_TIME #RECOVER_TIME #TRANSACTION_COUNTER #VERSION ROW_FORMAT #TABLE_ROWS #AVG_ROW_LENGTH #DATA_LENGTH #MAX_DATA_LENGTH #INDEX_LENGTH #DATA_FREE @CREATE_TIME @UPDATE_TIME @CHECK_TIME #CHECKSUM STATUS EXTRA',
  ),
  partitions: fields(
    'TABLE_CATALOG TABLE_SCHEMA TABLE_NAME PARTITION_NAME SUBPARTITION_NAME #PARTITION_ORDINAL_POSITION #SUBPARTITION_ORDINAL_POSITION PARTITION_METHOD SUBPARTITION_METHOD PARTITION_EXPRESSION SUBPARTITION_EXPRESSION PARTITION_DESCRIPTION #TABLE_ROWS #AVG_ROW_LENGTH #DATA_LENGTH #MAX_DATA_LENGTH #INDEX_LENGTH #DATA_FREE @CREATE_TIME @UPDATE_TIME @CHECK_TIME #CHECKSUM PARTITION_COMMENT NODEGROUP TABLESPACE_NAME',
  ),
  check_constraints: fields('CONSTRAINT_CATALOG CONSTRAINT_SCHEMA CONSTRAINT_NAME CHECK_CLAUSE'),
} satisfies Record<string, FieldInfo[]>;

type InfoTable = keyof typeof COLUMNS;

const isInfoTable = (t: string): t is InfoTable => Object.hasOwn(COLUMNS, t);

/** The names clients may select from (SHOW TABLES FROM information_schema). */
export const INFO_SCHEMA_TABLES = [...Object.keys(COLUMNS).map((t) => t.toUpperCase()), 'PROCESSLIST'];

interface Listed {
  db: string;
  table: TableInfo;
  cols: ColumnInfo[];
}

/** Every table of every reachable source, with its columns when `withColumns`. */
async function listAll(engine: ExecutionContext, names: string[], withColumns: boolean): Promise<Listed[]> {
  const perSource = await Promise.all(
    names.map(async (db) => {
      const source = await engine.sources.get(db).catch(() => null);
      if (!source) return [];
      const tables = await engine.listTables(db).catch(() => [] as TableInfo[]);
      return Promise.all(
        tables.map(async (table) => ({
          db,
          table,
          cols: withColumns ? await engine.columns(source, table.schema, table.name).catch(() => []) : [],
        })),
      );
    }),
  );
  return perSource.flat();
}

export async function infoSchemaRows(
  engine: ExecutionContext,
  table: string,
  /** The principal's view under the access policy: what it may not read is not listed. Null: everything. */
  view: PolicyView | null = null,
): Promise<{ columns: FieldInfo[]; rows: Row[] }> {
  const t = table.toLowerCase();
  if (!isInfoTable(t))
    throw new SqlError(
      ErrorCode.UNKNOWN_TABLE,
      `Table 'information_schema.${table}' doesn't exist (supported: ${INFO_SCHEMA_TABLES.join(', ')})`,
    );
  return { columns: COLUMNS[t], rows: await rowsOf(engine, t, view) };
}

async function rowsOf(engine: ExecutionContext, t: InfoTable, view: PolicyView | null): Promise<Row[]> {
  switch (t) {
    case 'routines':
    case 'parameters':
    case 'triggers':
    case 'events':
    case 'files':
    case 'partitions':
    case 'check_constraints':
      return [];
    default:
  }
  const all = await engine.listDatabases();
  const names = view ? all.filter((n) => view.seesSource(n)) : all;
  if (t === 'schemata') return names.map((n) => ['def', n, 'utf8mb4', 'utf8mb4_general_ci', null, 'NO']);
  const listed0 = await listAll(engine, names, t !== 'tables' && t !== 'views');
  const listed = view
    ? listed0
        .filter((l) => view.seesTable(l.db, l.table.schema ?? null, l.table.name))
        .map((l) => ({ ...l, cols: view.visibleColumns(l.db, l.table.schema ?? null, l.table.name, l.cols) }))
    : listed0;
  const rows: Row[] = [];
  for (const { db, table, cols } of listed) {
    const name = table.name;
    switch (t) {
      case 'tables': {
        const view = table.type === 'VIEW';
        rows.push([
          'def',
          db,
          name,
          table.type,
          view ? null : 'Tributary',
          view ? null : 10,
          view ? null : 'Dynamic',
          view ? null : (table.rows ?? null),
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          view ? null : 'utf8mb4_general_ci',
          null,
          '',
          view ? 'VIEW' : (table.comment ?? ''),
          table.schema ?? null,
        ]);
        break;
      }
      case 'views':
        if (table.type === 'VIEW')
          rows.push(['def', db, name, '', 'NONE', 'NO', '', 'DEFINER', 'utf8mb4', 'utf8mb4_general_ci']);
        break;
      case 'columns':
        cols.forEach((c, i) => {
          const x = columnFacts(c);
          rows.push([
            'def',
            db,
            name,
            c.name,
            i + 1,
            x.default,
            c.nullable ? 'YES' : 'NO',
            x.dataType,
            x.charMaxLength,
            x.charOctetLength,
            x.numericPrecision,
            x.numericScale,
            x.datetimePrecision,
            x.charset,
            x.collation,
            x.columnType,
            c.key ?? '',
            x.extra,
            'select,insert,update,references',
            c.comment ?? '',
            '',
            null,
          ]);
        });
        break;
      case 'statistics':
        for (const p of indexParts(cols))
          rows.push(['def', db, name, p.unique ? 0 : 1, db, p.name, ...indexPartTail(p)]);
        break;
      case 'key_column_usage':
        for (const p of indexParts(cols))
          if (p.unique)
            rows.push(['def', db, p.name, 'def', db, name, p.column, p.seq, null, null, null, null]);
        for (const c of cols) {
          const ref = splitReference(c.references);
          if (ref)
            rows.push([
              'def',
              db,
              foreignKeyName(name, c.name),
              'def',
              db,
              name,
              c.name,
              1,
              1,
              db,
              ref.table,
              ref.column,
            ]);
        }
        break;
      case 'table_constraints': {
        const seen = new Set<string>();
        for (const p of indexParts(cols)) {
          if (!p.unique || seen.has(p.name)) continue;
          seen.add(p.name);
          rows.push(['def', db, p.name, db, name, p.name === 'PRIMARY' ? 'PRIMARY KEY' : 'UNIQUE', 'YES']);
        }
        for (const c of cols)
          if (splitReference(c.references))
            rows.push(['def', db, foreignKeyName(name, c.name), db, name, 'FOREIGN KEY', 'YES']);
        break;
      }
      case 'referential_constraints':
        for (const c of cols) {
          const ref = splitReference(c.references);
          if (ref)
            rows.push([
              'def',
              db,
              foreignKeyName(name, c.name),
              'def',
              db,
              'PRIMARY',
              'NONE',
              'NO ACTION',
              'NO ACTION',
              name,
              ref.table,
            ]);
        }
        break;
    }
  }
  return rows;
}
