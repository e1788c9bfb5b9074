/**
 * The access policy's bypass suite (SPEC section 12), written as an attacker would: a real
 * server with token auth (an admin, and `support` and `analyst` users of auth.users_file),
 * OAuth beside it (the real oidc-provider, whose JWT carries groups `support,eu`), and a
 * policy file that keeps only EU tickets, masks `email` and hides `ssn` on a PostgreSQL table.
 * Every SQL shape is asked over every face (HTTP, MCP Streamable HTTP with the SDK client, the
 * MySQL listener as text and as prepared statements, the mariadb CLI once, the console's schema
 * statements) and each answer is compared with the oracle: the same statement run by the admin
 * over a PostgreSQL view holding exactly the filtered, masked rows. No answer text, error or
 * EXPLAIN may carry a raw value of a filtered row or a masked column.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import mysql from 'mysql2/promise';
import { hashPassword } from '../../../../src/auth/password-hash.js';
import { mariaParams, pgParams } from '../../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../../helpers/services.js';
import { INTROSPECTION_CLIENT, startIssuer, type TestIssuer } from '../../auth/helpers/issuer.js';
import { loginToken, startTestServer, type TestServer } from '../../auth/helpers/server.js';

const run = promisify(execFile);
const ADMIN = { user: 'boss', password: 'boss password 31' };
const SUPPORT = { user: 'support', password: 'support password 31' };
const ANALYST = { user: 'analyst', password: 'analyst password 31' };

/** Values no answer to a bound principal may ever carry: raw emails, SSNs, the US row's text. */
const SECRETS = [
  'ada@example.com',
  'bob@example.com',
  'cy@example.com',
  'example.com',
  '111-11-1111',
  '222-22-2222',
  '333-33-3333',
  'us-only-body',
];

const MASK = "CONCAT(LEFT(email, 2), '***')";
const policyDoc = (filter: string) => ({
  sources: [
    { group: 'support', source: 'crm', allow: 'read' },
    { group: 'analysts', source: 'crm', allow: 'read' },
    { group: 'support', source: 'shop', allow: 'read' },
  ],
  tables: [
    {
      group: 'support',
      source: 'crm',
      table: 'tickets',
      privileges: ['SELECT'],
      filter,
      columns: [
        { name: 'email', mask: MASK },
        { name: 'ssn', allow: false },
      ],
    },
    { group: 'support', source: 'crm', table: 'customers', privileges: ['SELECT'] },
    { group: 'support', source: 'shop', table: 'notes', privileges: ['SELECT'] },
    {
      group: 'analysts',
      source: 'crm',
      table: 'tickets|customers',
      privileges: ['SELECT'],
      columns: [
        { name: 'email', mask: MASK },
        { name: 'ssn', allow: false },
      ],
    },
  ],
  knowledge_bases: [{ group: 'support', name: 'leak_kb', privileges: ['SELECT', 'INSERT'] }],
});

