/**
 * Schema changes announced (issue 33, item 3): `notifications/resources/list_changed` reaches
 * MCP clients of every transport (2025-era Streamable HTTP sessions, legacy SSE, stdio, and
 * 2026-07-28 clients on their `subscriptions/listen` stream) when a source, a table (DDL run
 * through Tributary), a file or a knowledge base appears or goes, here or on another replica
 * (two servers over one PostgreSQL catalog, the stdio one a real `tributary --mcp-stdio`).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createPgDatabase, pgExec } from '../../helpers/services.js';
import { type RealServer, startRealServer } from './helpers/real-server.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));

let catalog: { database: string; drop: () => Promise<void> };
let data: { database: string; drop: () => Promise<void> };
let a: RealServer;
let b: RealServer;
let stdioStorage: string;
const closers: (() => Promise<unknown>)[] = [];

async function ok(s: RealServer, query: string): Promise<void> {
  const r = await s.sql(query);
  assert.equal(r.type, 'ok', `${query}: ${JSON.stringify(r)}`);
}

/** Counts the list_changed notifications one client receives. */
class Heard {
  count = 0;
  private waiters: (() => void)[] = [];
  hit = () => {
    this.count++;
    for (const w of this.waiters.splice(0)) w();
  };
  /** Resolves once the count passes `n`; fails after `ms`. */
  async above(n: number, what: string, ms = 8000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.count <= n) {
      const left = deadline - Date.now();
      if (left <= 0) assert.fail(`no resources/list_changed for ${what} (heard ${this.count})`);
      await Promise.race([new Promise<void>((r) => this.waiters.push(r)), sleep(left)]);
    }
  }
}

async function legacyClient(transport: 'streamable' | 'sse', url: string): Promise<Heard> {
  const heard = new Heard();
  const client = new Client({ name: 'schema-changes', version: '1' });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, heard.hit);
  await client.connect(
    transport === 'sse'
      ? new SSEClientTransport(new URL(`${url}/mcp/sse`))
      : new StreamableHTTPClientTransport(new URL(`${url}/mcp/streamable`)),
  );
  assert.equal(client.getServerCapabilities()?.resources?.listChanged, true);
  closers.push(() => client.close());
  // A 2025-era Streamable HTTP client hears server notifications on its GET stream: let it open.
  await sleep(200);
  return heard;
}

