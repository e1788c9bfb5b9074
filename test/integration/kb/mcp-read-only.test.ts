/** SPEC §8: in MCP read-only mode, statements that change a knowledge base are writes (1290); searches are reads. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { type Connected, connect, HTTP_KINDS, resultOf } from '../mcp/helpers/clients.js';

let srv: TestServer;
let c: Connected;
before(async () => {
  srv = await startTestServer({ TRIBUTARY_MCP_READ_ONLY: 'true' });
  c = await connect(HTTP_KINDS[0], srv.url);
  // Over HTTP, which read-only mode does not cover.
  for (const q of [
    `CREATE KNOWLEDGE_BASE notes USING content_columns = ['body'], metadata_columns = ['team']`,
    `INSERT INTO notes (id, body, team) VALUES (1, 'Deploys happen on Tuesdays.', 'ops'), (2, 'Refunds take five days.', 'billing')`,
  ])
    assert.equal((await srv.sql(q)).type, 'ok', q);
  const up = await fetch(`${srv.url}/api/files/more_notes`, {
    method: 'PUT',
    body: 'id,body\n3,Backups run nightly.\n',
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(up.status, 201);
});
after(async () => {
  await c?.terminate();
  await srv?.stop();
});

async function mcp(query: string) {
  return resultOf(await c.client.callTool({ name: 'query', arguments: { query } }));
}

const WRITES = [
  `CREATE KNOWLEDGE_BASE other USING content_columns = ['body']`,
  `CREATE KNOWLEDGE_BASE IF NOT EXISTS notes USING content_columns = ['body']`,
  `ALTER KNOWLEDGE_BASE notes USING embedding_model = {"api_key": "sk-0000000000000000"}`,
  `INSERT INTO notes (id, body, team) VALUES (9, 'Never stored.', 'ops')`,
  `INSERT INTO notes SELECT id, body FROM files.more_notes`,
  `DELETE FROM notes WHERE id = 1`,
  `DROP KNOWLEDGE_BASE notes`,
  `DROP KNOWLEDGE_BASE IF EXISTS notes`,
];

test('CREATE, ALTER, INSERT, DELETE and DROP of a KB over MCP are refused with 1290 and change nothing', async () => {
  for (const q of WRITES) {
    const r = await mcp(q);
    assert.equal(r.type, 'error', q);
    assert.equal(r.error_code, 1290, `${q}: ${r.error_message}`);
    assert.match(r.error_message, /read-only mode/);
  }
  const shown = await mcp(`SHOW KNOWLEDGE_BASES`);
  assert.equal(shown.type, 'table', JSON.stringify(shown));
  assert.deepEqual(
    shown.data.map((r: unknown[]) => [r[0], r[6]]),
    [['notes', 2]],
  );
});

test('searches, SHOW and DESCRIBE of a KB are reads', async () => {
  const hits = await mcp(`SELECT id FROM notes WHERE content = 'refunds' LIMIT 1`);
  assert.equal(hits.type, 'table', JSON.stringify(hits));
  assert.deepEqual(hits.data, [['2']]);
  const filtered = await mcp(`SELECT id FROM notes WHERE team = 'ops'`);
  assert.deepEqual(filtered.data, [['1']]);
  assert.equal((await mcp('DESCRIBE KNOWLEDGE_BASE notes')).type, 'table');
});
