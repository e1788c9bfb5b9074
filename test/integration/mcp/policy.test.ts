/**
 * The access policy on the MCP face: the query tool's refusals (1142, 1143) and schema
 * resources, completions and schema://knowledge_bases that list only what the session's
 * principal may read. The session runs as a support agent, given as the transports will
 * give it (SessionState.principal; the auth modes' principals come from another branch),
 * over the SDK's in-memory transport against the real server's dependencies.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServerFactory } from '../../../src/mcp/server.js';
import type { StatementPrincipal } from '../../../src/sql/engine-types.js';
import { pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createPgDatabase, pgExec } from '../../helpers/services.js';

const agent: StatementPrincipal = { user: 'agent-7', groups: ['support'], admin: false };

const POLICY = {
  sources: [{ user: 'agent-.*', group: 'support', source: 'crm|files', allow: 'read' }],
  tables: [
    {
      group: 'support',
      source: 'crm',
      table: 'tickets',
      privileges: ['SELECT'],
      columns: [{ name: 'ssn', allow: false }],
    },
  ],
  knowledge_bases: [{ group: 'support', name: 'tickets_kb', privileges: ['SELECT'] }],
};

describe('access policy over MCP', () => {
  let dir: string;
  let server: TestServer;
  let client: Client;
  let crm: Awaited<ReturnType<typeof createPgDatabase>>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'i31-policy-mcp-'));
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(POLICY));
    crm = await createPgDatabase('i31policy');
    await pgExec(
      crm.database,
      `CREATE TABLE tickets (id int PRIMARY KEY, region text, ssn text);
       INSERT INTO tickets VALUES (1, 'EU', '111-11-1111');
       CREATE TABLE customers (id int PRIMARY KEY, name text);`,
    );
    server = await startTestServer({ TRIBUTARY_POLICY_FILE: join(dir, 'policy.json') });
    for (const q of [
      `CREATE DATABASE crm WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(crm.database)}`,
      `CREATE DATABASE other WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(crm.database)}`,
      'CREATE KNOWLEDGE_BASE tickets_kb',
      'CREATE KNOWLEDGE_BASE hr_kb',
    ]) {
      const r = await server.sql(q);
      assert.equal(r.type, 'ok', `${q}: ${JSON.stringify(r)}`);
    }
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServerFactory(server.deps)({ principal: agent }).connect(serverSide);
    client = new Client({ name: 'policy-test', version: '1.0.0' });
    await client.connect(clientSide);
  });

  after(async () => {
    await client?.close();
    await server?.stop();
    await crm?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function query(sql: string) {
    const r = await client.callTool({ name: 'query', arguments: { query: sql } });
    return {
      isError: r.isError === true,
      result: (r.structuredContent as { result: Record<string, unknown> }).result,
    };
  }

  async function read(uri: string): Promise<unknown> {
    const r = await client.readResource({ uri });
    return JSON.parse(String((r.contents[0] as { text?: string }).text));
  }

  test('the query tool answers 1142 and 1143 as errors, naming user and object', async () => {
    assert.deepEqual(await query('SELECT * FROM crm.customers'), {
      isError: true,
      result: {
        type: 'error',
        error_code: 1142,
        error_message: "SELECT command denied to user 'agent-7' for table 'crm.customers'",
      },
    });
    assert.deepEqual(await query('SELECT ssn FROM crm.tickets'), {
      isError: true,
      result: {
        type: 'error',
        error_code: 1143,
        error_message: "SELECT command denied to user 'agent-7' for column 'ssn' in table 'crm.tickets'",
      },
    });
    const star = await query('SELECT * FROM crm.tickets');
    assert.deepEqual(star.result.column_names, ['id', 'region']);
  });

  test('schema resources list only what the principal may read', async () => {
    assert.deepEqual(await read('schema://databases'), ['files', 'crm']);
    const tables = (await read('schema://databases/crm/tables')) as { TABLE_NAME: string }[];
    assert.deepEqual(
      tables.map((t) => t.TABLE_NAME),
      ['tickets'],
    );
    const cols = (await read('schema://databases/crm/tables/tickets/columns')) as { COLUMN_NAME: string }[];
    assert.deepEqual(
      cols.map((c) => c.COLUMN_NAME),
      ['id', 'region'],
    );
    await assert.rejects(
      client.readResource({ uri: 'schema://databases/crm/tables/customers/columns' }),
      /customers/,
    );
    await assert.rejects(client.readResource({ uri: 'schema://databases/other/tables' }), /other/);
    const kbs = (await read('schema://knowledge_bases')) as { name: string }[];
    assert.deepEqual(
      kbs.map((k) => k.name),
      ['tickets_kb'],
    );
    const listed = await client.listResources();
    assert.deepEqual(
      listed.resources.map((r) => r.uri).filter((u) => u.includes('/tables')),
      ['schema://databases/files/tables', 'schema://databases/crm/tables'],
    );
  });

  test('completions offer only what the principal may read', async () => {
    const dbs = await client.complete({
      ref: { type: 'ref/resource', uri: 'schema://databases/{database_name}/tables' },
      argument: { name: 'database_name', value: '' },
    });
    assert.deepEqual(dbs.completion.values, ['files', 'crm']);
    const tables = await client.complete({
      ref: { type: 'ref/resource', uri: 'schema://databases/{database_name}/tables/{table_name}/columns' },
      argument: { name: 'table_name', value: '' },
      context: { arguments: { database_name: 'crm' } },
    });
    assert.deepEqual(tables.completion.values, ['tickets']);
    const prompt = await client.complete({
      ref: { type: 'ref/prompt', name: 'sample_table' },
      argument: { name: 'database_name', value: '' },
    });
    assert.deepEqual(prompt.completion.values, ['files', 'crm']);
  });

  test('SHOW GRANTS through the tool', async () => {
    const r = await query('SHOW GRANTS');
    assert.deepEqual(r.result.column_names, ['Grants for agent-7']);
  });
});
