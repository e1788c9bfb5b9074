/** query.max_fragment_rows: a cross-source statement that would pull too much into the local engine is 1104. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../../helpers/server.js';
import { type TwoSources, twoSources } from './two-sources.js';

let fx: TwoSources;
let server: TestServer;

before(async () => {
  fx = await twoSources(
    'fault_fragment',
    {
      pg: 'CREATE TABLE events AS SELECT g AS id, g % 100 AS user_id FROM generate_series(1, 5000) g',
      my: 'CREATE TABLE users AS SELECT seq AS id FROM seq_1_to_100',
    },
    { TRIBUTARY_QUERY_MAX_FRAGMENT_ROWS: '1000' },
  );
  ({ server } = fx);
});

after(async () => {
  await fx?.close();
});

test('a fragment past the limit is 1104 naming the source, the table and the limit', async () => {
  const r = await server.sql('SELECT COUNT(*) FROM pg.events e CROSS JOIN my.users u');
  assert.equal(r.type, 'error');
  if (r.type === 'error') {
    assert.equal(r.error_code, 1104);
    assert.match(r.error_message, /more than 1000 rows of 'pg\.events'.*query\.max_fragment_rows/);
  }
});

test('fragments within the limit are untouched, and statements one source runs whole have no limit', async () => {
  const small = await server.sql(
    'SELECT COUNT(*) FROM pg.events e JOIN my.users u ON u.id = e.user_id WHERE e.id <= 1000',
  );
  assert.deepEqual(small.type === 'table' && small.data, [[990]]);
  const whole = await server.sql('SELECT COUNT(*) FROM pg.events');
  assert.deepEqual(whole.type === 'table' && whole.data, [[5000]]);
});
