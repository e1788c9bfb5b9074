/**
 * The result relay (docs/reference/wire.md, "Result relay"): a plain SELECT pushed down whole
 * to a MariaDB source has its row packets relayed as the source sent them. A client must not
 * be able to tell: every statement here is answered with the same bytes, socket to socket,
 * through the relay and through the normal path (decode, then encode again).
 */
import assert from 'node:assert/strict';
import { connect as tcpConnect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import type { SqlEngine } from '../../../src/sql/engine-types.js';
import { mariaParams, startTestServer, type TestServer } from '../../helpers/server.js';
import { createMariaDatabase, mariaExec } from '../../helpers/services.js';

let server: TestServer;
let maria: { database: string; drop(): Promise<void> };
let engine: SqlEngine;
/** Statements the relay answered (a result or an error), counted by a wrapper around engine.relay. */
let relayed = 0;
let relay: SqlEngine['relay'];
/** What the relay answered last (an error result's code, or 0). */
let lastCode = 0;

/** One client whose socket's incoming bytes are recorded. */
async function client(
  db?: string,
): Promise<{ conn: mysql.Connection; bytes: () => Buffer; reset: () => void }> {
  const port = server.mysql!.port;
  const sock = tcpConnect(port, '127.0.0.1');
  let chunks: Buffer[] = [];
  sock.on('data', (c: Buffer) => chunks.push(c));
  const conn = await mysql.createConnection({ stream: sock, user: 'anyone', database: db });
  return {
    conn,
    bytes: () => Buffer.concat(chunks),
    reset: () => {
      chunks = [];
    },
  };
}

/** The bytes of one statement's answer, relayed or not; with `params`, a prepared statement's (COM_STMT_EXECUTE). */
async function answer(
  sql: string,
  useRelay: boolean,
  db?: string,
  params?: (string | number)[],
): Promise<Buffer> {
  const c = await client(db);
  try {
    (engine as { relay?: unknown }).relay = useRelay ? relay : undefined;
    if (params) {
      // Prepared before the bytes are recorded: only the execution's answer is compared.
      await c.conn.prepare(sql);
      c.reset();
      await c.conn.execute(sql, params).catch(() => {});
      return c.bytes();
    }
    c.reset();
    await c.conn.query(sql).catch(() => {});
    return c.bytes();
  } finally {
    (engine as { relay?: unknown }).relay = relay;
    await c.conn.end();
  }
}

/** Both answers are equal; returns whether the relay took the statement. */
async function same(sql: string, db?: string, params?: (string | number)[]): Promise<boolean> {
  const before = relayed;
  const viaRelay = await answer(sql, true, db, params);
  const took = relayed > before;
  const normal = await answer(sql, false, db, params);
  assert.equal(relayed, before + (took ? 1 : 0), 'the normal path does not relay');
  assert.ok(normal.length > 0, `an answer to ${sql}`);
  assert.equal(viaRelay.toString('hex'), normal.toString('hex'), sql);
  return took;
}

before(async () => {
  maria = await createMariaDatabase('relay');
  await mariaExec(
    maria.database,
    `CREATE TABLE t (id int PRIMARY KEY, d decimal(12,3), dt datetime(3), at datetime, t varchar(60),
       n int, big bigint unsigned, day date, tm time, ts timestamp NULL, raw varbinary(8), note text, f double);
     INSERT INTO t SELECT seq, seq / 7, '2024-01-01 00:00:00.125' + INTERVAL seq SECOND,
       '2024-06-01 12:00:00' + INTERVAL seq MINUTE, CONCAT('Zoë 🐟 ', seq), IF(seq % 3 = 0, NULL, seq),
       18446744073709551615 - seq, '2024-02-29' + INTERVAL seq DAY, '12:34:56', NULL, UNHEX('00ff10'),
       REPEAT('x', seq % 5), seq / 3 FROM seq_1_to_10000;
     UPDATE t SET d = NULL, t = NULL, dt = NULL WHERE id = 2;
     CREATE TABLE kinds (id int PRIMARY KEY, tiny tinyint, small smallint, medium mediumint, i int,
       signed_big bigint, yr year, neg_time time(6), long_time time, zero_day date, frac_time time(3),
       ubig bigint unsigned, uint int unsigned);
     INSERT INTO kinds VALUES (1, -128, -32768, -8388608, -2147483648, -9223372036854775808, 2024,
       '-838:59:59.000000', '100:00:01', '0000-00-00', '00:00:00.5', 9007199254740993, 4294967295),
       (2, 127, 32767, 8388607, 2147483647, 9223372036854775807, 1901, '-00:00:01', '00:00:00', '1000-01-01',
       '23:59:59.999', 0, 0);`,
  );
  server = await startTestServer();
  const r = await server.sql(
    `CREATE DATABASE rel WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(maria.database)}`,
  );
  assert.equal(r.type, 'ok', JSON.stringify(r));
  engine = server.deps.engine;
  const own = engine.relay!.bind(engine);
  relay = async (...args) => {
    const out = await own(...args);
    if (out) relayed++;
    lastCode = out?.type === 'error' ? out.error_code : 0;
    return out;
  };
  (engine as { relay?: unknown }).relay = relay;
});

after(async () => {
  await server?.stop();
  await maria?.drop();
});

describe('the result relay answers with the bytes of the normal path', () => {
  test('NULLs, DECIMAL, DATETIME with fractions, utf8mb4 text, unsigned BIGINT, DATE, TIME, bytes', async () => {
    assert.ok(
      await same(
        'SELECT id, d, dt, at, t, n, big, day, tm, ts, raw, note FROM rel.t WHERE id <= 5 ORDER BY id',
      ),
    );
  });

  test('prepared statements (binary protocol): NULLs, integers, DECIMAL, dates and times, text, bytes', async () => {
    const sql =
      'SELECT id, d, dt, at, t, n, big, day, tm, ts, raw, note FROM rel.t WHERE id <= ? ORDER BY id';
    assert.ok(await same(sql, undefined, [5]));
    // Again: the column definitions now come from the memo of the shape's head.
    assert.ok(await same(sql, undefined, [3]));
    assert.ok(await same('SELECT id, t FROM rel.t WHERE id = ?', undefined, [7]));
  });

  test('prepared statements: integer widths and signs, zero and negative dates and times', async () => {
    assert.ok(
      await same(
        `SELECT id, tiny, small, medium, i, signed_big, yr, neg_time, long_time, zero_day, frac_time, ubig, uint
           FROM rel.kinds WHERE id <= ? ORDER BY id`,
        undefined,
        [2],
      ),
    );
  });

  test('point lookups, again with the shared plan of their shape', async () => {
    for (const id of [11, 12, 13]) assert.ok(await same(`SELECT id, t, d, at FROM rel.t WHERE id = ${id}`));
  });

  test('point lookups pipelined from several clients at once: the same bytes, each its own', async () => {
    const sql = (id: number) => `SELECT id, t, d, at, dt FROM rel.t WHERE id = ${id}`;
    assert.ok(await same(sql(20)));
    const source = (await server.deps.sources.get('rel')) as unknown as { pipeline: { written: number } };
    const before = source.pipeline.written;
    const ids = [21, 22, 23, 24, 25, 26, 27, 28];
    const clients = await Promise.all(ids.map(() => client()));
    try {
      // A shape joins the pipeline once it relayed within 5 ms: on a loaded machine that may
      // take a few rounds. Every round's answers are checked, pipelined or not.
      for (let round = 0; round < 20 && source.pipeline.written - before < 2; round++) {
        for (const c of clients) c.reset();
        await Promise.all(clients.map((c, i) => c.conn.query(sql(ids[i]))));
        const got = clients.map((c) => c.bytes().toString('hex'));
        for (let i = 0; i < ids.length; i++)
          assert.equal(got[i], (await answer(sql(ids[i]), false)).toString('hex'), sql(ids[i]));
      }
      assert.ok(source.pipeline.written - before >= 2, 'the pipeline carried them');
    } finally {
      for (const c of clients) await c.conn.end();
    }
  });

  test('an empty result', async () => {
    assert.ok(await same('SELECT id, d, dt FROM rel.t WHERE id < 0'));
  });

  test('10,000 rows', async () => {
    assert.ok(await same('SELECT id, t, d, dt, n FROM rel.t ORDER BY id'));
  });

  test('aliases and lower-case expressions are named as the normal path names them', async () => {
    assert.ok(await same('select count(*), max(d) as top, min(t), sum(n) from rel.t'));
    assert.ok(
      await same("SELECT id AS `Key`, round(d, 1), concat(t, '!'), upper(t) u FROM rel.t WHERE id IN (1, 2)"),
    );
  });

  test('a result whose types the engine settles itself (integer arithmetic: BIGINT) keeps the normal path', async () => {
    assert.equal(await same('SELECT id + 1, d FROM rel.t WHERE id = 3'), false);
  });

  test('the default database names the columns schema', async () => {
    assert.ok(await same('SELECT id, t FROM t WHERE id = 7', 'rel'));
  });

  test('an error raised by the source while it runs', async () => {
    assert.ok(await same('SELECT id, (SELECT id FROM rel.t) AS x FROM rel.t WHERE id = 1'));
  });

  test('a DOUBLE column is declined before anything is sent, and answered the normal way', async () => {
    assert.equal(await same('SELECT id, f FROM rel.t WHERE id = 4'), false);
    assert.equal(await same('SELECT id, f FROM rel.t WHERE id = 5'), false, 'the shape is remembered');
  });

  test('statements the engine does not push down whole keep the normal path', async () => {
    assert.equal(await same('SELECT 1 + 1 AS two'), false);
    assert.equal(await same('SHOW DATABASES'), false);
  });

  test('a statement past its time limit is killed at the source and answered 3024', async () => {
    const rows: number[] = [];
    const out = await engine.relay!(
      'SELECT id, SLEEP(5) AS s FROM rel.t WHERE id = 1',
      {},
      { timeoutMs: 300 },
      { head: () => {}, row: (_b, start, end) => rows.push(end - start) > 0 },
    );
    assert.equal(out?.type, 'error');
    assert.equal(out?.type === 'error' ? out.error_code : 0, 3024);
    assert.ok(await same('SELECT id FROM rel.t WHERE id = 40'), 'the pool stays usable');
  });

  test('a client that stops reading pauses the source; every row arrives once it reads again', async () => {
    const c = await client();
    const sock = (c.conn as unknown as { connection: { stream: import('node:net').Socket } }).connection
      .stream;
    const before = relayed;
    const q = c.conn.query({
      sql: 'SELECT a.id, a.t, b.id FROM rel.t a, rel.t b WHERE b.id <= 30',
      rowsAsArray: true,
    });
    sock.pause();
    await new Promise((r) => setTimeout(r, 500));
    sock.resume();
    const [rows] = await q;
    assert.equal((rows as unknown[]).length, 300_000);
    assert.equal(relayed, before + 1);
    await c.conn.end();
  });

  test('a client gone in the middle of a large result cancels it and the pool stays usable', async () => {
    const c = await client();
    const q = c.conn.query({
      sql: 'SELECT a.id, a.t FROM rel.t a, rel.t b WHERE b.id < 1000',
      rowsAsArray: true,
    });
    q.catch(() => {});
    await new Promise((r) => setTimeout(r, 200));
    const before = relayed;
    c.conn.destroy();
    for (let i = 0; i < 100 && relayed === before; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(relayed, before + 1, 'the statement ended');
    assert.equal(lastCode, 1317, 'cancelled at the source');
    for (let i = 0; i < 12; i++) assert.ok(await same(`SELECT id FROM rel.t WHERE id = ${20 + i}`));
  });
});

describe('an UNSIGNED column of a MariaDB source', () => {
  // `big` is BIGINT UNSIGNED: 18446744073709551615 - id, past 2^63 for every row.
  const want = (id: number) => (18446744073709551615n - BigInt(id)).toString();
  const UNSIGNED_FLAG = 32;

  test('is flagged UNSIGNED, so text and prepared results read past 2^63 right', async () => {
    const c = await mysql.createConnection({
      host: '127.0.0.1',
      port: server.mysql!.port,
      user: 'anyone',
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
    try {
      for (const useRelay of [true, false]) {
        (engine as { relay?: unknown }).relay = useRelay ? relay : undefined;
        const [rows, fields] = await c.query<mysql.RowDataPacket[]>('SELECT id, big FROM rel.t WHERE id = 3');
        assert.equal(String(rows[0].big), want(3), `text, relay ${useRelay}`);
        assert.ok((fields[1].flags as number) & UNSIGNED_FLAG, 'UNSIGNED in the column definition');
        assert.ok(!((fields[0].flags as number) & UNSIGNED_FLAG), 'a signed INT is not');
      }
      // The binary protocol sends the 8 bytes; only the flag tells a client they are unsigned.
      const [prepared] = await c.execute<mysql.RowDataPacket[]>('SELECT big FROM rel.t WHERE id = ?', [4]);
      assert.equal(String(prepared[0].big), want(4));
      const [cols] = await c.query<mysql.RowDataPacket[]>(
        "SELECT COLUMN_TYPE, DATA_TYPE, NUMERIC_PRECISION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'rel' AND TABLE_NAME = 't' AND COLUMN_NAME = 'big'",
      );
      assert.deepEqual(
        { ...cols[0], NUMERIC_PRECISION: Number(cols[0].NUMERIC_PRECISION) },
        { COLUMN_TYPE: 'bigint unsigned', DATA_TYPE: 'bigint', NUMERIC_PRECISION: 20 },
      );
      const [create] = await c.query<mysql.RowDataPacket[]>('SHOW CREATE TABLE rel.t');
      assert.match(String(create[0]['Create Table']), /`big` bigint unsigned/);
    } finally {
      (engine as { relay?: unknown }).relay = relay;
      await c.end();
    }
  });
});
