/**
 * Long work: progress notifications when the client asks for them, and cancellation that
 * stops the statement on the database itself, over every HTTP transport.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { MARIADB } from '../../helpers/services.js';
import { type McpTestApp, startMcpApp } from './helpers/app.js';
import { connect, HTTP_KINDS, resultOf } from './helpers/clients.js';
import { BIG_ROWS, createShopDatabase } from './helpers/fixture.js';
import { MariaEngine } from './helpers/maria-engine.js';
import { running, until } from './helpers/watch.js';

let db: { database: string; drop: () => Promise<void> };
let app: McpTestApp;
let admin: mysql.Connection;

before(async () => {
  db = await createShopDatabase();
  app = await startMcpApp(new MariaEngine([db.database]));
  admin = await mysql.createConnection({ ...MARIADB, database: undefined });
});

after(async () => {
  await admin?.end();
  await app?.close();
  await db?.drop();
});

for (const kind of HTTP_KINDS) {
  describe(`long work over ${kind}`, () => {
    test('a client that sends a progress token gets increasing progress while rows are read', async () => {
      const c = await connect(kind, app.url);
      try {
        const seen: number[] = [];
        const call = await c.client.callTool(
          { name: 'query', arguments: { query: `SELECT n FROM ${db.database}.numbers ORDER BY n` } },
          undefined,
          { onprogress: (p: { progress: number }) => seen.push(p.progress) },
        );
        assert.equal(resultOf(call).data.length, BIG_ROWS);
        assert.ok(seen.length > 0, 'progress notifications arrived');
        for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1], `increasing: ${seen}`);
        assert.ok(seen.at(-1)! <= BIG_ROWS);
      } finally {
        await c.terminate();
      }
    });

    test('cancelling a call stops the query on the database', async () => {
      const c = await connect(kind, app.url);
      const engine = app.deps.engine as MariaEngine;
      const marker = `cancel_${randomBytes(4).toString('hex')}`;
      try {
        const ctrl = new AbortController();
        const call = c.client.callTool(
          { name: 'query', arguments: { query: `SELECT SLEEP(60) AS ${marker}` } },
          undefined,
          { signal: ctrl.signal, timeout: 120_000 },
        );
        call.catch(() => {});
        await until('the query to run on MariaDB', () => running(admin, marker));
        ctrl.abort();
        await assert.rejects(call);
        await until('the query to be stopped on MariaDB', async () => !(await running(admin, marker)));
        const seen = engine.seen.find((s) => s.sql.includes(marker));
        assert.equal(seen?.opts.signal?.aborted, true);
        // the connection stays usable after a cancelled call
        const next = await c.client.callTool({ name: 'query', arguments: { query: 'SELECT 3 AS three' } });
        assert.deepEqual(resultOf(next).data, [[3]]);
      } finally {
        await c.terminate();
      }
    });
  });
}
