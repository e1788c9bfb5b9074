/**
 * The access policy in the running engine (SPEC section 12): a real server with a policy
 * file, a PostgreSQL source and a SQLite source; principals given in the statement's
 * context as the faces will give them (the principals of each auth mode come from another
 * branch), the admin and `local` over HTTP. Refusals, listings, SHOW GRANTS, the audit
 * line, the denial metric, shared plans never crossing principals, and a changed file
 * applying to the next statement.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FieldInfo } from '../../../../src/core/types.js';
import { Database } from '../../../../src/sources/sqlite/driver.js';
import type { Engine } from '../../../../src/sql/engine.js';
import type { StatementPrincipal } from '../../../../src/sql/engine-types.js';
import type { Result } from '../../../../src/sql/result.js';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../../helpers/server.js';
import { createMariaDatabase, createPgDatabase, mariaExec, pgExec } from '../../../helpers/services.js';

const agent: StatementPrincipal = { user: 'agent-7', groups: ['support'], admin: false };
const analyst: StatementPrincipal = { user: 'ann', groups: ['analysts'], admin: false };
const finance: StatementPrincipal = { user: 'finance-tool', groups: [], admin: false };
const admin: StatementPrincipal = { user: 'root', groups: [], admin: true };

export const POLICY_FILE = {
  sources: [
    { user: 'agent-.*', group: 'support', source: 'crm|files', allow: 'read' },
    { group: 'analysts', allow: 'read' },
    { user: 'finance-tool', source: 'erp', allow: 'all' },
  ],
  tables: [
    {
      user: 'agent-eu',
      source: 'crm',
      table: 'tickets',
      privileges: ['SELECT'],
      filter: "region = 'EU'",
      columns: [{ name: 'email', mask: "CONCAT(LEFT(email, 2), '***')" }],
    },
    {
      group: 'support',
      source: 'crm',
      table: 'tickets',
      privileges: ['SELECT'],
      columns: [{ name: 'ssn', allow: false }],
    },
    {
      group: 'analysts',
      source: 'shop',
      table: 'orders',
      privileges: ['SELECT'],
      columns: [{ name: 'card', allow: false }],
    },
    { group: 'analysts', privileges: ['SELECT'] },
    { user: 'finance-tool', source: 'erp', table: 'invoices', privileges: ['SELECT', 'INSERT'] },
  ],
};

describe('access policy in the engine', () => {
  let dir: string;
  let policyPath: string;
  let auditPath: string;
  let server: TestServer;
  let engine: Engine;
  let crm: Awaited<ReturnType<typeof createPgDatabase>>;
  let shop: Awaited<ReturnType<typeof createMariaDatabase>>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'i31-policy-engine-'));
    policyPath = join(dir, 'policy.json');
    auditPath = join(dir, 'audit.log');
    writeFileSync(policyPath, JSON.stringify(POLICY_FILE));
    crm = await createPgDatabase('i31policy');
    await pgExec(
      crm.database,
      `CREATE TABLE tickets (id int PRIMARY KEY, region text, email text, ssn text, body text);
       INSERT INTO tickets VALUES (1, 'EU', 'ada@example.com', '111-11-1111', 'refund'),
         (2, 'US', 'bob@example.com', '222-22-2222', 'late'), (3, 'EU', 'cy@example.com', '333-33-3333', 'broken');
       CREATE TABLE customers (id int PRIMARY KEY, name text, email text);
       INSERT INTO customers VALUES (1, 'Ada', 'ada@example.com');`,
    );
    shop = await createMariaDatabase('i31policy');
    await mariaExec(
      shop.database,
      `CREATE TABLE orders (id INT PRIMARY KEY, total INT, card VARCHAR(20));
       INSERT INTO orders VALUES (1, 10, '4111-1111'), (2, 20, '4222-2222');`,
    );
    const erp = new Database(join(dir, 'erp.db'));
    erp.exec(
      'CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount INTEGER); CREATE TABLE ledger (id INTEGER PRIMARY KEY, note TEXT)',
    );
    erp.close();
    server = await startTestServer({ TRIBUTARY_POLICY_FILE: policyPath, TRIBUTARY_AUDIT_LOG: auditPath });
    engine = server.deps.engine as Engine;
    for (const q of [
      `CREATE DATABASE crm WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(crm.database)}`,
      `CREATE DATABASE shop WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(shop.database)}`,
      `CREATE DATABASE erp WITH ENGINE = 'sqlite', PARAMETERS = {"path": "${join(dir, 'erp.db')}"}`,
    ]) {
      const r = await server.sql(q);
      assert.equal(r.type, 'ok', `${q}: ${JSON.stringify(r)}`);
    }
  });

  after(async () => {
    await server?.stop();
    await crm?.drop();
    await shop?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (p: StatementPrincipal | undefined, sql: string, db?: string): Promise<Result> =>
    engine.execute(
      sql,
      { db, ...(p ? { principal: p } : {}) },
      { caller: { principal: p?.user ?? null, transport: 'http' } },
    );

  const error = (r: Result): [number | string, string] =>
    r.type === 'error' ? [r.error_code, r.error_message] : ['no error', JSON.stringify(r)];

  test('a table no rule grants is 1142, naming the user and the table', async () => {
    assert.deepEqual(error(await run(agent, 'SELECT * FROM crm.customers')), [
      1142,
      "SELECT command denied to user 'agent-7' for table 'crm.customers'",
    ]);
    assert.deepEqual(error(await run(agent, 'SELECT id FROM erp.invoices')), [
      1142,
      "SELECT command denied to user 'agent-7' for table 'erp.invoices'",
    ]);
    // No `OR`, alias, subquery or join gets to another table.
    assert.equal(
      (await run(agent, 'SELECT t.id FROM crm.tickets t JOIN crm.customers c ON c.id = t.id')).type,
      'error',
    );
    assert.equal(
      (await run(agent, 'SELECT id FROM crm.tickets WHERE id IN (SELECT id FROM crm.customers)')).type,
      'error',
    );
  });

  test('a hidden column named anywhere is 1143; SELECT * leaves it out', async () => {
    assert.deepEqual(error(await run(agent, 'SELECT id, ssn FROM crm.tickets')), [
      1143,
      "SELECT command denied to user 'agent-7' for column 'ssn' in table 'crm.tickets'",
    ]);
    assert.equal((await run(agent, "SELECT id FROM crm.tickets WHERE ssn LIKE '1%'")).type, 'error');
    const star = await run(agent, 'SELECT * FROM crm.tickets ORDER BY id');
    assert.equal(star.type, 'table', JSON.stringify(star));
    if (star.type === 'table') {
      assert.deepEqual(star.column_names, ['id', 'region', 'email', 'body']);
      assert.ok(!JSON.stringify(star.data).includes('111-11'));
    }
    const qualified = await run(agent, 'SELECT t.* FROM crm.tickets t WHERE t.id = 1');
    assert.equal(qualified.type === 'table' && qualified.column_names.join(), 'id,region,email,body');
    const cte = await run(agent, 'WITH x AS (SELECT * FROM crm.tickets) SELECT * FROM x WHERE id = 1');
    assert.equal(cte.type === 'table' && cte.column_names.join(), 'id,region,email,body');
  });

  test('shared plans never cross principals: the admin keeps every column, the agent never sees ssn', async () => {
    for (let i = 0; i < 3; i++) {
      const a = await run(admin, `SELECT * FROM crm.tickets WHERE id = ${i + 1}`);
      assert.equal(a.type === 'table' && a.column_names.join(), 'id,region,email,ssn,body');
      const g = await run(agent, `SELECT * FROM crm.tickets WHERE id = ${i + 1}`);
      assert.equal(g.type === 'table' && g.column_names.join(), 'id,region,email,body');
      const l = await run(undefined, `SELECT * FROM crm.tickets WHERE id = ${i + 1}`);
      assert.equal(l.type === 'table' && l.column_names.join(), 'id,region,email,ssn,body');
    }
    // A shape the admin taught is still checked for the agent.
    for (let i = 0; i < 3; i++) await run(admin, `SELECT name FROM crm.customers WHERE id = ${i}`);
    assert.equal(error(await run(agent, 'SELECT name FROM crm.customers WHERE id = 9'))[0], 1142);
  });

  test("the MySQL face's relay (shared plans without a parse) is checked too", async () => {
    const relay = async (p: StatementPrincipal, sql: string) => {
      let columns: FieldInfo[] = [];
      let rows = 0;
      const out = await engine.relay(
        sql,
        { principal: p },
        {},
        {
          head: (c) => {
            columns = c;
          },
          row: () => {
            rows++;
            return true;
          },
        },
      );
      return { out, names: columns.map((c) => c.name), rows };
    };
    for (let i = 1; i <= 3; i++) {
      const a = await relay(admin, `SELECT * FROM shop.orders WHERE id = ${(i % 2) + 1}`);
      assert.equal(a.out?.type, 'relayed');
      assert.deepEqual(a.names, ['id', 'total', 'card']);
      // Refused: the relay declines and the normal path answers 1142.
      const g = await relay(agent, `SELECT * FROM shop.orders WHERE id = ${(i % 2) + 1}`);
      assert.equal(g.out, null);
      assert.equal(g.rows, 0);
      const n = await relay(analyst, `SELECT * FROM shop.orders WHERE id = ${(i % 2) + 1}`);
      if (n.out) assert.deepEqual(n.names, ['id', 'total']);
      const e = await run(analyst, `SELECT * FROM shop.orders WHERE id = ${(i % 2) + 1}`);
      assert.equal(e.type === 'table' && e.column_names.join(), 'id,total');
      assert.equal(error(await run(analyst, `SELECT card FROM shop.orders WHERE id = ${i}`))[0], 1143);
    }
    assert.equal(error(await run(agent, 'SELECT * FROM shop.orders WHERE id = 1'))[0], 1142);
  });

  test('a filtered, masked table: no SQL shape sees a filtered-out row or a real masked value', async () => {
    const eu: StatementPrincipal = { user: 'agent-eu', groups: ['support'], admin: false };
    const rows = async (sql: string) => {
      const r = await run(eu, sql);
      assert.equal(r.type, 'table', `${sql}: ${JSON.stringify(r)}`);
      return (r as { data: unknown[][] }).data;
    };
    // The oracle: what the rule allows, written by hand over the EU rows with the mask applied.
    assert.deepEqual(await rows('SELECT id, email FROM crm.tickets ORDER BY id'), [
      [1, 'ad***'],
      [3, 'cy***'],
    ]);
    const cases: [string, unknown[][]][] = [
      ["SELECT id FROM crm.tickets WHERE region = 'US' OR 1 = 1 ORDER BY id", [[1], [3]]],
      ['SELECT t.id FROM crm.tickets AS t ORDER BY t.id', [[1], [3]]],
      ['SELECT COUNT(*) FROM (SELECT * FROM crm.tickets) x', [[2]]],
      ['WITH x AS (SELECT id FROM crm.tickets) SELECT COUNT(*) FROM x', [[2]]],
      ['SELECT COUNT(*) FROM (SELECT id FROM crm.tickets UNION ALL SELECT id FROM crm.tickets) u', [[4]]],
      ['SELECT a.id FROM crm.tickets a JOIN crm.tickets b ON a.id = b.id ORDER BY a.id', [[1], [3]]],
      ['SELECT id FROM crm.tickets WHERE id IN (SELECT id FROM crm.tickets WHERE id > 1)', [[3]]],
      ['SELECT region, COUNT(*) FROM crm.tickets GROUP BY region', [['EU', 2]]],
      [
        'SELECT id, COUNT(*) OVER () AS n FROM crm.tickets ORDER BY id',
        [
          [1, 2],
          [3, 2],
        ],
      ],
      // A predicate on a masked column sees the masked value only.
      ["SELECT id FROM crm.tickets WHERE email = 'ada@example.com'", []],
      ["SELECT id FROM crm.tickets WHERE email LIKE 'ad%'", [[1]]],
      ['SELECT MAX(email) FROM crm.tickets', [['cy***']]],
      ['SELECT id FROM crm.tickets WHERE id = 2', []],
      ['SELECT id FROM crm.tickets WHERE id = 3', [[3]]],
    ];
    for (const [sql, want] of cases) assert.deepEqual(await rows(sql), want, sql);
    // A shape the admin ran first (a shared plan) is planned afresh for the filtered principal.
    for (const id of [2, 1]) {
      const a = await run(admin, `SELECT id, email FROM crm.tickets WHERE id = ${id}`);
      assert.equal(a.type === 'table' && a.data.length, 1);
      const e = await rows(`SELECT id, email FROM crm.tickets WHERE id = ${id}`);
      assert.deepEqual(e, id === 1 ? [[1, 'ad***']] : []);
    }
    // The filter runs at PostgreSQL with the rest of the statement (EXPLAIN shows it there).
    const plan = await run(eu, 'EXPLAIN SELECT COUNT(*) FROM crm.tickets');
    assert.ok(plan.type === 'table' && /region.*'EU'/.test(JSON.stringify(plan.data)), JSON.stringify(plan));
    assert.ok(!JSON.stringify(plan).includes('ada@'), 'no real value in the plan');
    // Statements other than reads through a filtered table are refused, never run unfiltered.
    const w = await run(eu, 'CREATE TABLE crm.copy AS SELECT * FROM crm.tickets');
    assert.equal(w.type, 'error');
    const grants = await run(eu, 'SHOW GRANTS');
    assert.ok(
      grants.type === 'table' &&
        grants.data
          .flat()
          .includes(
            "GRANT SELECT ON 'crm'.'tickets' TO 'agent-eu' /* tables[0]; filter: region = 'EU'; mask email: CONCAT(LEFT(email, 2), '***') */",
          ),
      JSON.stringify(grants),
    );
  });

  test('EXPLAIN is checked as its statement and its plan never names a hidden column', async () => {
    assert.equal(error(await run(agent, 'EXPLAIN SELECT * FROM crm.customers'))[0], 1142);
    const r = await run(agent, 'EXPLAIN SELECT * FROM crm.tickets');
    assert.equal(r.type, 'table');
    assert.ok(!JSON.stringify(r).includes('ssn'), JSON.stringify(r));
  });

  test('writes need their privilege; the source must allow all', async () => {
    assert.deepEqual(await run(finance, 'INSERT INTO erp.invoices (id, amount) VALUES (1, 10)'), {
      type: 'ok',
      affected_rows: 1,
    });
    assert.deepEqual(error(await run(finance, 'DELETE FROM erp.invoices')), [
      1142,
      "DELETE command denied to user 'finance-tool' for table 'erp.invoices'",
    ]);
    assert.deepEqual(error(await run(finance, 'INSERT INTO erp.ledger (id, note) VALUES (1, 1)')), [
      1142,
      "INSERT command denied to user 'finance-tool' for table 'erp.ledger'",
    ]);
    assert.deepEqual(error(await run(agent, 'INSERT INTO crm.tickets (id) VALUES (9)')), [
      1142,
      "INSERT command denied to user 'agent-7' for table 'crm.tickets'",
    ]);
    assert.deepEqual(error(await run(analyst, 'DROP DATABASE erp')), [
      1044,
      "Access denied for user 'ann' to database 'erp'",
    ]);
    assert.deepEqual(error(await run(analyst, 'CREATE TABLE erp.x (id INT)')), [
      1142,
      "CREATE command denied to user 'ann' for table 'erp.x'",
    ]);
  });

  test('listings show only what the principal may read', async () => {
    const dbs = await run(agent, 'SHOW DATABASES');
    assert.deepEqual(dbs.type === 'table' && dbs.data.flat(), ['information_schema', 'files', 'crm']);
    const dbs2 = await run(analyst, 'SHOW DATABASES');
    assert.deepEqual(dbs2.type === 'table' && dbs2.data.flat(), [
      'information_schema',
      'files',
      'crm',
      'erp',
      'shop',
    ]);
    const tables = await run(agent, 'SHOW TABLES FROM crm');
    assert.deepEqual(tables.type === 'table' && tables.data.flat(), ['tickets']);
    assert.equal(error(await run(agent, 'SHOW TABLES FROM erp'))[0], 1049);
    const cols = await run(agent, 'SHOW COLUMNS FROM crm.tickets');
    assert.deepEqual(cols.type === 'table' && cols.data.map((r) => r[0]), ['id', 'region', 'email', 'body']);
    assert.equal(error(await run(agent, 'DESCRIBE crm.customers'))[0], 1142);
    const info = await run(
      agent,
      "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.columns WHERE TABLE_SCHEMA IN ('crm', 'erp') ORDER BY ORDINAL_POSITION",
    );
    assert.deepEqual(info.type === 'table' && info.data, [
      ['crm', 'tickets', 'id'],
      ['crm', 'tickets', 'region'],
      ['crm', 'tickets', 'email'],
      ['crm', 'tickets', 'body'],
    ]);
    const schemata = await run(agent, 'SELECT SCHEMA_NAME FROM information_schema.schemata ORDER BY 1');
    assert.deepEqual(schemata.type === 'table' && schemata.data.flat(), ['crm', 'files']);
    assert.deepEqual(await engine.listDatabases(agent), ['files', 'crm']);
    assert.deepEqual(
      (await engine.listTables('crm', agent)).map((t) => t.name),
      ['tickets'],
    );
    assert.deepEqual(
      (await engine.listColumns('crm', 'tickets', agent)).map((c) => c.name),
      ['id', 'region', 'email', 'body'],
    );
    await assert.rejects(engine.listTables('erp', agent), /Unknown database 'erp'/);
    await assert.rejects(engine.listColumns('crm', 'customers', agent), /doesn't exist/);
    // The admin and `local` see everything.
    assert.deepEqual(await engine.listDatabases(admin), ['files', 'crm', 'erp', 'shop']);
    const all = await run(undefined, 'SHOW TABLES FROM crm');
    assert.deepEqual(all.type === 'table' && all.data.flat().sort(), ['customers', 'tickets']);
  });

  test("SHOW GRANTS lists the caller's rules; over HTTP the caller is `local`", async () => {
    const g = await run(agent, 'SHOW GRANTS');
    assert.equal(g.type, 'table');
    if (g.type === 'table') {
      assert.deepEqual(g.column_names, ['Grants for agent-7']);
      assert.deepEqual(g.data.flat(), [
        "GRANT SELECT ON 'crm|files'.* TO 'agent-7' /* sources[0]: allow read */",
        "GRANT SELECT ON 'crm'.'tickets' TO 'agent-7' /* tables[1]; hidden: ssn */",
      ]);
    }
    const readOnly = await engine.execute('SHOW GRANTS', { principal: agent }, { readOnly: true });
    assert.equal(readOnly.type, 'table', JSON.stringify(readOnly));
    const self = await run(agent, 'SHOW GRANTS FOR CURRENT_USER()');
    assert.equal(self.type === 'table' && self.data.length, 2);
    assert.deepEqual(await server.sql('SHOW GRANTS'), {
      type: 'table',
      column_names: ['Grants for local'],
      data: [["GRANT ALL PRIVILEGES ON *.* TO 'local'"]],
    });
  });

  test('the audit line names the rules applied and the rule that refused; metrics count denials per rule', async () => {
    await run(agent, 'SELECT id FROM crm.tickets WHERE id = 77');
    await run(agent, 'SELECT id FROM crm.customers WHERE id = 77');
    await server.deps.observer?.settle?.();
    await server.deps.observer?.close?.();
    const lines = readFileSync(auditPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const ok = lines.find(
      (l) => l.sql?.includes('crm.tickets WHERE id =') && l.error_code === null && l.principal === 'agent-7',
    );
    assert.deepEqual(ok?.policy_rules, ['sources[0]', 'tables[1]']);
    const refused = lines.find(
      (l) => l.sql?.includes('crm.customers WHERE id =') && l.principal === 'agent-7',
    );
    assert.equal(refused?.error_code, 1142);
    assert.equal(refused?.policy_denied, 'sources[0]');
    const metrics = await fetch(`${server.url}/metrics`).then((r) => r.text());
    assert.match(metrics, /tributary_policy_denials_total\{rule="sources\[0\]"\} [1-9]/);
    assert.match(
      metrics,
      /tributary_statements_total\{kind="SELECT",outcome="denied",transport="http"\} [1-9]/,
    );
  });

  test('a changed file applies to the next statement; a bad one keeps the previous policy', async () => {
    const next = structuredClone(POLICY_FILE);
    next.tables[1].columns = [{ name: 'email', allow: false }] as never;
    writeFileSync(policyPath, JSON.stringify(next));
    await until(async () => error(await run(agent, 'SELECT ssn FROM crm.tickets WHERE id = 1'))[0] !== 1143);
    assert.equal(error(await run(agent, 'SELECT email FROM crm.tickets'))[0], 1143);
    writeFileSync(policyPath, '{"tables": [{"privileges": ["SELECT"], "filter": "a = ("}]}');
    await new Promise((r) => setTimeout(r, 1300));
    assert.equal(error(await run(agent, 'SELECT email FROM crm.tickets'))[0], 1143);
    writeFileSync(policyPath, JSON.stringify(POLICY_FILE));
    await until(async () => error(await run(agent, 'SELECT ssn FROM crm.tickets WHERE id = 1'))[0] === 1143);
  });
});

async function until(ok: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('the policy change was not applied in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a bad policy file at start-up', () => {
  test('fails start-up, naming the setting, the file and the rule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'i31-policy-start-'));
    try {
      const path = join(dir, 'policy.json');
      writeFileSync(
        path,
        JSON.stringify({ tables: [{ privileges: ['SELECT'] }, { privileges: ['SELECT'], filter: 'a = (' }] }),
      );
      await assert.rejects(
        startTestServer({ TRIBUTARY_POLICY_FILE: path }, { storageDir: dir }),
        (e: Error) => {
          assert.equal(e.name, 'ConfigError');
          assert.match(
            e.message,
            /^Invalid configuration: policy\.file .*policy\.json: tables\[1\]\.filter: /,
          );
          return true;
        },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
