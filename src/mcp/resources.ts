import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
  ResourceTemplate,
  type Variables,
} from '@modelcontextprotocol/server';
import { ErrorCode, SqlError } from '../core/errors.js';
import type { SqlEngine, StatementPrincipal } from '../sql/engine-types.js';
import type { McpDeps } from './deps.js';
import { mcpPrincipal } from './principal.js';

/** What a resource callback's context may carry: the request's auth (the SDK's `ctx.http.authInfo`). */
type ReadCtx = { http?: { authInfo?: { extra?: Record<string, unknown> } } } | undefined;

const JSON_MIME = 'application/json';

export const DATABASES_URI = 'schema://databases';
export const TABLES_TEMPLATE = 'schema://databases/{database_name}/tables';
export const COLUMNS_TEMPLATE = 'schema://databases/{database_name}/tables/{table_name}/columns';
export const KNOWLEDGE_BASES_URI = 'schema://knowledge_bases';

/** The four schema resources (docs/reference/mcp.md) and the completions of their template variables. */
export function registerSchemaResources(
  server: McpServer,
  deps: McpDeps,
  session: { principal?: StatementPrincipal } = {},
): void {
  const engine = deps.engine;
  // Objects the principal may not read do not exist for it (docs/reference/policy.md).
  const who = (ctx: ReadCtx) => mcpPrincipal(ctx?.http?.authInfo, session);
  const principal = session.principal;

  server.registerResource(
    'databases',
    DATABASES_URI,
    {
      title: 'Data sources',
      description:
        'Names of the connected data sources (databases), as a JSON array of strings. Start here, then read schema://databases/{database_name}/tables.',
      mimeType: JSON_MIME,
    },
    async (uri, ctx) => json(uri, await engine.listDatabases(who(ctx))),
  );

  server.registerResource(
    'tables',
    new ResourceTemplate(TABLES_TEMPLATE, {
      list: async (ctx) => ({
        resources: await Promise.all(
          (await engine.listDatabases(who(ctx))).map(async (db) => {
            const kind = await engineOf(deps, db);
            return {
              uri: `schema://databases/${encodeURIComponent(db)}/tables`,
              name: `${db} tables`,
              description: `Tables and views of the data source '${db}'${kind ? ` (engine ${kind})` : ''}.`,
              mimeType: JSON_MIME,
            };
          }),
        ),
      }),
      complete: { database_name: (value) => completeDatabases(engine, value, principal) },
    }),
    {
      title: 'Tables of a data source',
      description:
        'Tables and views of one data source: JSON array of {"TABLE_NAME","TABLE_TYPE" ("BASE TABLE" or "VIEW"),"TABLE_SCHEMA" (the source\'s own schema),"TABLE_ROWS" (the source\'s row estimate, exact for files; null when unknown),"TABLE_COMMENT"}.',
      mimeType: JSON_MIME,
    },
    async (uri, vars, ctx) => {
      const db = variable(vars, 'database_name');
      const tables = await describeFailure(uri, () => engine.listTables(db, who(ctx)));
      return json(
        uri,
        tables.map((t) => ({
          TABLE_NAME: t.name,
          TABLE_TYPE: t.type,
          TABLE_SCHEMA: t.schema,
          TABLE_ROWS: t.rows ?? null,
          TABLE_COMMENT: t.comment ?? '',
        })),
      );
    },
  );

  server.registerResource(
    'columns',
    new ResourceTemplate(COLUMNS_TEMPLATE, {
      list: undefined,
      complete: {
        database_name: (value) => completeDatabases(engine, value, principal),
        table_name: (value, context) =>
          completeTables(engine, context?.arguments?.database_name, value, principal),
      },
    }),
    {
      title: 'Columns of a table',
      description:
        'Columns of one table: JSON array of {"COLUMN_NAME","MYSQL_DATA_TYPE","IS_NULLABLE" ("YES"/"NO"),"COLUMN_KEY" ("PRI", "UNI", "MUL" or ""),"COLUMN_COMMENT","REFERENCES" ("table.column" of a foreign key, or null)} where MYSQL_DATA_TYPE is the upper-case MySQL type name without length (INT, BIGINT, DECIMAL, DOUBLE, VARCHAR, TEXT, DATE, DATETIME, BOOLEAN, JSON, BLOB, ...). Join on REFERENCES and keys.',
      mimeType: JSON_MIME,
    },
    async (uri, vars, ctx) => {
      const db = variable(vars, 'database_name');
      const table = variable(vars, 'table_name');
      const cols = await describeFailure(uri, () => engine.listColumns(db, table, who(ctx)));
      return json(
        uri,
        cols.map((c) => ({
          COLUMN_NAME: c.name,
          MYSQL_DATA_TYPE: c.type,
          IS_NULLABLE: c.nullable ? 'YES' : 'NO',
          COLUMN_KEY: c.key ?? '',
          COLUMN_COMMENT: c.comment ?? '',
          REFERENCES: c.references ?? null,
        })),
      );
    },
  );

  server.registerResource(
    'knowledge_bases',
    KNOWLEDGE_BASES_URI,
    {
      title: 'Knowledge bases',
      description:
        'Knowledge bases: JSON array of {"name","metadata_columns","content_columns","id_column","embedding_model","storage","rows","chunks"}; empty when there are none. Search one with SELECT * FROM kb WHERE content = \'question\' [AND metadata filters] [AND hybrid_search = true] LIMIT 10.',
      mimeType: JSON_MIME,
    },
    async (uri, ctx) => json(uri, await listKnowledgeBases(engine, who(ctx))),
  );
}

