/**
 * Principals from every auth mode, as each face carries them to the engine (SPEC section 12):
 * users of auth.users_file beside TRIBUTARY_USERNAME, logging in over HTTP and the MySQL
 * listener (the mariadb CLI, PyMySQL and mysql2 as shipped, with and without TLS), the file
 * changed while the server runs, and `local` with auth off. `SELECT CURRENT_USER()` shows who
 * a statement runs as.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import mysql from 'mysql2/promise';
import { hashPassword } from '../../../src/auth/password-hash.js';
import { loadConfig } from '../../../src/config/load.js';
import { runCli } from '../../helpers/cli.js';
import { DEBIAN_PYTHON, ensureJavaClients } from '../../helpers/debian-clients.js';
import { captureLogger, loginToken, start, startTestServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);
const WHO = 'SELECT CURRENT_USER() AS u, CURRENT_GROUPS() AS g';
const ADMIN = { user: 'boss', password: 'boss password' };
const ANA = { user: 'ana', password: 'ana pässword 1' };
const BO = { user: 'bo', password: 'bo password' };
/** Only Connector/J logs in as jo (its URL takes no spaces in a password). */
const JO = { user: 'jo', password: 'jo-Pa55' };

const dir = mkdtempSync(join(tmpdir(), 'tributary-principals-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the users file as an editor would: a new file renamed over the old one. */
async function writeUsers(
  path: string,
  users: { username: string; password?: string; groups?: string[]; password_hash?: string }[],
) {
  const doc = [];
  for (const u of users)
    doc.push({
      username: u.username,
      password_hash: u.password_hash ?? (await hashPassword(u.password!)),
      ...(u.groups ? { groups: u.groups } : {}),
    });
  writeFileSync(`${path}.tmp`, JSON.stringify(doc, null, 2));
  renameSync(`${path}.tmp`, path);
}

async function sqlAs(
  url: string,
  token: string | null,
  query: string,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: await res.json() };
}

async function until(check: () => Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Who the MCP query tool runs as, over Streamable HTTP and over SSE (each answer, in that order). */
async function mcpWho(url: string, token: string | null): Promise<unknown[]> {
  const init = token ? { headers: { authorization: `Bearer ${token}` } } : {};
  const out: unknown[] = [];
  for (const transport of [
    new StreamableHTTPClientTransport(new URL(`${url}/mcp/streamable`), { requestInit: init }),
    new SSEClientTransport(new URL(`${url}/mcp/sse`), { requestInit: init }),
  ]) {
    const client = new Client({ name: 'principals-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'query', arguments: { query: WHO } });
      out.push((r.structuredContent as { result: { data: unknown } }).result.data);
    } finally {
      await client.close();
    }
  }
  return out;
}

async function mariadb(port: number, user: string, password: string, extra: string[] = []) {
  try {
    const r = await run(
      'mariadb',
      ['-h127.0.0.1', `-P${port}`, '--protocol=TCP', `-u${user}`, `-p${password}`, '-N', ...extra, '-e', WHO],
      { timeout: 20_000 },
    );
    return { out: r.stdout.trim(), err: '' };
  } catch (e) {
    return { out: '', err: String((e as { stderr?: string }).stderr) };
  }
}

const PY = `
import json, sys, pymysql
port, user, password = int(sys.argv[1]), sys.argv[2], sys.argv[3]
out = {}
try:
    c = pymysql.connect(host='127.0.0.1', port=port, user=user, password=password, connect_timeout=20)
    cur = c.cursor()
    cur.execute(${JSON.stringify(WHO)})
    out['rows'] = [list(r) for r in cur.fetchall()]
    c.close()
except pymysql.err.OperationalError as e:
    out['error'] = e.args[0]
print(json.dumps(out))
`;

async function pymysql(
  port: number,
  user: string,
  password: string,
): Promise<{ rows?: unknown; error?: number }> {
  const r = await run(DEBIAN_PYTHON, ['-c', PY, String(port), user, password], { timeout: 60_000 });
  return JSON.parse(r.stdout);
}

describe('token auth with a users file', () => {
  let server: TestServer;
  let usersFile = '';
  let port = 0;

  before(async () => {
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
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    usersFile = join(dir, 'users.json');
    await writeUsers(usersFile, [
      { username: ANA.user, password: ANA.password, groups: ['support', 'eu'] },
      { username: BO.user, password: BO.password },
      { username: JO.user, password: JO.password, groups: ['finance'] },
    ]);
    server = await startTestServer({
      TRIBUTARY_USERNAME: ADMIN.user,
      TRIBUTARY_PASSWORD: ADMIN.password,
      TRIBUTARY_USERS_FILE: usersFile,
      TRIBUTARY_MYSQL_TLS_CERT: join(dir, 'cert.pem'),
      TRIBUTARY_MYSQL_TLS_KEY: join(dir, 'key.pem'),
    });
    port = server.running.mysql!.port;
  });
  after(async () => {
    await server?.close();
  });

  test('POST /api/login: file users and the admin get tokens; a wrong password and an unknown user the same 401', async () => {
    for (const [u, want] of [
      [ANA, [['ana', 'support,eu']]],
      [BO, [['bo', '']]],
      [ADMIN, [['boss', '']]],
    ] as const) {
      const token = await loginToken(server.url, u.user, u.password);
      const r = await sqlAs(server.url, token, WHO);
      assert.deepEqual(r.body.data, want, u.user);
    }
    const answers = [];
    for (const [user, password] of [
      [ANA.user, BO.password],
      ['nobody', ANA.password],
      [ADMIN.user, ANA.password],
    ]) {
      const res = await fetch(`${server.url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: user, password }),
      });
      answers.push([res.status, await res.text()]);
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.deepEqual(answers[0], answers[2]);
    assert.equal(answers[0][0], 401);
  });

  test('MCP over Streamable HTTP and SSE runs as the token user', async () => {
    const token = await loginToken(server.url, ANA.user, ANA.password);
    assert.deepEqual(await mcpWho(server.url, token), [[['ana', 'support,eu']], [['ana', 'support,eu']]]);
  });

  test('the CLI with --url runs as the user of its token', async () => {
    const token = await loginToken(server.url, ANA.user, ANA.password);
    const r = await runCli(['query', '--json', '--url', server.url, '--token', token, WHO], {
      storageDir: dir,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).data, [['ana', 'support,eu']]);
  });

  test('the mariadb CLI logs in as a file user (caching_sha2_password, or switched to it), with and without TLS', async () => {
    for (const extra of [[], ['--default-auth=mysql_native_password'], ['--ssl']]) {
      const r = await mariadb(port, ANA.user, ANA.password, extra);
      assert.equal(r.err, '', extra.join(' '));
      assert.equal(r.out, 'ana\tsupport,eu', extra.join(' '));
    }
    const wrong = await mariadb(port, ANA.user, BO.password);
    assert.match(wrong.err, /ERROR 1045 .*Access denied for user 'ana'.*\(using password: YES\)/);
    // The admin still logs in as before, with either plugin.
    const admin = await mariadb(port, ADMIN.user, ADMIN.password, ['--default-auth=mysql_native_password']);
    assert.match(admin.out, /^boss\s*$/);
  });

  test('PyMySQL (as installed, defaults) logs in as a file user; a wrong password is 1045', async () => {
    assert.deepEqual(await pymysql(port, ANA.user, ANA.password), { rows: [['ana', 'support,eu']] });
    assert.deepEqual(await pymysql(port, ANA.user, 'nope'), { error: 1045 });
    assert.deepEqual(await pymysql(port, 'nobody', 'nope'), { error: 1045 });
  });

  test('mysql2 logs in as a file user, on plain TCP (RSA) and TLS, and again', async () => {
    for (const ssl of [undefined, { rejectUnauthorized: false }, undefined]) {
      const c = await mysql.createConnection({
        host: '127.0.0.1',
        port,
        user: BO.user,
        password: BO.password,
        ssl,
      });
      const [rows] = await c.query<mysql.RowDataPacket[]>(WHO);
      assert.deepEqual({ ...rows[0] }, { u: 'bo', g: '' });
      // A prepared statement (COM_STMT_PREPARE / EXECUTE) runs as the same principal.
      const [prepared] = await c.execute<mysql.RowDataPacket[]>(`${WHO} WHERE ? = 1`, [1]);
      assert.deepEqual({ ...prepared[0] }, { u: 'bo', g: '' });
      await c.end();
    }
    await assert.rejects(
      mysql.createConnection({ host: '127.0.0.1', port, user: BO.user, password: ANA.password }),
      (e: { errno?: number }) => e.errno === 1045,
    );
  });

  test('MariaDB Connector/J logs in as a file user over TLS or with allowPublicKeyRetrieval, then by the fast path', async () => {
    const java = ensureJavaClients();
    const classes = mkdtempSync(join(tmpdir(), 'tributary-principals-jdbc-'));
    try {
      const source = new URL('../wire/jdbc/WhoAmI.java', import.meta.url).pathname;
      execFileSync(java.javac, ['-d', classes, '-cp', java.jar, source], { stdio: 'pipe', timeout: 120_000 });
      const who = async (password: string, options = '') => {
        const url = `jdbc:mariadb://127.0.0.1:${port}/?user=${JO.user}&password=${password}${options}`;
        const r = await run(java.java, ['-cp', `${java.jar}:${classes}`, 'WhoAmI', url], { timeout: 60_000 });
        return r.stdout.trim();
      };
      // Before any login of jo, a plain connection needs the server's RSA key, which Connector/J
      // fetches only when allowed: it refuses on its own side.
      assert.match(await who(JO.password), /^ERR 0 .*RSA public key is not available client side/);
      assert.equal(await who(JO.password, '&allowPublicKeyRetrieval=true'), 'jo|finance');
      assert.equal(await who(JO.password, '&useSsl=true&trustServerCertificate=true'), 'jo|finance');
      assert.match(
        await who('wrong', '&allowPublicKeyRetrieval=true'),
        /^ERR 1045 .*Access denied for user 'jo'/,
      );
      // Logged in once: the fast path needs neither TLS nor the key.
      assert.equal(await who(JO.password), 'jo|finance');
    } finally {
      rmSync(classes, { recursive: true, force: true });
    }
  });

  test('a changed file applies to the next statement: groups, a removed user; a bad file keeps the users', async () => {
    const token = await loginToken(server.url, ANA.user, ANA.password);
    const conn = await mysql.createConnection({
      host: '127.0.0.1',
      port,
      user: ANA.user,
      password: ANA.password,
    });
    try {
      await writeUsers(usersFile, [
        { username: ANA.user, password: ANA.password, groups: ['finance'] },
        { username: BO.user, password: BO.password },
      ]);
      await until(
        async () => (await sqlAs(server.url, token, WHO)).body.data?.[0]?.[1] === 'finance',
        'the new groups over HTTP',
      );
      const [rows] = await conn.query<mysql.RowDataPacket[]>(WHO);
      assert.deepEqual({ ...rows[0] }, { u: 'ana', g: 'finance' });

      // A broken file: logged, and the users read before stay.
      writeFileSync(usersFile, '[{"username": "ana", "password_hash": "plain"}]');
      await until(async () => server.logs.some((l) => l.includes('users file not reloaded')), 'the log line');
      assert.ok(server.logs.some((l) => l.includes('entry 1 (\\"ana\\"): password_hash is not of the form')));
      assert.equal((await sqlAs(server.url, token, WHO)).body.data?.[0]?.[1], 'finance');

      // Ana removed: her token and her open connection stop working.
      await writeUsers(usersFile, [{ username: BO.user, password: BO.password }]);
      await until(async () => (await sqlAs(server.url, token, WHO)).status === 401, 'the token refused');
      await assert.rejects(conn.query(WHO), (e: { errno?: number }) => e.errno === 1045);
      const r = await mariadb(port, ANA.user, ANA.password);
      assert.match(r.err, /ERROR 1045/);
    } finally {
      conn.destroy();
    }
  });

  test('logs never hold a password', () => {
    const all = server.logs.join('\n');
    for (const p of [ADMIN.password, ANA.password, BO.password]) assert.ok(!all.includes(p), p);
  });
});

describe('start-up', () => {
  test('a bad users file stops start-up naming the entry; a users file needs token auth', async () => {
    const path = join(dir, 'bad-users.json');
    await writeUsers(path, [
      { username: 'ok', password: 'x' },
      { username: 'carla', password_hash: 'scrypt$N=3,r=8,p=1$abc$def' },
    ]);
    const storage = mkdtempSync(join(tmpdir(), 'tributary-principals-start-'));
    try {
      const env = {
        TRIBUTARY_STORAGE_DIR: storage,
        TRIBUTARY_MYSQL_PORT: '0',
        TRIBUTARY_USERS_FILE: path,
        TRIBUTARY_USERNAME: 'admin',
        TRIBUTARY_PASSWORD: 'pw',
      };
      const { logger } = captureLogger();
      await assert.rejects(start(await loadConfig({ argv: { port: 0 }, env }), logger), (e: Error) =>
        /auth\.users_file .*bad-users\.json: entry 2 \("carla"\): password_hash has scrypt N=3/.test(
          e.message,
        ),
      );
      const { TRIBUTARY_USERNAME: _u, TRIBUTARY_PASSWORD: _p, ...noToken } = env;
      await assert.rejects(
        start(await loadConfig({ argv: { port: 0 }, env: noToken }), logger),
        /TRIBUTARY_USERNAME and TRIBUTARY_PASSWORD/,
      );
    } finally {
      rmSync(storage, { recursive: true, force: true });
    }
  });
});

describe('auth off: every face runs as local', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
  });

  test('HTTP, MCP and the MySQL listener', async () => {
    assert.deepEqual((await sqlAs(server.url, null, WHO)).body.data, [['local', '']]);
    assert.deepEqual(await mcpWho(server.url, null), [[['local', '']], [['local', '']]]);
    const c = await mysql.createConnection({
      host: '127.0.0.1',
      port: server.running.mysql!.port,
      user: 'anyone',
    });
    const [rows] = await c.query<mysql.RowDataPacket[]>(`${WHO}, USER() AS claimed`);
    // USER() is the name the client gave (MySQL's meaning); CURRENT_USER() the principal.
    assert.deepEqual({ ...rows[0] }, { u: 'local', g: '', claimed: 'anyone@127.0.0.1' });
    await c.end();
  });
});
