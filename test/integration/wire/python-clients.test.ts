/**
 * Python's MySQL clients from Debian against the listener: PyMySQL (a cross-source join and a
 * parameterised query), SQLAlchemy's mysql+pymysql dialect (the reflection pandas and
 * Superset run: tables, columns, primary and foreign keys, indexes) and pandas.read_sql.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { ensurePythonClients } from '../../helpers/debian-clients.js';
import { addVisits, JOIN, startWireFixture, type WireFixture } from './helpers.js';

const SCRIPT = new URL('./python/clients.py', import.meta.url).pathname;
const PARAM_SQL = `SELECT o.id, o.amount, c.name FROM mys.orders o JOIN pgs.customers c ON c.id = o.customer_id
  WHERE o.amount > %s AND c.name <> %s ORDER BY o.id`;
const PARAM_LITERAL = PARAM_SQL.replace('%s', '1').replace('%s', "'Bo'");

let fx: WireFixture;
let python = '';

before(async () => {
  python = ensurePythonClients();
  fx = await startWireFixture();
  await addVisits(fx);
});

after(async () => {
  await fx?.stop();
});

async function runPython(client: string, extra: Record<string, unknown> = {}): Promise<any> {
  const job = JSON.stringify({
    client,
    port: fx.port,
    db: 'pgs',
    other_db: 'mys',
    other_table: 'orders',
    table: 'visits',
    join: JOIN,
    prepared: { sql: PARAM_SQL, params: [1, 'Bo'] },
    ...extra,
  });
  const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
    const child = execFile(python, [SCRIPT], { timeout: 60_000 }, (err, out, errText) => {
      if (err) reject(new Error(`${client}: ${err.message}\n${errText}`));
      else resolve({ stdout: out });
    });
    child.stdin?.end(job);
  });
  return JSON.parse(stdout);
}

async function httpRows(sql: string): Promise<unknown[][]> {
  const r = await fx.server.sql(sql);
  assert.equal(r.type, 'table', JSON.stringify(r));
  return r.type === 'table' ? r.data : [];
}

test('PyMySQL: a cross-source join and a parameterised query give the rows of POST /api/sql/query', async () => {
  const out = await runPython('pymysql');
  assert.match(out.version, /^8\./);
  assert.equal(out.database, 'pgs');
  assert.deepEqual(out.join_columns, ['name', 'order_id', 'amount', 'placed_at', 'joined']);
  assert.deepEqual(out.join, await httpRows(JOIN));
  const want = await httpRows(PARAM_LITERAL);
  assert.equal(want.length, 2);
  assert.deepEqual(out.param, want);
});

test('SQLAlchemy (mysql+pymysql): reflection of a source table, a join and bound parameters', async () => {
  const out = await runPython('sqlalchemy');
  assert.ok(out.schemas.includes('pgs') && out.schemas.includes('mys'), JSON.stringify(out.schemas));
  assert.deepEqual([...out.tables].sort(), ['customers', 'visits']);
  assert.deepEqual(out.other_tables, ['orders']);
  assert.deepEqual(
    out.columns.map((c: { name: string; type: string; nullable: boolean }) => [c.name, c.type, c.nullable]),
    [
      ['id', 'INTEGER', false],
      ['customer_id', 'INTEGER', false],
      ['day', 'DATE', false],
      ['note', 'VARCHAR(20)', true],
    ],
  );
  assert.deepEqual(
    out.other_columns.map((c: { name: string; type: string; nullable: boolean }) => [
      c.name,
      c.type,
      c.nullable,
    ]),
    [
      ['id', 'INTEGER', false],
      ['customer_id', 'INTEGER', false],
      ['amount', 'DECIMAL(12, 2)', true],
      ['placed_at', 'DATETIME', true],
      ['note', 'TEXT', true],
    ],
    'a MariaDB table in another database (schema=)',
  );
  assert.deepEqual(out.pk.constrained_columns, ['id']);
  assert.equal(out.fks.length, 1, JSON.stringify(out.fks));
  assert.deepEqual(out.fks[0].constrained_columns, ['customer_id']);
  assert.equal(out.fks[0].referred_table, 'customers');
  assert.deepEqual(out.fks[0].referred_columns, ['id']);
  assert.ok(
    out.indexes.some((i: { column_names: string[] }) => i.column_names.join() === 'day'),
    JSON.stringify(out.indexes),
  );
  assert.equal(out.has_table, true);
  assert.deepEqual(out.join, await httpRows(JOIN));
  assert.deepEqual(out.param, await httpRows(PARAM_LITERAL));
  assert.equal(out.pandas_error, undefined, out.pandas_error);
  assert.deepEqual(out.pandas_columns, ['name', 'order_id', 'amount', 'placed_at', 'joined']);
  assert.deepEqual(out.pandas, await httpRows(JOIN));
  assert.deepEqual(out.pandas_table_columns, ['id', 'customer_id', 'day', 'note']);
  assert.equal(out.pandas_table_rows, 2);
});

test('PyMySQL raises IntegrityError for constraint violations on a MariaDB and a PostgreSQL source', async () => {
  const violations: [string, number][] = [
    ['INSERT INTO mys.orders (id, customer_id, amount) VALUES (10, 1, 1.00)', 1062],
    ['INSERT INTO mys.orders (id, customer_id, amount) VALUES (90, NULL, 1.00)', 1048],
    ["INSERT INTO pgs.customers (id, name) VALUES (1, 'again')", 1062],
    ['INSERT INTO pgs.customers (id, name) VALUES (91, NULL)', 1048],
    ["INSERT INTO pgs.visits (id, customer_id, day) VALUES (92, 999, '2024-05-03')", 1452],
  ];
  const out: { sql: string; class: string | null; code: number | null }[] = await runPython('integrity', {
    violations: violations.map(([sql]) => sql),
  });
  assert.deepEqual(
    out.map((o) => [o.class, o.code]),
    violations.map(([, code]) => ['IntegrityError', code]),
  );
  // The same codes over HTTP (MCP answers the same result object).
  for (const [sql, code] of violations) {
    const r = await fx.server.sql(sql);
    assert.equal(r.type === 'error' && r.error_code, code, sql);
  }
});
