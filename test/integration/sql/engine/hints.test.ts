/** A failed statement written with another dialect's habits comes back with a concrete MySQL rewrite. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server?.stop());

test('errors of ::, date_trunc and ILIKE carry a hint; a right statement is untouched', async () => {
  const cases: [string, RegExp][] = [
    [
      'SELECT created_at::date FROM files.nothing_here',
      /Hint: MySQL has no '::' cast: write CAST\(created_at AS DATE\) or DATE\(created_at\)/,
    ],
    [
      "SELECT date_trunc('month', d) FROM (SELECT NOW() AS d) x",
      /Hint: MySQL has no date_trunc: write DATE_FORMAT\(d, '%Y-%m-01'\)/,
    ],
    ["SELECT 1 FROM (SELECT 'a' AS c) x WHERE c ILIKE 'A'", /Hint: MySQL has no ILIKE/],
  ];
  for (const [sql, re] of cases) {
    const r = await server.sql(sql);
    assert.equal(r.type, 'error', sql);
    assert.match(r.type === 'error' ? r.error_message : '', re);
  }
  const ok = await server.sql("SELECT DATE_FORMAT('2024-05-17', '%Y-%m-01') AS m");
  assert.deepEqual(ok, { type: 'table', column_names: ['m'], data: [['2024-05-01']] });
});
