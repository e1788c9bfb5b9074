import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { type Connected, connect, HTTP_KINDS, jsonContents } from '../mcp/helpers/clients.js';

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
      embedding_model: { provider: 'builtin', dimension: 256 },
      storage: 'embedded',
      rows: 1,
      chunks: 1,
    },
  ]);
});
