import { McpServer } from '@modelcontextprotocol/server';
import type { McpDeps } from './deps.js';
import { registerSampleTablePrompt } from './prompt.js';
import { type QueryToolOptions, registerQueryTool, type SessionState } from './query-tool.js';
import { registerSchemaResources } from './resources.js';
import { offerQueryTasks } from './tasks.js';

export const MCP_SERVER_NAME = 'tributary';

const INSTRUCTIONS = `Tributary answers SQL (MySQL syntax) over many data sources (databases, files, APIs) as if they were one MySQL server.

Workflow:
1. Read the resource schema://databases to list the data sources.
2. Read schema://databases/{database_name}/tables for the tables of a source.
3. Read schema://databases/{database_name}/tables/{table_name}/columns for the columns and their MySQL types.
4. Call the \`query\` tool with one SQL statement. Qualify tables as source.table (source.schema.table where the source has schemas), or pass context.db. One query may join tables from different sources.

Results come back as {"type":"table","column_names":[...],"data":[[...]]}, {"type":"ok","affected_rows":N} or {"type":"error","error_code":N,"error_message":"..."}. Use LIMIT or aggregates for large tables. A long answer is cut to fit and says so first ("truncated": true, "rows_returned", "rows_available" or "more_than", "hint"); its rows stay available for 10 minutes under "handle".
Page on with the statement in "next" (SELECT * FROM result('r_...') LIMIT 100 OFFSET n), or better, narrow the question. The prompt sample_table shows a table's first rows.

Knowledge bases (schema://knowledge_bases) hold searchable text: SELECT * FROM kb WHERE content = 'question' [AND metadata_col = 'x'] [AND hybrid_search = true] LIMIT 10 returns chunks ordered by relevance (0..1); a KB joins with any table (FROM kb JOIN pg.customers c ON c.id = kb.customer_id).`;

const READ_ONLY_INSTRUCTIONS =
  '\n\nThis server is read-only: only SELECT, SHOW, DESCRIBE and EXPLAIN are allowed.';

export type McpServerFactoryOptions = QueryToolOptions;

/**
 * The capabilities, defined once: every transport (stdio, SSE, Streamable HTTP in both
 * protocol eras) gets its servers from this factory. A server connects to one transport
 * only, so the factory runs per session (2025 era, SSE, stdio) or per request (2026
 * era): it holds no pools or caches, only registrations over the shared `deps.engine`.
 */
export function createMcpServerFactory(
  deps: McpDeps,
  opts: McpServerFactoryOptions = {},
): (session?: SessionState, era?: 'legacy' | 'modern') => McpServer {
  const instructions = deps.config.api.mcp.read_only ? INSTRUCTIONS + READ_ONLY_INSTRUCTIONS : INSTRUCTIONS;
  // `session` is passed in when the caller also serves this session's tool calls itself
  // (the direct Streamable HTTP path), so both see the same default database.
  return (session: SessionState = {}, era: 'legacy' | 'modern' = 'legacy') => {
    const server = new McpServer(
      { name: MCP_SERVER_NAME, title: 'Tributary', version: deps.version },
      {
        instructions,
        capabilities: {
          tools: { listChanged: false },
          resources: { listChanged: true },
          prompts: { listChanged: false },
          completions: {},
          // Accepts logging/setLevel (clients send it unasked); tool calls are logged server-side.
          logging: {},
        },
      },
    );
    const tool = registerQueryTool(server, deps, session, opts);
    // Long statements as tasks (2025-11-25 tasks utility); 2026-07-28 moved tasks to an
    // extension this server does not offer, and its wire has no `capabilities.tasks`.
    if (era === 'legacy') {
      const tasks = offerQueryTasks(server, tool, deps, session);
      const prev = server.server.onclose;
      server.server.onclose = () => {
        tasks.close();
        prev?.();
      };
    }
    registerSchemaResources(server, deps, session);
    registerSampleTablePrompt(server, deps, session);
    return server;
  };
}