async function modernClient(url: string): Promise<Heard> {
  const heard = new Heard();
  const client = new ModernClient(
    { name: 'schema-changes', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setNotificationHandler('notifications/resources/list_changed', heard.hit);
  await client.connect(new ModernHttp(new URL(`${url}/mcp/streamable`)));
  const sub = await client.listen({ resourcesListChanged: true });
  closers.push(async () => {
    await sub.close();
    await client.close();
  });
  return heard;
}

before(async () => {
  catalog = await createPgDatabase('i33_mcp_catalog');
  data = await createPgDatabase('i33_mcp_data');
  await pgExec(data.database, 'CREATE TABLE t0 (id int)');
  stdioStorage = mkdtempSync(join(tmpdir(), 'tributary-i33-stdio-'));
  const env = {
    TRIBUTARY_CATALOG_URL: `postgres://postgres@127.0.0.1:5432/${catalog.database}`,
    TRIBUTARY_SECRET_KEY: randomBytes(32).toString('base64'),
  };
  a = await startRealServer(env);
  b = await startRealServer(env);
  process.env.I33_SECRET = env.TRIBUTARY_SECRET_KEY;
});

after(async () => {
  for (const c of closers.reverse()) await c().catch(() => {});
  await a?.stop();
  await b?.stop();
  rmSync(stdioStorage, { recursive: true, force: true });
  await catalog?.drop();
  await data?.drop();
});

test('every transport, on this replica and the others, hears sources, tables, files and knowledge bases change', async () => {
  const onA = {
    streamable: await legacyClient('streamable', a.url),
    sse: await legacyClient('sse', a.url),
    modern: await modernClient(a.url),
  };
  const onB = await legacyClient('streamable', b.url);
  // A real `tributary --mcp-stdio` over the same catalog: a third replica.
  const stdioHeard = new Heard();
  const stdio = new Client({ name: 'schema-changes-stdio', version: '1' });
  stdio.setNotificationHandler(ResourceListChangedNotificationSchema, stdioHeard.hit);
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', MAIN, '--mcp-stdio'],
      env: {
        ...(process.env as Record<string, string>),
        TRIBUTARY_STORAGE_DIR: stdioStorage,
        TRIBUTARY_CATALOG_URL: `postgres://postgres@127.0.0.1:5432/${catalog.database}`,
        TRIBUTARY_SECRET_KEY: process.env.I33_SECRET ?? '',
      },
      stderr: 'ignore',
    }),
  );
  closers.push(() => stdio.close());
  assert.equal(stdio.getServerCapabilities()?.resources?.listChanged, true);
  // The stdio server's engine loads behind initialize; its first read waits for it.
  await stdio.listResources();
  const all = [onA.streamable, onA.sse, onA.modern, onB, stdioHeard];
  const counts = () => all.map((h) => h.count);

  // A source appears (SQL on replica A).
  let before = counts();
  const params = JSON.stringify({
    host: '127.0.0.1',
    port: 5432,
    user: 'postgres',
    password: '',
    database: data.database,
  });
  await ok(a, `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${params}`);
  await Promise.all(all.map((h, i) => h.above(before[i], `CREATE DATABASE (client ${i})`)));

  // A table appears through Tributary, on replica B: its own clients hear it.
  before = counts();
  await ok(b, 'CREATE TABLE pg.t1 AS SELECT id FROM pg.t0');
  await onB.above(before[3], 'CREATE TABLE on B');

  // A burst of DDL is announced once (debounced), not once per statement.
  await sleep(400);
  before = counts();
  for (let i = 2; i < 7; i++) await ok(a, `CREATE TABLE pg.t${i} AS SELECT id FROM pg.t0`);
  await onA.streamable.above(before[0], 'a burst of CREATE TABLE');
  await sleep(500);
  assert.ok(
    onA.streamable.count - before[0] <= 2,
    `five DDL statements in a burst: ${onA.streamable.count - before[0]} notifications`,
  );

  // A table goes.
  before = counts();
  await ok(a, 'DROP TABLE pg.t1');
  await onA.modern.above(before[2], 'DROP TABLE (2026 listen stream)');

  // A file appears (upload on replica B) and goes: replica A's and stdio's clients hear both.
  before = counts();
  const up = await fetch(`${b.url}/api/files/cities`, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: 'id,name\n1,Oslo\n',
  });
  assert.ok(up.ok, `upload: ${up.status} ${await up.text()}`);
  await Promise.all(
    [onA.streamable, onA.sse, onB, stdioHeard].map((h) =>
      h.above(before[all.indexOf(h)], `file upload (client ${all.indexOf(h)})`),
    ),
  );
  before = counts();
  assert.equal((await fetch(`${b.url}/api/files/cities`, { method: 'DELETE' })).ok, true);
  await Promise.all([onA.streamable, onB].map((h) => h.above(before[all.indexOf(h)], 'file delete')));

  // A knowledge base appears (replica A) and goes (replica B): every client hears both.
  before = counts();
  await ok(a, `CREATE KNOWLEDGE_BASE notes USING content_columns = ['body'], id_column = 'note_id'`);
  await Promise.all(all.map((h, i) => h.above(before[i], `CREATE KNOWLEDGE_BASE (client ${i})`)));
  before = counts();
  await ok(b, 'DROP KNOWLEDGE_BASE notes');
  await Promise.all(all.map((h, i) => h.above(before[i], `DROP KNOWLEDGE_BASE (client ${i})`)));

  // The source goes (on replica B): everyone hears it.
  before = counts();
  await ok(b, 'DROP DATABASE pg');
  await Promise.all(all.map((h, i) => h.above(before[i], `DROP DATABASE (client ${i})`)));

  // A SELECT changes nothing and announces nothing.
  await sleep(400);
  before = counts();
  assert.equal((await a.sql('SELECT 1')).type, 'table');
  await sleep(500);
  assert.deepEqual(counts(), before);
});
