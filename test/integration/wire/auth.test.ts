/** Token auth and TLS on the MySQL listener: both password plugins, 1045, the limiter shared with /api/login. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import mysql from 'mysql2/promise';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let certDir = '';
const USER = 'wire-admin';
const PASSWORD = 'correct horse';

before(async () => {
  certDir = mkdtempSync(join(tmpdir(), 'tributary-wire-tls-'));
  // The machine's openssl makes a throwaway self-signed certificate for 127.0.0.1.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      join(certDir, 'key.pem'),
      '-out',
      join(certDir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  server = await startTestServer({
    TRIBUTARY_USERNAME: USER,
    TRIBUTARY_PASSWORD: PASSWORD,
    TRIBUTARY_MYSQL_TLS_CERT: join(certDir, 'cert.pem'),
    TRIBUTARY_MYSQL_TLS_KEY: join(certDir, 'key.pem'),
  });
});

after(async () => {
  await server?.stop();
  rmSync(certDir, { recursive: true, force: true });
});

const opts = (o: mysql.ConnectionOptions = {}): mysql.ConnectionOptions => ({
  host: '127.0.0.1',
  port: server.mysql!.port,
  user: USER,
  password: PASSWORD,
  ...o,
});

test('caching_sha2_password (mysql2 default) and mysql_native_password both log in with the configured user', async () => {
  const sha2 = await mysql.createConnection(opts());
  const [rows] = await sha2.query<mysql.RowDataPacket[]>('SELECT USER() AS u');
  assert.match(String(rows[0].u), /^wire-admin@/);
  await sha2.end();
  // A legacy auth-switch handler makes mysql2 answer the greeting with mysql_native_password.
  const native = await mysql.createConnection({
    ...opts(),
    authSwitchHandler: () => {},
  } as mysql.ConnectionOptions);
  const [one] = await native.query<mysql.RowDataPacket[]>('SELECT 1 AS x');
  assert.equal(one[0].x, 1);
  await native.end();
});

test('TLS: the session is encrypted, and the full caching_sha2 path refuses a wrong password over it', async () => {
  const conn = await mysql.createConnection(opts({ ssl: { rejectUnauthorized: false } }));
  const [rows] = await conn.query<mysql.RowDataPacket[]>("SHOW STATUS LIKE 'Ssl_cipher'");
  assert.notEqual(rows[0].Value, '');
  const [have] = await conn.query<mysql.RowDataPacket[]>('SELECT @@have_ssl AS h');
  assert.equal(have[0].h, 'YES');
  await conn.end();
  await assert.rejects(
    mysql.createConnection(opts({ password: 'nope', ssl: { rejectUnauthorized: false } })),
    {
      errno: 1045,
      sqlState: '28000',
    },
  );
});

test('bad credentials get 1045; failures count with /api/login failures of the same address', async () => {
  await assert.rejects(mysql.createConnection(opts({ user: 'someone' })), { errno: 1045 });
  // Without TLS mysql2 takes the RSA full path after the wrong fast-path token; still 1045.
  await assert.rejects(
    mysql.createConnection(opts({ password: 'wrong' })),
    (e: { errno: number; message: string }) => {
      assert.equal(e.errno, 1045);
      assert.match(e.message, /Access denied for user 'wire-admin'@'127\.0\.0\.1' \(using password: YES\)/);
      assert.doesNotMatch(e.message, /wrong/);
      return true;
    },
  );
  // Three failures so far over the listener (one in the TLS test): /api/login allows the other seven of ten.
  let refusedAfter = 0;
  for (let i = 0; i < 12; i++) {
    const r = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: USER, password: 'bad' }),
    });
    if (r.status === 429) break;
    assert.equal(r.status, 401);
    refusedAfter++;
  }
  assert.equal(refusedAfter, 7);
  await assert.rejects(mysql.createConnection(opts()), (e: { errno: number; message: string }) => {
    assert.equal(e.errno, 1129);
    assert.match(e.message, /retry after \d+ s/);
    return true;
  });
  const r = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: USER, password: PASSWORD }),
  });
  assert.equal(r.status, 429);
});
