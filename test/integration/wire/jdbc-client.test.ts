/**
 * JDBC against the listener: MariaDB Connector/J (Debian's libmariadb-java) with a JDK,
 * through jdbc:mariadb: and jdbc:mysql: URLs. A cross-source join (Statement), the same with
 * parameters as a server-side prepared statement (binary rows), and DatabaseMetaData.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ensureJavaClients } from '../../helpers/debian-clients.js';
import { addVisits, JOIN, startWireFixture, type WireFixture } from './helpers.js';

const run = promisify(execFile);
const SOURCE = new URL('./jdbc/WireClient.java', import.meta.url).pathname;
const PARAM_SQL = `SELECT o.id, o.amount, c.name, o.placed_at FROM mys.orders o JOIN pgs.customers c ON c.id = o.customer_id
  WHERE o.amount > ? AND c.name <> ? ORDER BY o.id`;

let fx: WireFixture;
let java: ReturnType<typeof ensureJavaClients>;
let classes = '';

before(async () => {
  java = ensureJavaClients();
  classes = mkdtempSync(join(tmpdir(), 'tributary-jdbc-'));
  execFileSync(java.javac, ['-d', classes, '-cp', java.jar, SOURCE], { stdio: 'pipe', timeout: 120_000 });
  fx = await startWireFixture();
  await addVisits(fx);
});

after(async () => {
  await fx?.stop();
  if (classes) rmSync(classes, { recursive: true, force: true });
});

async function runJdbc(url: string): Promise<any> {
  try {
    const { stdout } = await run(
      java.java,
      ['-cp', `${java.jar}:${classes}`, 'WireClient', url, JOIN, PARAM_SQL, '1', 'Bo'],
      { timeout: 60_000 },
    );
    return JSON.parse(stdout);
  } catch (e) {
    const err = e as { message: string; stderr?: string };
    throw new Error(`${url}: ${err.message}\n${err.stderr ?? ''}`);
  }
}

async function httpRows(sql: string): Promise<unknown[][]> {
  const r = await fx.server.sql(sql);
  assert.equal(r.type, 'table', JSON.stringify(r));
  return r.type === 'table' ? r.data : [];
}

for (const scheme of ['mariadb', 'mysql']) {
  test(`JDBC (jdbc:${scheme}:, server-side prepared statements): join, parameters and metadata`, async () => {
    const out = await runJdbc(
      `jdbc:${scheme}://127.0.0.1:${fx.port}/pgs?user=anyone&useServerPrepStmts=true&connectTimeout=10000`,
    );
    assert.equal(out.catalog, 'pgs');
    assert.match(out.version, /^8\./);
    assert.deepEqual(out.join, await httpRows(JOIN));
    assert.equal(out.prepared_class, 'ServerSidePreparedStatement');
    const literal = (a: string, b: string) => PARAM_SQL.replace('?', a).replace('?', b);
    assert.deepEqual(out.param, await httpRows(literal('1', "'Bo'")));
    assert.equal(out.param.length, 2);
    assert.deepEqual(out.param_again, await httpRows(literal('0', "'Ada'")));
    assert.deepEqual(out.tables, [
      ['pgs', 'customers', 'TABLE'],
      ['pgs', 'visits', 'TABLE'],
    ]);
    assert.deepEqual(out.columns, [
      ['id', 'INT', '4', '10', '0', '0', '1'],
      ['customer_id', 'INT', '4', '10', '0', '0', '2'],
      ['day', 'DATE', '91', '10', null, '0', '3'],
      ['note', 'VARCHAR', '12', '20', null, '1', '4'],
    ]);
    assert.deepEqual(out.pk, [['visits', 'id', '1']]);
    assert.deepEqual(out.fks, [['customers', 'id', 'visits', 'customer_id']]);
    assert.ok(out.catalogs.some((r: string[]) => r[0] === 'mys'));
  });
}
