import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { type Connected, connect, HTTP_KINDS, jsonContents, resultOf } from '../mcp/helpers/clients.js';

let srv: TestServer;
let c: Connected;
before(async () => {
  srv = await startTestServer();
  c = await connect(HTTP_KINDS[0], srv.url);
});
after(async () => {
  await c?.terminate();
  await srv?.stop();
});

test('schema://knowledge_bases lists each KB with the SPEC fields, never the api_key', async () => {
  await srv.sql(
    `CREATE KNOWLEDGE_BASE notes USING content_columns = ['body'], metadata_columns = ['team'], id_column = 'note_id'`,
  );
  await srv.sql(`INSERT INTO notes (note_id, body, team) VALUES (1, 'Deploys happen on Tuesdays.', 'ops')`);
  const list = jsonContents(await c.client.readResource({ uri: 'schema://knowledge_bases' }));
  assert.deepEqual(list, [
    {
      name: 'notes',
      metadata_columns: ['team'],
      content_columns: ['body'],
      id_column: 'note_id',
      embedding_model: { provider: 'builtin', model_name: 'lexical-hash-v2', dimension: 256 },
      storage: 'embedded',
      rows: 1,
      chunks: 1,
    },
  ]);
});

test('a long INSERT over MCP with a progress token gets progress with the row counts', async () => {
  const csv = `id,body\n${Array.from({ length: 1500 }, (_, i) => `${i},note ${i} about deploys`).join('\n')}\n`;
  const up = await fetch(`${srv.url}/api/files/bulk_notes`, {
    method: 'PUT',
    body: csv,
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(up.status, 201);
  const seen: { progress: number; total?: number; message?: string }[] = [];
  const call = await c.client.callTool(
    {
      name: 'query',
      arguments: { query: 'INSERT INTO notes (note_id, body) SELECT id, body FROM files.bulk_notes' },
    },
    undefined,
    { onprogress: (p: { progress: number; total?: number; message?: string }) => seen.push(p) },
  );
  const r = resultOf(call);
  assert.equal(r.type, 'ok', JSON.stringify(r));
  assert.equal(r.affected_rows, 1500);
  assert.equal(r.inserted + r.updated + r.unchanged, 1500);
  assert.ok(seen.length > 0, 'progress notifications arrived');
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress);
  // The last notification carries the final count (the throttle held it back before).
  assert.equal(seen.at(-1)!.progress, 1500);
  assert.equal(seen.at(-1)!.total, 1500);
  assert.match(String(seen[0].message), /rows into knowledge base 'notes' \(\d+ inserted/);
});
