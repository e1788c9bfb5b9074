import { ErrorCode, SqlError } from '../../core/errors.js';
import { columnFacts } from '../../core/mysql-columns.js';
import { tableName } from '../../core/sql-text.js';
import type { ColumnInfo, Row } from '../../core/types.js';
import { describeEngines } from '../../sources/registry.js';
import type { Source } from '../../sources/types.js';
import type { QueryContext } from '../engine-types.js';
import type { Statement, TableName } from '../parse/index.js';
import type { ExecutionContext, Outcome } from './context.js';
import { INFO_SCHEMA_TABLES } from './info-schema.js';
import { likePredicate, memTable, whereFilter } from './show.js';

/** CREATE/DROP DATABASE, SHOW, DESCRIBE, USE, SET: statements answered by the engine itself. */
/** A table name that may be a knowledge base: unqualified, or in MindsDB's project `mindsdb`. */
function kbNamed(t: { db: string | null; schema: string | null }): boolean {
  return !t.schema && (!t.db || t.db.toLowerCase() === 'mindsdb');
}

export async function runService(
  engine: ExecutionContext,
  stmt: Statement,
  ctx: QueryContext,
): Promise<Outcome> {
  const sources = engine.sources;
  switch (stmt.kind) {
    case 'noop':
    case 'set_global':
      return { kind: 'ok', affected: 0 };
    case 'show_create_database': {
      const s = await sources.get(stmt.name); // 1049 when there is none
      return {
        kind: 'table',
        table: memTable(
          [
            ['Database', 'VARCHAR'],
            ['Create Database', 'VARCHAR'],
          ],
          [
            [
              s.name,
              `CREATE DATABASE \`${s.name.replace(/`/g, '``')}\` /*!40100 DEFAULT CHARACTER SET utf8mb4 */`,
            ],
          ],
        ),
      };
    }
    case 'create_database':
      await sources.create(stmt.name, stmt.engine, stmt.params, { ifNotExists: stmt.ifNotExists });
      engine.schemaChanged();
      return { kind: 'ok', affected: 1 };
    case 'drop_database':
      await sources.drop(stmt.name, { ifExists: stmt.ifExists });
      engine.forgetColumns();
      engine.schemaChanged();
      if (ctx.db && ctx.db.toLowerCase() === stmt.name.toLowerCase()) ctx.db = undefined;
      return { kind: 'ok', affected: 0 };
    case 'use': {
      const s = await sources.get(stmt.name);
      ctx.db = s.name;
      return { kind: 'ok', affected: 0 };
    }
    case 'show_databases': {
      const like = likePredicate(stmt.like);
      const view = engine.view(ctx);
      const names = ['information_schema', ...(await sources.names())]
        .filter(like)
        .filter((n) => n === 'information_schema' || !view || view.seesSource(n));
      const cols: [string, 'VARCHAR'][] = [['Database', 'VARCHAR']];
      const rows = names.map((n) => [n]);
      return {
        kind: 'table',
        table: memTable(cols, stmt.where ? whereFilter(cols, rows, stmt.where) : rows),
      };
    }
    case 'show_engines': {
      const rows: Row[] = describeEngines().map((e) => [e.engine, e.description, e.parameters]);
      return {
        kind: 'table',
        table: memTable(
          [
            ['Engine', 'VARCHAR'],
            ['Description', 'VARCHAR'],
            ['Parameters', 'TEXT'],
          ],
          rows,
        ),
      };
    }
    case 'show_tables': {
      const db = stmt.from ?? ctx.db;
      if (!db)
        throw new SqlError(
          1046,
          'No database selected: use SHOW TABLES FROM <source>, pass context.db, or USE <source>',
        );
      const like = likePredicate(stmt.like);
      if (db.toLowerCase() === 'information_schema') {
        const names = INFO_SCHEMA_TABLES.filter((t) => like(t));
        const cols: [string, 'VARCHAR'][] = [['Tables_in_information_schema', 'VARCHAR']];
        if (stmt.full) cols.push(['Table_type', 'VARCHAR']);
        return {
          kind: 'table',
          table: memTable(
            cols,
            names.map((t) => (stmt.full ? [t, 'SYSTEM VIEW'] : [t])),
          ),
        };
      }
      const view = engine.view(ctx);
      // A source the principal may not read does not exist for it (USE and SELECT say 1044/1142).
      if (view && !view.seesSource(db))
        throw new SqlError(ErrorCode.UNKNOWN_DATABASE, `Unknown database '${db}'`);
      const s = await sources.get(db);
      const tables = (await s.listTables()).filter(
        (t) => like(t.name) && (!view || view.seesTable(s.name, t.schema ?? s.defaultSchema, t.name)),
      );
      const cols: [string, 'VARCHAR'][] = [[`Tables_in_${s.name}`, 'VARCHAR']];
      if (stmt.full) cols.push(['Table_type', 'VARCHAR']);
      const rows = tables.map((t) => (stmt.full ? [t.name, t.type] : [t.name]));
      return {
        kind: 'table',
        table: memTable(cols, stmt.where ? whereFilter(cols, rows, stmt.where) : rows),
      };
    }
    case 'show_columns':
    case 'describe': {
      const like = likePredicate(stmt.kind === 'show_columns' ? stmt.like : null);
      // `DESCRIBE kb`: a knowledge base's search is a relation with columns, like a table.
      const kbCols = kbNamed(stmt.table) ? engine.kbColumns?.(stmt.table.table) : null;
      let visible: ColumnInfo[];
      if (kbCols) visible = await kbCols;
      else {
        const { source, table } = await resolveTable(engine, stmt.table, ctx);
        const listed = await source.listColumns(table.table, table.schema ?? undefined);
        // The gate refused the table already when it may not be read; hidden columns are left out.
        const view = engine.view(ctx);
        visible = view
          ? view.visibleColumns(source.name, table.schema ?? source.defaultSchema, table.table, listed)
          : listed;
      }
      const cols = visible.filter((c) => like(c.name));
      const full = stmt.kind === 'show_columns' && stmt.full;
      const head: [string, 'VARCHAR'][] = [
        ['Field', 'VARCHAR'],
        ['Type', 'VARCHAR'],
        ...(full ? ([['Collation', 'VARCHAR']] as [string, 'VARCHAR'][]) : []),
        ['Null', 'VARCHAR'],
        ['Key', 'VARCHAR'],
        ['Default', 'VARCHAR'],
        ['Extra', 'VARCHAR'],
        ...(full
          ? ([
              ['Privileges', 'VARCHAR'],
              ['Comment', 'VARCHAR'],
            ] as [string, 'VARCHAR'][])
          : []),
      ];
      // As MySQL 8 describes the column (information_schema.COLUMNS says the same): `varchar(40)`,
      // not PostgreSQL's `character varying(40)`; the source's own name stays in EXPLAIN's world.
      const rows: Row[] = cols.map((c) => {
        const f = columnFacts(c);
        return [
          c.name,
          f.columnType,
          ...(full ? [f.collation] : []),
          c.nullable ? 'YES' : 'NO',
          c.key ?? '',
          f.default,
          f.extra,
          ...(full ? ['select,insert,update,references', c.comment ?? ''] : []),
        ];
      });
      const where = stmt.kind === 'show_columns' ? stmt.where : null;
      return { kind: 'table', table: memTable(head, where ? whereFilter(head, rows, where) : rows) };
    }
    case 'drop_table': {
      const { source, table } = await resolveTable(engine, stmt.table, ctx);
      if (!source.dialect)
        throw new SqlError(ErrorCode.NOT_SUPPORTED, `Source '${source.name}' has no tables to drop`);
      const r = source.writeTable
        ? await source.writeTable({ kind: 'drop', table: table.table, ifExists: stmt.ifExists })
        : await source.execute(
            `DROP TABLE ${stmt.ifExists ? 'IF EXISTS ' : ''}${tableName(source.dialect, table.schema, table.table)}`,
          );
      engine.forgetColumns();
      engine.schemaChanged();
      return { kind: 'ok', affected: r.affectedRows ?? 0 };
    }
    default:
      throw new SqlError(ErrorCode.NOT_SUPPORTED, `Statement not supported: ${stmt.kind}`);
  }
}

async function resolveTable(
  engine: ExecutionContext,
  t: TableName,
  ctx: QueryContext,
): Promise<{ source: Source; table: TableName }> {
  const db = t.db ?? ctx.db;
  if (!db)
    throw new SqlError(
      1046,
      `No database selected: write the table as source.${t.table}, or USE <source> first`,
    );
  return { source: await engine.sources.get(db), table: t };
}