/** Each shape: `T` is the tickets table (the oracle's view for the admin), `N` its bare name. */
const SHAPES: Record<string, string> = {
  star: 'SELECT * FROM T ORDER BY id',
  or: "SELECT id, email FROM T WHERE region = 'US' OR 1 = 1 ORDER BY id",
  or_on_masked: "SELECT id FROM T WHERE email = 'bob@example.com' OR email LIKE 'bo%' OR id = 2 ORDER BY id",
  masked_predicate: "SELECT COUNT(*) AS n FROM T WHERE email = 'ada@example.com'",
  masked_like: "SELECT id, email FROM T WHERE email LIKE 'ad%' ORDER BY id",
  alias: 'SELECT x.id, x.email, x.region FROM T AS x ORDER BY x.id',
  scalar_subquery: 'SELECT (SELECT COUNT(*) FROM T) AS n, (SELECT MAX(email) FROM T) AS m',
  derived: 'SELECT d.id, d.email FROM (SELECT id, email FROM T) AS d ORDER BY d.id',
  cte: "WITH c AS (SELECT * FROM T WHERE region <> 'EU') SELECT COUNT(*) AS n FROM c",
  cte_twice:
    'WITH c AS (SELECT id, email FROM T) SELECT a.id, b.email FROM c a JOIN c b ON a.id = b.id ORDER BY a.id',
  union: "SELECT id, email FROM T WHERE region = 'US' UNION ALL SELECT id, email FROM T ORDER BY id",
  union_distinct: 'SELECT email FROM T UNION SELECT name FROM crm.customers ORDER BY 1',
  self_join: 'SELECT a.id, b.email FROM T a JOIN T b ON a.id = b.id ORDER BY a.id',
  join_other:
    'SELECT c.name, t.email, t.region FROM crm.customers c JOIN T t ON t.id = c.ticket_id ORDER BY c.id',
  left_join_other:
    'SELECT c.name, t.email FROM crm.customers c LEFT JOIN T t ON t.id = c.ticket_id ORDER BY c.id',
  join_across_sources:
    'SELECT n.note, t.email, t.region FROM shop.notes n JOIN T t ON t.id = n.ticket_id ORDER BY n.note',
  left_join_across_sources:
    'SELECT n.note, t.email FROM shop.notes n LEFT JOIN T t ON t.id = n.ticket_id WHERE n.ticket_id > 0 ORDER BY n.note',
  join_using: 'SELECT c.name, t.email FROM crm.customers c JOIN T t USING (id) ORDER BY c.name',
  cross_join: 'SELECT c.name, t.email FROM crm.customers c CROSS JOIN T t ORDER BY c.name, t.email',
  window:
    'SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn, COUNT(*) OVER () AS n, FIRST_VALUE(email) OVER (ORDER BY id DESC) AS f FROM T ORDER BY id',
  group_by: 'SELECT region, COUNT(*) AS n, MAX(email) AS m FROM T GROUP BY region ORDER BY region',
  having_masked:
    "SELECT email, COUNT(*) AS n FROM T GROUP BY email HAVING email = 'bob@example.com' OR COUNT(*) > 0 ORDER BY email",
  in_subquery: 'SELECT name FROM crm.customers WHERE ticket_id IN (SELECT id FROM T) ORDER BY name',
  not_in_subquery: 'SELECT name FROM crm.customers WHERE ticket_id NOT IN (SELECT id FROM T) ORDER BY name',
  exists:
    'SELECT name FROM crm.customers c WHERE EXISTS (SELECT 1 FROM T t WHERE t.id = c.ticket_id) ORDER BY name',
  correlated_masked:
    "SELECT name FROM crm.customers c WHERE (SELECT t.email FROM T t WHERE t.id = c.ticket_id) LIKE 'bo%' ORDER BY name",
  count_all: 'SELECT COUNT(*) AS n, COUNT(DISTINCT region) AS r FROM T',
  info_columns:
    "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'crm' AND TABLE_NAME = 'N' ORDER BY ORDINAL_POSITION",
};

