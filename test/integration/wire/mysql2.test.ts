/** The MySQL listener through the mysql2 driver: text and prepared statements against real PostgreSQL and MariaDB sources. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mysqlCallbacks from 'mysql2';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { PG, pgExec } from '../../helpers/services.js';
import { JOIN, startWireFixture, type WireFixture } from './helpers.js';

let fx: WireFixture;
let pgdb = '';

const connect = (o: mysql.ConnectionOptions = {}) =>
  mysql.createConnection({ host: '127.0.0.1', port: fx.port, user: 'anyone', dateStrings: true, ...o });

before(async () => {
  fx = await startWireFixture();
  const r = await fx.server.sql('SELECT 1');
  assert.equal(r.type, 'table');
  const conn = await connect();
  const [rows] = await conn.query<mysql.RowDataPacket[]>("SHOW VARIABLES LIKE 'version_comment'");
  assert.match(String(rows[0].Value), /^Tributary/);
  await conn.end();
  // A table big enough to stream and slow enough to cancel.
  const list = await fx.server.sql('SHOW DATABASES');
  assert.equal(list.type, 'table');
});

after(async () => {
  await fx?.stop();
});

describe('mysql2 against the MySQL listener', () => {
  test('a cross-source join (text protocol) returns the rows of POST /api/sql/query', async () => {
    const http = await fx.server.sql(JOIN);
    assert.equal(http.type, 'table');
    const conn = await connect();
    const [rows, fields] = await conn.query({ sql: JOIN, rowsAsArray: true });
    assert.deepEqual(rows, http.type === 'table' ? http.data : null);
    const byName = Object.fromEntries((fields as mysql.FieldPacket[]).map((f) => [f.name, f]));
    assert.equal(byName.amount.type, 0xf6, 'DECIMAL is NEWDECIMAL');
    assert.equal(byName.amount.decimals, 2, 'DECIMAL(12,2) shows two decimals');
    assert.ok([0x03, 0x08].includes(Number(byName.order_id.type)), 'an integer is LONG or LONGLONG');
    assert.equal(byName.placed_at.type, 0x0c, 'datetime is DATETIME');
    assert.equal(byName.joined.type, 0x0a, 'date is DATE');
    await conn.end();
  });

  test('a prepared cross-source join with parameters (binary protocol) returns the same rows as HTTP', async () => {
    const withLiterals = `${JOIN.replace('ORDER BY', "WHERE o.amount > 1 AND c.name <> 'Bo' AND o.placed_at >= '2024-01-01' ORDER BY")}`;
    const http = await fx.server.sql(withLiterals);
    assert.equal(http.type, 'table');
    const conn = await connect();
    const sql = JOIN.replace('ORDER BY', 'WHERE o.amount > ? AND c.name <> ? AND o.placed_at >= ? ORDER BY');
    const [rows] = await conn.execute({ sql, rowsAsArray: true }, [1, 'Bo', '2024-01-01']);
    assert.deepEqual(rows, http.type === 'table' ? http.data : null);
    assert.equal((rows as unknown[]).length, 2);
    // Executed again with other values (the statement is kept; types sent again).
    const [again] = await conn.execute({ sql, rowsAsArray: true }, [0, 'Ada', '2000-01-01']);
    assert.deepEqual(
      (again as unknown[][]).map((r) => r[1]),
      [12],
    );
    // NULL parameters, numbers and dates in the binary result.
    const [typed] = await conn.execute<mysql.RowDataPacket[]>(
      'SELECT id, amount, placed_at, note FROM mys.orders WHERE id = ? OR note = ? ORDER BY id',
      [11, null],
    );
    assert.deepEqual(typed, [{ id: 11, amount: '5.00', placed_at: '2024-02-02 11:30:15', note: null }]);
    await conn.end();
  });

  test('what drivers ask on connect is answered as MySQL 8 does', async () => {
    const conn = await connect({ database: 'mys' });
    const [rows] = await conn.query<mysql.RowDataPacket[]>(
      'SELECT @@version_comment, @@max_allowed_packet, @@session.transaction_isolation, DATABASE(), USER(), CONNECTION_ID()',
    );
    const r = rows[0];
    assert.match(String(r['@@version_comment']), /^Tributary /);
    assert.equal(r['@@max_allowed_packet'], 67108864);
    assert.equal(r['@@session.transaction_isolation'], 'REPEATABLE-READ');
    assert.equal(r['DATABASE()'], 'mys');
    assert.match(String(r['USER()']), /^anyone@127\.0\.0\.1$/);
    assert.equal(r['CONNECTION_ID()'], conn.threadId);
    await conn.query('SET NAMES utf8mb4');
    await conn.query('SET autocommit=1, sql_mode = "ANSI"');
    const [mode] = await conn.query<mysql.RowDataPacket[]>('SELECT @@sql_mode AS m');
    assert.equal(mode[0].m, 'ANSI');
    const [coll] = await conn.query<mysql.RowDataPacket[]>("SHOW COLLATION LIKE 'utf8mb4_general_ci'");
    assert.equal(coll[0].Id, 45);
    const [cs] = await conn.query<mysql.RowDataPacket[]>('SHOW CHARACTER SET');
    assert.ok(cs.some((c) => c.Charset === 'utf8mb4'));
    const [count] = await conn.query<mysql.RowDataPacket[]>('SELECT count(*) AS n FROM orders');
    assert.equal(count[0].n, 4, 'the connect database is the default source');
    await conn.query('USE pgs');
    const [db] = await conn.query<mysql.RowDataPacket[]>('SELECT DATABASE() AS d');
    assert.equal(db[0].d, 'pgs');
    await conn.ping();
    await conn.end();
  });

  test('errors carry the MySQL code and SQLSTATE', async () => {
    const conn = await connect();
    const cases: [string, number, string][] = [
      ['SELECT * FROM mys.nope', 1146, '42S02'],
      ['SELEC 1', 1064, '42000'],
      ['SELECT nope FROM mys.orders', 1054, '42S22'],
      ['USE nowhere', 1049, '42000'],
      ['SELECT @@no_such_variable', 1193, 'HY000'],
    ];
    for (const [sql, code, state] of cases) {
      await assert.rejects(conn.query(sql), (e: { errno: number; sqlState: string }) => {
        assert.equal(e.errno, code, sql);
        assert.equal(e.sqlState, state, sql);
        return true;
      });
    }
    await assert.rejects(connect({ database: 'nowhere' }), { errno: 1049 });
    await conn.end();
  });

  test('writes report affected rows, also prepared', async () => {
    const conn = await connect();
    const [ok] = await conn.query<mysql.ResultSetHeader>(
      'INSERT INTO mys.orders (id, customer_id, amount) VALUES (20, 1, 1.5), (21, 2, 2.5)',
    );
    assert.equal(ok.affectedRows, 2);
    const [upd] = await conn.execute<mysql.ResultSetHeader>(
      'UPDATE mys.orders SET amount = ? WHERE id >= ?',
      [3, 20],
    );
    assert.equal(upd.affectedRows, 2);
    const [back] = await conn.execute<mysql.RowDataPacket[]>(
      'SELECT sum(amount) AS s FROM mys.orders WHERE id >= 20',
    );
    assert.equal(back[0].s, '6.00');
    await conn.end();
  });
});

describe('large results and cancellation', () => {
  before(async () => {
    pgdb = fx.pgDatabase;
    await pgExec(
      pgdb,
      `CREATE TABLE big AS SELECT g AS id, md5(g::text) AS h FROM generate_series(1, 100000) g`,
    );
  });

  test('100,000 rows stream to the client in order', async () => {
    const raw = mysqlCallbacks.createConnection({ host: '127.0.0.1', port: fx.port, user: 'anyone' });
    let n = 0;
    let last = 0;
    await new Promise<void>((resolve, reject) => {
      raw
        .query('SELECT id, h FROM pgs.big ORDER BY id')
        .stream()
        .on('data', (row: { id: number }) => {
          n++;
          assert.equal(row.id, last + 1);
          last = row.id;
        })
        .on('end', resolve)
        .on('error', reject);
    });
    assert.equal(n, 100000);
    await new Promise((resolve) => raw.end(resolve));
  });

  test('KILL QUERY and a client that disconnects both cancel the statement at PostgreSQL', async () => {
    const slow = 'SELECT count(*) FROM pgs.big a JOIN pgs.big b ON a.h < b.h';
    const victim = await connect();
    const killer = await connect();
    const running = victim.query(slow);
    await waitFor(async () => (await pgActive(pgdb)) > 0, 'the statement reaches PostgreSQL');
    await killer.query(`KILL QUERY ${victim.threadId}`);
    await assert.rejects(running, (e: { errno: number }) => [1317, 3024].includes(e.errno));
    await waitFor(
      async () => (await pgActive(pgdb)) === 0,
      'PostgreSQL stops the statement after KILL QUERY',
    );
    // The connection stays usable after KILL QUERY.
    const [one] = await victim.query<mysql.RowDataPacket[]>('SELECT 1 AS x');
    assert.equal(one[0].x, 1);

    const gone = await connect();
    gone.query(slow).catch(() => {});
    await waitFor(async () => (await pgActive(pgdb)) > 0, 'the second statement reaches PostgreSQL');
    gone.destroy();
    await waitFor(
      async () => (await pgActive(pgdb)) === 0,
      'PostgreSQL stops the statement of a client gone away',
    );
    await victim.end();
    await killer.end();
  });
});

async function pgActive(database: string): Promise<number> {
  const c = new pg.Client(PG);
  await c.connect();
  try {
    const r = await c.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE 'SELECT COUNT(*)%big%'",
      [database],
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
