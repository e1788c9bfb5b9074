/**
 * `tributary query` on a large PostgreSQL table, in process and against a running server
 * (--url, also from TRIBUTARY_URL): a capped table, every row as CSV/JSON, several
 * statements with USE that sticks, SQL from a file and from stdin.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../../helpers/cli.js';
import { pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createPgDatabase, pgExec } from '../../helpers/services.js';

const N = 30_000;
let server: TestServer;
let db: Awaited<ReturnType<typeof createPgDatabase>>;

before(async () => {
  db = await createPgDatabase('cli');
  await pgExec(
    db.database,
    `CREATE TABLE events AS SELECT g AS id, 'event ' || g AS name FROM generate_series(1, ${N}) g`,
  );
  server = await startTestServer();
  const r = await server.sql(
    `CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(db.database)}`,
  );
  assert.equal(r.type, 'ok', JSON.stringify(r));
});

after(async () => {
  await server?.stop();
  await db?.drop();
});

const cli = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  runCli(args, { storageDir: server.storageDir, ...opts });

describe('tributary query output', () => {
  test('a big table prints its first rows and how many more (in process)', async () => {
    const r = await cli(['query', 'SELECT * FROM pg.events ORDER BY id']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.filter((l) => /^\| \d/.test(l)).length, 200);
    assert.match(
      lines.at(-1)!,
      new RegExp(`^… (${N - 200}|at least \\d+) more rows \\(use --json, --csv or LIMIT\\)$`),
    );
  });

  test('through a server (TRIBUTARY_URL): --csv and --json stream every row', async () => {
    const env = { TRIBUTARY_URL: server.url };
    const csv = await cli(['query', '--csv', 'SELECT * FROM pg.events ORDER BY id'], { env });
    assert.equal(csv.code, 0, csv.stderr);
    const lines = csv.stdout.split('\r\n');
    assert.equal(lines[0], 'id,name');
    assert.equal(lines[N], `${N},event ${N}`);
    assert.equal(lines.length, N + 2);
    const json = await cli(['query', '--json', '--max-rows', '3', 'SELECT * FROM pg.events ORDER BY id'], {
      env,
    });
    const r = JSON.parse(json.stdout);
    assert.equal(r.data.length, N);
    const table = await cli(['query', '--url', server.url, '--max-rows', '3', 'SELECT * FROM pg.events']);
    assert.match(table.stdout, /… (\d+|at least \d+) more rows/);
  });

  for (const remote of [false, true]) {
    test(`several statements from a file and stdin, USE sticks (${remote ? 'server' : 'in process'})`, async () => {
      const url = remote ? ['--url', server.url] : [];
      const file = join(server.storageDir, 'script.sql');
      writeFileSync(
        file,
        "-- a comment; not a statement\nUSE pg;\nSELECT COUNT(*) AS n\n  FROM events;\nSELECT ';' AS semi",
      );
      const r = await cli(['query', ...url, '--json', '-f', file]);
      assert.equal(r.code, 0, r.stderr);
      const out = r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(out, [
        { type: 'ok', affected_rows: 0 },
        { type: 'table', column_names: ['n'], data: [[N]] },
        { type: 'table', column_names: ['semi'], data: [[';']] },
      ]);
      const bad = await cli(['query', ...url, '-'], {
        input: 'USE pg;\nSELECT 1;\nSELECT nope FROM events;\nSELECT 2;',
      });
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /ERROR 1054/);
      assert.match(bad.stderr, /statement 3 of 4 \(line 3\)/);
      assert.doesNotMatch(bad.stdout, /\| 2 /);
    });
  }

  test('a wrong token against a server is a clear failure, exit 1', async () => {
    const s = await startTestServer({ TRIBUTARY_USERNAME: 'u', TRIBUTARY_PASSWORD: 'p' });
    try {
      const r = await cli(['query', '--url', s.url, '--token', 'wrong', 'SELECT 1']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /401/);
    } finally {
      await s.stop();
    }
  });
});