describe('access policy bypass suite', () => {
  let dir: string;
  let policyPath: string;
  let server: TestServer;
  let issuer: TestIssuer;
  let crm: Awaited<ReturnType<typeof createPgDatabase>>;
  let shop: Awaited<ReturnType<typeof createMariaDatabase>>;
  let tokens: { admin: string; support: string; analyst: string };
  let port: number;
  /** Every answer text a bound principal received, for the leak check at the end. */
  const seen: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'i31-bypass-'));
    policyPath = join(dir, 'policy.json');
    writeFileSync(policyPath, JSON.stringify(policyDoc("region = 'EU'")));
    const usersFile = join(dir, 'users.json');
    writeFileSync(
      usersFile,
      JSON.stringify([
        { username: SUPPORT.user, password_hash: await hashPassword(SUPPORT.password), groups: ['support'] },
        { username: ANALYST.user, password_hash: await hashPassword(ANALYST.password), groups: ['analysts'] },
      ]),
    );
    crm = await createPgDatabase('i31bypass');
    await pgExec(
      crm.database,
      `CREATE TABLE tickets (id int PRIMARY KEY, region text, email text, ssn text, body text);
       INSERT INTO tickets VALUES (1, 'EU', 'ada@example.com', '111-11-1111', 'refund'),
         (2, 'US', 'bob@example.com', '222-22-2222', 'us-only-body'), (3, 'EU', 'cy@example.com', '333-33-3333', '42');
       CREATE TABLE customers (id int PRIMARY KEY, name text, ticket_id int);
       INSERT INTO customers VALUES (1, 'Ann', 1), (2, 'Bert', 2), (3, 'Cleo', 3);
       CREATE VIEW oracle AS SELECT id, region, CONCAT(LEFT(email, 2), '***') AS email, body
         FROM tickets WHERE region = 'EU';`,
    );
    shop = await createMariaDatabase('i31bypass');
    await mariaExec(
      shop.database,
      `CREATE TABLE notes (id INT PRIMARY KEY, ticket_id INT, note VARCHAR(20));
       INSERT INTO notes VALUES (1, 1, 'n-ada'), (2, 2, 'n-bob'), (3, 3, 'n-cy');`,
    );
    issuer = await startIssuer();
    server = await startTestServer({
      TRIBUTARY_USERNAME: ADMIN.user,
      TRIBUTARY_PASSWORD: ADMIN.password,
      TRIBUTARY_USERS_FILE: usersFile,
      TRIBUTARY_POLICY_FILE: policyPath,
      TRIBUTARY_MCP_MAX_ROWS: '1',
      TRIBUTARY_MCP_OAUTH_ENABLED: 'true',
      TRIBUTARY_MCP_OAUTH_ISSUER_URL: issuer.issuer,
      TRIBUTARY_MCP_OAUTH_CLIENT_ID: INTROSPECTION_CLIENT.id,
      TRIBUTARY_MCP_OAUTH_CLIENT_SECRET: INTROSPECTION_CLIENT.secret,
    });
    port = server.running.mysql!.port;
    tokens = {
      admin: await loginToken(server.url, ADMIN.user, ADMIN.password),
      support: await loginToken(server.url, SUPPORT.user, SUPPORT.password),
      analyst: await loginToken(server.url, ANALYST.user, ANALYST.password),
    };
    for (const q of [
      `CREATE DATABASE crm WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(crm.database)}`,
      `CREATE DATABASE shop WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(shop.database)}`,
      'CREATE KNOWLEDGE_BASE leak_kb',
    ]) {
      const made = await http(tokens.admin, q);
      assert.equal(made.type, 'ok', `${q}: ${JSON.stringify(made)}`);
    }
  });

  after(async () => {
    await server?.close();
    await issuer?.close();
    await crm?.drop();
    await shop?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The answer's text without the statement's own literals (an answer may echo what was asked). */
  const record = (query: string, text: string) => {
    let t = text;
    for (const [, lit] of query.matchAll(/'([^']+)'/g)) t = t.replaceAll(lit, '<literal>');
    seen.push(t);
  };

  async function http(token: string, query: string): Promise<any> {
    const res = await fetch(`${server.url}/api/sql/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query }),
    });
    const text = await res.text();
    if (token !== tokens?.admin) record(query, text);
    return JSON.parse(text);
  }

  async function mcpClient(token: string): Promise<Client> {
    const client = new Client({ name: 'bypass-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/streamable`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  /** The query tool's answer, every page of it followed through its result handle. */
  async function mcp(client: Client, query: string): Promise<any> {
    const first = await client.callTool({ name: 'query', arguments: { query } });
    record(query, JSON.stringify(first));
    const r = (first.structuredContent as { result: any }).result;
    if (r.type !== 'table') return r;
    const data = [...r.data];
    if (r.truncated) {
      assert.match(r.next, /^SELECT \* FROM result\('r_/);
      // Page one row at a time, as far as the handle holds rows.
      while (data.length < r.rows_available) {
        const page = await client.callTool({
          name: 'query',
          arguments: { query: `SELECT * FROM result('${r.handle}') LIMIT 1 OFFSET ${data.length}` },
        });
        record(query, JSON.stringify(page));
        const p = (page.structuredContent as { result: any }).result;
        assert.equal(p.type, 'table', JSON.stringify(p));
        assert.equal(p.data.length, 1, JSON.stringify(p));
        data.push(...p.data);
      }
    }
    return { ...r, data };
  }

  async function wire(user: { user: string; password: string }) {
    return mysql.createConnection({
      host: '127.0.0.1',
      port,
      user: user.user,
      password: user.password,
      rowsAsArray: true,
    });
  }

  /** Cells as text (each face types numbers its own way), nulls kept. */
  const norm = (rows: unknown[][]): (string | null)[][] =>
    rows.map((r) => r.map((v) => (v === null ? null : String(v))));

  /** The statement with `T` standing for `table` and `'N'` for its bare name. */
  const sub = (sql: string, table: string, bare: string) =>
    sql.replace(/\bT\b/g, table).replaceAll("'N'", `'${bare}'`);

  async function oracle(sql: string): Promise<(string | null)[][]> {
    const r = await http(tokens.admin, sub(sql, 'crm.oracle', 'oracle'));
    assert.equal(r.type, 'table', `oracle ${sql}: ${JSON.stringify(r)}`);
    return norm(r.data);
  }

  test('every shape over HTTP, MCP, the wire (text and prepared) answers what the oracle answers', async () => {
    const client = await mcpClient(tokens.support);
    const conn = await wire(SUPPORT);
    try {
      for (const [name, sql] of Object.entries(SHAPES)) {
        const want = await oracle(sql);
        const q = sub(sql, 'crm.tickets', 'tickets');
        const h = await http(tokens.support, q);
        assert.equal(h.type, 'table', `${name} http: ${JSON.stringify(h)}`);
        assert.deepEqual(norm(h.data), want, `${name} over HTTP`);
        const m = await mcp(client, q);
        assert.equal(m.type, 'table', `${name} mcp: ${JSON.stringify(m)}`);
        assert.deepEqual(norm(m.data), want, `${name} over MCP`);
        const [text] = await conn.query(q);
        seen.push(JSON.stringify(text));
        assert.deepEqual(norm(text as unknown[][]), want, `${name} over the wire (text)`);
        const [prepared] = await conn.execute(q);
        seen.push(JSON.stringify(prepared));
        assert.deepEqual(norm(prepared as unknown[][]), want, `${name} over the wire (prepared)`);
      }
      // Prepared with parameters: the attacker's value arrives as a parameter.
      const [p] = await conn.execute(
        'SELECT id, email FROM crm.tickets WHERE email = ? OR region = ? ORDER BY id',
        ['bob@example.com', 'US'],
      );
      seen.push(JSON.stringify(p));
      assert.deepEqual(p, []);
      const [p2] = await conn.execute('SELECT id, email FROM crm.tickets WHERE id > ? ORDER BY id', [0]);
      assert.deepEqual(norm(p2 as unknown[][]), [
        ['1', 'ad***'],
        ['3', 'cy***'],
      ]);
    } finally {
      await client.close();
      await conn.end();
    }
  });

  test('the analyst sees every row, emails masked; ssn hidden', async () => {
    const r = await http(tokens.analyst, 'SELECT id, region, email FROM crm.tickets ORDER BY id');
    assert.deepEqual(r.data, [
      [1, 'EU', 'ad***'],
      [2, 'US', 'bo***'],
      [3, 'EU', 'cy***'],
    ]);
    const c = await http(tokens.analyst, "SELECT COUNT(*) FROM crm.tickets WHERE email LIKE '%@%'");
    assert.deepEqual(c.data, [[0]]);
  });

  test('hidden columns, listings and the console schema statements', async () => {
    for (const q of [
      'SELECT ssn FROM crm.tickets',
      "SELECT id FROM crm.tickets WHERE ssn LIKE '1%'",
      'SELECT t.id FROM crm.tickets t ORDER BY ssn',
      'SELECT id FROM crm.tickets JOIN crm.customers c ON c.name = ssn',
    ]) {
      const r = await http(tokens.support, q);
      assert.equal(r.error_code, 1143, `${q}: ${JSON.stringify(r)}`);
    }
    // The console's schema tree is built from these three statements.
    const dbs = await http(tokens.support, 'SHOW DATABASES');
    assert.deepEqual(
      dbs.data.map((r: unknown[]) => r[0]).filter((n: string) => n !== 'information_schema'),
      ['crm', 'shop'],
    );
    const tables = await http(
      tokens.support,
      'SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.tables ORDER BY 2',
    );
    assert.deepEqual(
      tables.data.filter((r: unknown[]) => r[0] === 'crm'),
      [
        ['crm', 'customers'],
        ['crm', 'tickets'],
      ],
    );
    const cols = await http(
      tokens.support,
      "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.columns WHERE TABLE_NAME = 'tickets'",
    );
    assert.deepEqual(
      cols.data.map((r: unknown[]) => r[2]),
      ['id', 'region', 'email', 'body'],
    );
    const oracleView = await http(tokens.support, 'SELECT * FROM crm.oracle');
    assert.equal(oracleView.error_code, 1142);
  });

  test('EXPLAIN shows the filter at PostgreSQL and no raw value', async () => {
    const r = await http(
      tokens.support,
      "EXPLAIN SELECT id FROM crm.tickets WHERE email = 'bob@example.com' OR id = 2",
    );
    assert.equal(r.type, 'table', JSON.stringify(r));
    const [[, source, operation, sql], ...rest] = r.data;
    // The rule that added the filter and the mask, named (hidden columns are not).
    assert.deepEqual(rest, [
      [
        2,
        'policy',
        "crm.public.tickets: tables[0] filter region = 'EU'; tables[0] mask email AS CONCAT(LEFT(email, 2), '***')",
        '',
      ],
    ]);
    // One statement at PostgreSQL, the policy's filter inside it (as its collation-exact form).
    assert.equal(source, 'crm');
    assert.equal(operation, 'pushdown');
    assert.match(
      sql,
      /FROM "tickets" AS "tickets" WHERE .*"region".*= 'EU'.* LIMIT 9223372036854775807 OFFSET 0\) AS "tickets"/,
    );
    assert.match(sql, /\(left\("email", 2\) \|\| '\*\*\*'\) AS "email"/);
    assert.doesNotMatch(sql, /ssn/);
    // A constant comparison on an unmasked column is copied next to the filter (the index serves
    // it); with nothing else to fear the relation is not fenced, so the source plans it freely.
    const point = await http(tokens.support, 'EXPLAIN SELECT email FROM crm.tickets WHERE id = 3');
    assert.match(point.data[0][3], /= 'EU'\) AND \("id" = 3\)\) AS "tickets" WHERE "id" = 3$/);
  });

  test('EXPLAIN of every shape over HTTP, MCP and the wire names the rule and prints no raw value', async () => {
    const client = await mcpClient(tokens.support);
    const conn = await wire(SUPPORT);
    try {
      for (const [name, sql] of Object.entries(SHAPES)) {
        if (name === 'info_columns') continue;
        const q = `EXPLAIN ${sub(sql, 'crm.tickets', 'tickets')}`;
        const h = await http(tokens.support, q);
        assert.equal(h.type, 'table', `${name}: ${JSON.stringify(h)}`);
        assert.ok(
          h.data.some(
            (r: unknown[]) => r[1] === 'policy' && /tables\[0\] filter region = 'EU'/.test(String(r[2])),
          ),
          name,
        );
        await mcp(client, q);
        const [rows] = await conn.query(q);
        record(q, JSON.stringify(rows));
      }
    } finally {
      await client.close();
      await conn.end();
    }
  });

  test('a statement without predicates of its own is not fenced (a COUNT(*) stays flat)', async () => {
    const r = await http(tokens.support, 'EXPLAIN SELECT COUNT(*) FROM crm.tickets');
    assert.doesNotMatch(r.data[0][3], /OFFSET/);
    const j = await http(
      tokens.support,
      'EXPLAIN SELECT COUNT(*) FROM crm.tickets t JOIN crm.customers c ON c.ticket_id = t.id',
    );
    assert.match(j.data[0][3], /LIMIT 9223372036854775807 OFFSET 0/);
  });

  test('errors on masked values print only the masked value', async () => {
    const conn = await wire(SUPPORT);
    const client = await mcpClient(tokens.support);
    try {
      for (const q of [
        'SELECT CAST(email AS SIGNED) FROM crm.tickets',
        'SELECT CAST(email AS DECIMAL(10,2)) FROM crm.tickets',
        "SELECT 1/(email = 'ada@example.com') FROM crm.tickets",
        "SELECT 1/(email = 'x') FROM crm.tickets",
        "SELECT id FROM crm.tickets WHERE 1/(email = 'x') IS NULL",
        'SELECT id FROM crm.tickets WHERE CAST(region AS SIGNED) = 1',
        "SELECT id FROM crm.tickets WHERE CAST(email AS DATE) = '2020-01-01'",
        'SELECT EXP(LENGTH(body) * 1000) FROM crm.tickets',
        'SELECT email + 0 FROM crm.tickets',
        'SELECT id FROM crm.tickets WHERE CAST(email AS SIGNED) = 1',
        'SELECT id FROM crm.tickets WHERE CAST(body AS SIGNED) = 42',
        // Rows 2 and 3 only: the EU one casts, so an error could only come from the filtered US row.
        'SELECT id FROM crm.tickets WHERE id > 1 AND CAST(body AS SIGNED) = 42',
        'SELECT id FROM crm.tickets WHERE id IN (2, 3) AND CAST(body AS SIGNED) = 42',
        'SELECT CAST(body AS SIGNED) FROM crm.tickets WHERE id > 1',
        // A text column compared with a number converts the column's values: not copied below the fence.
        'SELECT id FROM crm.tickets WHERE id > 1 AND body = 42',
        'SELECT id FROM crm.tickets WHERE id > 1 AND body IN (42, 43)',
        'SELECT id FROM crm.tickets WHERE id > 1 AND body BETWEEN 40 AND 45',
        'SELECT id FROM crm.tickets WHERE id > 1 AND CAST(body AS SIGNED) = 42 AND 1 / (id - 2) IS NOT NULL',
        'SELECT id FROM crm.tickets WHERE 1 / (id - 2) > 0',
        'SELECT SUM(CAST(body AS SIGNED)) FROM crm.tickets',
        'SELECT id FROM crm.tickets WHERE body + 0 = 42',
        "SELECT CAST(CONCAT('{', email) AS JSON) FROM crm.tickets",
        'SELECT id FROM crm.tickets t WHERE EXISTS (SELECT 1 FROM crm.tickets u WHERE CAST(u.body AS SIGNED) = t.id)',
      ]) {
        await http(tokens.support, q);
        await mcp(client, q);
        try {
          const [rows] = await conn.query(q);
          seen.push(JSON.stringify(rows));
        } catch (e) {
          record(q, String((e as Error).message));
        }
        try {
          const [rows] = await conn.execute(q);
          seen.push(JSON.stringify(rows));
        } catch (e) {
          record(q, String((e as Error).message));
        }
      }
    } finally {
      await conn.end();
      await client.close();
    }
  });

  test('a knowledge base cannot be filled from the table unfiltered', async () => {
    const r = await http(tokens.support, 'INSERT INTO leak_kb SELECT id, email, ssn, body FROM crm.tickets');
    assert.equal(r.type, 'error');
    assert.ok([1142, 1143, 1146, 1235].includes(r.error_code), JSON.stringify(r));
    const r2 = await http(tokens.support, 'INSERT INTO leak_kb SELECT id, email, body FROM crm.tickets');
    assert.equal(r2.type, 'error');
    assert.ok([1142, 1146, 1235].includes(r2.error_code), JSON.stringify(r2));
  });

  test('the mariadb CLI sees what the oracle sees', async () => {
    const q = "SELECT id, email FROM crm.tickets WHERE region = 'US' OR 1 = 1 ORDER BY id";
    const r = await run(
      'mariadb',
      [
        '-h127.0.0.1',
        `-P${port}`,
        '--protocol=TCP',
        `-u${SUPPORT.user}`,
        `-p${SUPPORT.password}`,
        '-N',
        '-e',
        q,
      ],
      { timeout: 20_000 },
    );
    seen.push(r.stdout, r.stderr);
    assert.equal(r.stdout.trim(), '1\tad***\n3\tcy***');
  });

  test('an OAuth principal (sub + groups claim) over MCP gets the same filtered, masked rows', async () => {
    const token = await issuer.token('jwt', `${server.url}/mcp/streamable`, 'mcp:tools');
    const client = await mcpClient(token);
    try {
      for (const name of ['or', 'union', 'join_other', 'window']) {
        const want = await oracle(SHAPES[name]);
        const m = await mcp(client, sub(SHAPES[name], 'crm.tickets', 'tickets'));
        assert.deepEqual(norm(m.data), want, `${name} for the OAuth principal`);
      }
    } finally {
      await client.close();
    }
  });

  test('EXPLAIN of a statement across sources names the rule too, after the local step', async () => {
    const r = await http(
      tokens.support,
      'EXPLAIN SELECT n.note, t.email FROM shop.notes n JOIN crm.tickets t ON t.id = n.ticket_id',
    );
    assert.equal(r.type, 'table', JSON.stringify(r));
    const last = r.data.at(-1);
    assert.deepEqual(last.slice(1), [
      'policy',
      "crm.public.tickets: tables[0] filter region = 'EU'; tables[0] mask email AS CONCAT(LEFT(email, 2), '***')",
      '',
    ]);
    assert.equal(r.data.at(-2)[1], 'local');
    // The admin's EXPLAIN has no policy row.
    const free = await http(tokens.admin, 'EXPLAIN SELECT id FROM crm.tickets');
    assert.deepEqual(
      free.data.map((x: unknown[]) => x[1]),
      ['crm'],
    );
  });

  test('a changed policy file applies to the next statement', async () => {
    const q = 'SELECT id FROM crm.tickets ORDER BY id';
    assert.deepEqual((await http(tokens.support, q)).data, [[1], [3]]);
    writeFileSync(policyPath, JSON.stringify(policyDoc('id = 3')));
    const end = Date.now() + 5000;
    let got: unknown;
    while (Date.now() < end) {
      got = (await http(tokens.support, q)).data;
      if (JSON.stringify(got) === '[[3]]') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(got, [[3]]);
    writeFileSync(policyPath, JSON.stringify(policyDoc("region = 'EU'")));
  });

  test('no answer to a bound principal carried a raw value', () => {
    assert.ok(seen.length > 100, `${seen.length} answers`);
    for (const text of seen)
      for (const s of SECRETS) assert.ok(!text.includes(s), `leaked ${s}: ${text.slice(0, 400)}`);
  });
});