/** Completions never fail a client's typing: a catalog hiccup just offers nothing. */
export async function completeDatabases(
  engine: SqlEngine,
  prefix: string,
  principal?: StatementPrincipal,
): Promise<string[]> {
  try {
    const p = prefix.toLowerCase();
    return (await engine.listDatabases(principal)).filter((d) => d.toLowerCase().startsWith(p));
  } catch {
    return [];
  }
}

/** Table names of `db` starting with `prefix`; nothing when the source is not named or unknown. */
export async function completeTables(
  engine: SqlEngine,
  db: string | undefined,
  prefix: string,
  principal?: StatementPrincipal,
): Promise<string[]> {
  if (!db) return [];
  try {
    const p = prefix.toLowerCase();
    return (await engine.listTables(db, principal))
      .map((t) => t.name)
      .filter((n) => n.toLowerCase().startsWith(p));
  } catch {
    return [];
  }
}

/**
 * Knowledge bases as SHOW KNOWLEDGE_BASES reports them. Until the engine knows the
 * statement (or when it fails) there are none: the resource must still answer `[]`.
 */
async function listKnowledgeBases(
  engine: SqlEngine,
  principal: StatementPrincipal | undefined,
): Promise<Record<string, unknown>[]> {
  const r = await engine.execute('SHOW KNOWLEDGE_BASES', principal ? { principal } : {}, { readOnly: true });
  if (r.type !== 'table') return [];
  const col = (name: string) => r.column_names.findIndex((c) => c.toLowerCase() === name);
  const [name, meta, content, id, model, storage, rows, chunks] = [
    'name',
    'metadata_columns',
    'content_columns',
    'id_column',
    'embedding_model',
    'storage',
    'rows',
    'chunks',
  ].map(col);
  if (name < 0) return [];
  const at = (row: unknown[], i: number) => (i < 0 ? null : (row[i] ?? null));
  return r.data.map((row) => ({
    name: row[name],
    metadata_columns: listValue(meta < 0 ? null : row[meta]),
    content_columns: listValue(content < 0 ? null : row[content]),
    id_column: at(row, id),
    embedding_model: at(row, model),
    storage: at(row, storage),
    rows: at(row, rows),
    chunks: at(row, chunks),
  }));
}

function listValue(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? [];
  try {
    const parsed = JSON.parse(v);
    if (Array.isArray(parsed)) return parsed;
  } catch {
    // a plain comma-separated list
  }
  return v === '' ? [] : v.split(',').map((s) => s.trim());
}

function json(uri: URL, value: unknown): ReadResourceResult {
  return { contents: [{ uri: uri.href, mimeType: JSON_MIME, text: JSON.stringify(value) }] };
}

function variable(vars: Variables, name: string): string {
  const v = vars[name];
  const raw = Array.isArray(v) ? v.join(',') : (v ?? '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Unknown source/table → resource-not-found naming it; other engine errors keep their message. */
async function describeFailure<T>(uri: URL, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof SqlError) {
      if (e.code === ErrorCode.UNKNOWN_DATABASE || e.code === ErrorCode.UNKNOWN_TABLE) {
        throw new ResourceNotFoundError(uri.href, e.message);
      }
      throw new ProtocolError(ProtocolErrorCode.InternalError, e.message, { error_code: e.code });
    }
    throw new ProtocolError(ProtocolErrorCode.InternalError, `Could not read ${uri.href}`);
  }
}

/** The engine of a source, for descriptions; null when it cannot be told. */
async function engineOf(deps: McpDeps, db: string): Promise<string | null> {
  try {
    return (await deps.sources.get(db)).engine;
  } catch {
    return null;
  }
}
