/**
 * Who sees whose statements in the process list: with token auth and OAuth on, two OAuth
 * principals (alice, bob) each see only their own; the admin user (TRIBUTARY_USERNAME, over
 * the MySQL listener) sees and may KILL everyone's; KILL of a statement one cannot see is 1095.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { PG, pgExec } from '../../helpers/services.js';
import { INTROSPECTION_CLIENT, startIssuer, type TestIssuer } from '../auth/helpers/issuer.js';
import { startWireFixture, type WireFixture } from './helpers.js';

const ADMIN = 'wire-admin';
const PASSWORD = 'correct horse';
let issuer: TestIssuer;
let fx: WireFixture;

before(async () => {
  issuer = await startIssuer();
  fx = await startWireFixture({
    TRIBUTARY_USERNAME: ADMIN,
    TRIBUTARY_PASSWORD: PASSWORD,
    TRIBUTARY_MCP_OAUTH_ENABLED: 'true',
    TRIBUTARY_MCP_OAUTH_ISSUER_URL: issuer.issuer,
    TRIBUTARY_MCP_OAUTH_CLIENT_ID: INTROSPECTION_CLIENT.id,
    TRIBUTARY_MCP_OAUTH_CLIENT_SECRET: INTROSPECTION_CLIENT.secret,
  });
  await pgExec(fx.pgDatabase, 'CREATE VIEW slow_pg AS SELECT pg_sleep(60)::text AS s');
});

after(async () => {
  await fx?.stop();
  await issuer?.close();
});

/** A JWT access token of the test issuer for subject `sub`. */
async function tokenFor(sub: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return issuer.mint({
    iss: issuer.issuer,
    aud: `${fx.server.url}/mcp/streamable`,
    scope: 'mcp:tools',
    client_id: 'agent-jwt',
    sub,
    iat: now,
    exp: now + 600,
  });
}

type Answer = { type: string; error_code?: number; error_message?: string; data?: unknown[][] };

function sqlAs(token: string, query: string): Promise<Answer> {
  return fetch(`${fx.server.url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  }).then((r) => r.json() as Promise<Answer>);
}

async function pgRunning(): Promise<number> {
  const c = new pg.Client({ ...PG, database: fx.pgDatabase });
  await c.connect();
  try {
    const r = await c.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE '%slow_pg%' AND pid <> pg_backend_pid()",
      [fx.pgDatabase],
    );
    return Number(r.rows[0].n);
  } finally {
    await c.end();
  }
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('each principal sees only its own statements; the admin sees and kills all', async () => {
  const alice = await tokenFor('alice');
  const bob = await tokenFor('bob');
  const slow = sqlAs(alice, 'SELECT s FROM pgs.slow_pg');
  await waitFor(async () => (await pgRunning()) > 0, "alice's statement reaches PostgreSQL");

  const admin = await mysql.createConnection({
    host: '127.0.0.1',
    port: fx.port,
    user: ADMIN,
    password: PASSWORD,
  });
  const [all] = await admin.query<mysql.RowDataPacket[]>('SHOW PROCESSLIST');
  const alices = all.find((r) => r.Info === 'SELECT s FROM pgs.slow_pg');
  assert.ok(alices, `the admin sees alice's statement: ${JSON.stringify(all)}`);
  assert.equal(alices.User, 'alice');
  assert.ok(all.some((r) => r.Id === admin.threadId && r.User === ADMIN));

  // bob sees only his own, in both forms.
  const bobs = await sqlAs(bob, 'SHOW FULL PROCESSLIST');
  assert.deepEqual(
    bobs.data?.map((r) => [r[1], r[7]]),
    [['bob', 'SHOW FULL PROCESSLIST']],
  );
  const bobInfo = await sqlAs(bob, 'SELECT USER, INFO FROM information_schema.PROCESSLIST');
  assert.deepEqual(bobInfo.data, [['bob', 'SELECT USER, INFO FROM information_schema.PROCESSLIST']]);
  // ...and may not stop alice's, nor the admin's connection.
  for (const id of [alices.Id, admin.threadId]) {
    const denied = await sqlAs(bob, `KILL QUERY ${id}`);
    assert.deepEqual(denied, {
      type: 'error',
      error_code: 1095,
      error_message: `You are not owner of thread ${id}`,
    });
  }
  assert.equal(await pgRunning(), 1, "alice's statement still runs");
  const hers = await sqlAs(alice, 'SHOW PROCESSLIST');
  assert.ok(hers.data?.some((r) => r[0] === alices.Id));
  assert.ok(hers.data?.every((r) => r[1] === 'alice'));

  await admin.query(`KILL QUERY ${alices.Id}`);
  const answer = await slow;
  assert.equal(answer.error_code, 1317);
  await waitFor(async () => (await pgRunning()) === 0, 'PostgreSQL no longer runs it');
  await admin.end();
});
