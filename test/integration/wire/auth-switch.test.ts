/**
 * Clients whose password plugin is not the greeting's, and clients without a password, with
 * token auth on: `mariadb --default-auth=mysql_native_password` is switched to it (an
 * AuthSwitchRequest) and logs in; a client sending no password gets 1045 at once (PyMySQL
 * used to wait for a full-auth exchange it never answers, then report 2013).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ensurePythonClients } from '../../helpers/debian-clients.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const run = promisify(execFile);
const USER = 'wire-admin';
const PASSWORD = 'correct horse';
let server: TestServer;
let python = '';

before(async () => {
  python = ensurePythonClients();
  server = await startTestServer({ TRIBUTARY_USERNAME: USER, TRIBUTARY_PASSWORD: PASSWORD });
});

after(async () => {
  await server?.stop();
});

async function mariadb(args: string[]): Promise<{ out: string; err: string }> {
  try {
    const r = await run(
      'mariadb',
      ['-h127.0.0.1', `-P${server.mysql!.port}`, '--protocol=TCP', `-u${USER}`, '-N', ...args],
      { timeout: 20_000 },
    );
    return { out: r.stdout, err: '' };
  } catch (e) {
    return { out: '', err: String((e as { stderr?: string }).stderr) };
  }
}

test('mariadb --default-auth=mysql_native_password and caching_sha2_password both log in', async () => {
  for (const plugin of ['mysql_native_password', 'caching_sha2_password']) {
    const r = await mariadb([`--default-auth=${plugin}`, `-p${PASSWORD}`, '-e', 'SELECT CURRENT_USER()']);
    assert.equal(r.err, '', plugin);
    assert.equal(r.out.trim(), USER, plugin);
  }
  const wrong = await mariadb(['--default-auth=mysql_native_password', '-pnope', '-e', 'SELECT 1']);
  assert.match(wrong.err, /ERROR 1045 .*\(using password: YES\)/);
  const none = await mariadb(['--default-auth=mysql_native_password', '-e', 'SELECT 1']);
  assert.match(none.err, /ERROR 1045 .*\(using password: NO\)/);
  const plain = await mariadb(['-e', 'SELECT 1']);
  assert.match(plain.err, /ERROR 1045 .*\(using password: NO\)/);
});

test('PyMySQL without a password gets OperationalError 1045 (not 2013)', async () => {
  const script = `
import pymysql, sys
try:
    pymysql.connect(host='127.0.0.1', port=int(sys.argv[1]), user=sys.argv[2], connect_timeout=20)
    print('connected')
except pymysql.err.OperationalError as e:
    print(e.args[0], e.args[1])
`;
  const started = Date.now();
  const { stdout } = await run(python, ['-c', script, String(server.mysql!.port), USER], { timeout: 30_000 });
  assert.equal(stdout.trim(), `1045 Access denied for user '${USER}'@'127.0.0.1' (using password: NO)`);
  assert.ok(Date.now() - started < 5000, 'answered at once, not after the handshake time-out');
});
