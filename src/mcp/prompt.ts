import { completable, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { quoteIdent as quoteIdentIn } from '../core/sql-text.js';
import type { StatementPrincipal } from '../sql/engine-types.js';
import type { McpDeps } from './deps.js';
import { completeDatabases, completeTables } from './resources.js';

/** MySQL identifier quoting (a backtick inside a name is doubled). */
export const quoteIdent = (name: string): string => quoteIdentIn('mysql', name);

export function sampleTableText(db: string, table: string): string {
  const sql = `SELECT * FROM ${quoteIdent(db)}.${quoteIdent(table)} LIMIT 5`;
  return (
    `Run this query with the \`query\` tool:\n\n${sql}\n\n` +
    `Then describe the table ${db}.${table}: its structure (each column, its type and what it seems to hold) ` +
    `and its data (what the sample rows show, typical values, anything notable such as empty columns or odd formats).`
  );
}

/** Prompt `sample_table(database_name, table_name)` (docs/reference/mcp.md), with completions for both arguments. */
export function registerSampleTablePrompt(
  server: McpServer,
  deps: McpDeps,
  session: { principal?: StatementPrincipal } = {},
): void {
  const engine = deps.engine;
  server.registerPrompt(
    'sample_table',
    {
      title: 'Sample a table',
      description: 'Query the first 5 rows of a table and describe its structure and data.',
      argsSchema: z.object({
        database_name: completable(z.string().describe('Data source (database) name'), (value) =>
          completeDatabases(engine, value ?? '', session.principal),
        ),
        table_name: completable(z.string().describe('Table name within the data source'), (value, context) =>
          completeTables(engine, context?.arguments?.database_name, value ?? '', session.principal),
        ),
      }),
    },
    ({ database_name, table_name }) => ({
      description: `Sample ${database_name}.${table_name}`,
      messages: [
        { role: 'user', content: { type: 'text', text: sampleTableText(database_name, table_name) } },
      ],
    }),
  );
}
