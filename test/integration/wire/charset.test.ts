/**
 * The connection's character set through the MySQL listener, both ways (SPEC section 9,
 * Bytes; docs/reference/wire.md "Character sets"): a latin1 client (PyMySQL's handshake,
 * mysqlclient's SET NAMES latin1, mysql2 prepared in the binary protocol) reads 'é', 'ÿ', '€'
 * from a utf8mb4 MariaDB column (the result relay declined) and a PostgreSQL text column as
 * latin1 bytes, column names too, a character latin1 lacks as '?', binary columns as bytes;
 * `SET character_set_results = NULL` gives the utf8mb4 bytes. COM_INIT_DB and COM_FIELD_LIST
 * names are read in the connection set. COMMIT/ROLLBACK RELEASE end then close the connection.
 * A string in the IN list of a PostgreSQL bytea column is its bytes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { ensurePythonClients, runPythonJob } from '../../helpers/debian-clients.js';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import {
  createMariaDatabase,
  createPgDatabase,
  MARIADB,
  mariaExec,
  PG,
  pgExec,
} from '../../helpers/services.js';
import { comQuery, packet, rawLogin } from './raw-client.js';

const PYTHON_SCRIPT = new URL('./python/charset.py', import.meta.url).pathname;
const TEXT = 'é, ÿ and €';
/** What a latin1 client reads for '日本 ok': MySQL writes a character latin1 lacks as '?'. */
const LACKING = '日本 ok';
const TABLES = ['myc.words', 'pgc.words'];
/** TEXT in MySQL's latin1 (cp1252: € is 0x80). */
const TEXT_CP1252 = 'e92c20ff20616e642080';

let server: TestServer;
let port = 0;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let maria: Awaited<ReturnType<typeof createMariaDatabase>>;
let python = '';

before(async () => {
  python = ensurePythonClients();
  pgdb = await createPgDatabase('wirecs');
  maria = await createMariaDatabase('wirecs');
  await pgExec(
    pgdb.database,
    `CREATE TABLE words (id int PRIMARY KEY, t text, b bytea);
     INSERT INTO words VALUES (1, '${TEXT}', '\\x00ff'), (2, '${LACKING}', NULL);
     CREATE TABLE bin_p (id int PRIMARY KEY, v bytea);
     INSERT INTO bin_p VALUES (1, '\\x5c783431'), (2, '\\x41'), (3, '\\x615c62');
     CREATE TABLE "clés" (nom text, n int);`,
  );
  await mariaExec(
    maria.database,
    `CREATE TABLE words (id int PRIMARY KEY, t text, b varbinary(10)) DEFAULT CHARSET utf8mb4;
     INSERT INTO words VALUES (1, '${TEXT}', X'00ff'), (2, '${LACKING}', NULL);
     CREATE TABLE tx (id int PRIMARY KEY, t text) ENGINE=InnoDB;`,
  );
  server = await startTestServer();
  for (const sql of [
    `CREATE DATABASE pgc WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgdb.database)}`,
    `CREATE DATABASE myc WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(maria.database)}`,
  ]) {
    const r = await server.sql(sql);
    assert.equal(r.type, 'ok', JSON.stringify(r));
  }
  port = server.mysql!.port;
});

after(async () => {
  await server?.stop();
  await pgdb?.drop();
  await maria?.drop();
});

function runPython(job: Record<string, unknown>): Promise<any> {
  return runPythonJob(python, PYTHON_SCRIPT, { port, ...job });
}

for (const client of ['pymysql', 'mysqldb']) {
  test(`${client} on a latin1 connection reads é, ÿ, € from MariaDB and PostgreSQL, names too; NULL results are utf8mb4`, async () => {
    const out = await runPython({ job: 'read', client, tables: TABLES });
    assert.equal(out.character_set_results, 'latin1', client);
    for (const t of TABLES) {
      const got = out.tables[t];
      assert.deepEqual(
        got.rows,
        [
          [1, TEXT, '00ff'],
          [2, '?? ok', null],
        ],
        `${client} ${t}`,
      );
      assert.deepEqual(got.names, ['id', 'clé', 'b'], `${client} ${t}`);
      // latin1_swedish_ci on the text column; the integer and the bytes keep binary (63).
      if (got.charsets) assert.deepEqual(got.charsets, [63, 8, 63], `${client} ${t}`);
    }
    assert.equal(out.results_after_null, null, client);
    for (const t of TABLES)
      assert.equal(out.raw[t], Buffer.from(TEXT, 'utf8').toString('hex'), `${client} ${t}`);
  });
}

test('mysql2 on a latin1 connection: prepared (binary protocol) and plain results in latin1', async () => {
  const c = await mysql.createConnection({
    host: '127.0.0.1',
    port,
    user: 'anyone',
    charset: 'LATIN1_SWEDISH_CI',
  });
  try {
    for (const t of TABLES) {
      for (const how of ['execute', 'query'] as const) {
        const [rows, fields] =
          how === 'execute'
            ? await c.execute<mysql.RowDataPacket[]>(`SELECT id, t, b FROM ${t} ORDER BY id`)
            : await c.query<mysql.RowDataPacket[]>(`SELECT id, t, b FROM ${t} ORDER BY id`);
        assert.deepEqual(
          // mysql2 decodes latin1 as ISO-8859-1, so its string's bytes are what was sent (MySQL's cp1252).
          rows.map((r) => [
            r.id,
            Buffer.from(r.t, 'latin1').toString('hex'),
            r.b === null ? null : (r.b as Buffer).toString('hex'),
          ]),
          [
            [1, TEXT_CP1252, '00ff'],
            [2, Buffer.from('?? ok').toString('hex'), null],
          ],
          `${how} ${t}`,
        );
        assert.deepEqual(
          fields.map((f) => f.characterSet),
          [63, 8, 63],
          `${how} ${t}`,
        );
      }
    }
  } finally {
    await c.end();
  }
});

test('a utf8mb4 connection still reads the same values as UTF-8 (the relay path for MariaDB)', async () => {
  const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'anyone' });
  try {
    for (const t of TABLES) {
      const [rows, fields] = await c.query<mysql.RowDataPacket[]>(`SELECT id, t FROM ${t} ORDER BY id`);
      assert.deepEqual(
        rows.map((r) => r.t),
        [TEXT, LACKING],
        t,
      );
      assert.equal(fields[1].characterSet, 45, t);
    }
  } finally {
    await c.end();
  }
});

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('COM_INIT_DB and COM_FIELD_LIST read their names in the connection set (latin1)', async () => {
  const c = await rawLogin(port);
  try {
    let seen = c.received().length;
    const answer = async (bytes: Buffer, what: string, done: (b: Buffer) => boolean) => {
      c.socket.write(bytes);
      await waitFor(() => done(c.received().subarray(seen)), what);
      const got = c.received().subarray(seen);
      seen = c.received().length;
      return got;
    };
    const ok = (b: Buffer) => b.length >= 5;
    assert.equal((await answer(comQuery('SET NAMES latin1'), 'SET NAMES', ok))[4], 0x00);
    // COM_INIT_DB 'pgc', then COM_FIELD_LIST of the table `clés` in latin1 bytes.
    assert.equal((await answer(packet(0, Buffer.from('\x02pgc', 'latin1')), 'COM_INIT_DB', ok))[4], 0x00);
    const eof = (b: Buffer) => b.includes(Buffer.from([0x05, 0x00, 0x00]), 0) && b.at(-5) === 0xfe;
    const list = await answer(packet(0, Buffer.from('\x04cl\xe9s\x00', 'latin1')), 'COM_FIELD_LIST', eof);
    assert.notEqual(list[4], 0xff, list.toString('latin1'));
    // Two column definitions naming the table in latin1 (cl\xe9s), not in UTF-8.
    assert.ok(list.includes(Buffer.from('\x04cl\xe9s\x04cl\xe9s\x03nom', 'latin1')), list.toString('hex'));
    assert.ok(list.includes(Buffer.from('\x01n\x01n', 'latin1')), list.toString('hex'));
  } finally {
    c.socket.destroy();
  }
});

test('COMMIT RELEASE and ROLLBACK RELEASE end the transaction, then the server closes; AND NO CHAIN keeps it open', async () => {
  for (const client of ['pymysql', 'mysqldb']) {
    await mariaExec(maria.database, 'DELETE FROM tx');
    const out = await runPython({ job: 'release', client, table: 'myc.tx' });
    assert.deepEqual(
      out,
      {
        'COMMIT RELEASE': { closed: true },
        'ROLLBACK RELEASE': { closed: true },
        'COMMIT AND NO CHAIN': { closed: false },
      },
      client,
    );
    const c = await mysql.createConnection({ ...MARIADB, database: maria.database });
    const [rows] = await c.query<mysql.RowDataPacket[]>('SELECT id FROM tx ORDER BY id');
    await c.end();
    assert.deepEqual(
      rows.map((r) => r.id),
      [1, 3],
      client,
    );
  }
});

test('a transaction statement over HTTP is 1235 saying to use the MySQL protocol; on the wire it never says so', async () => {
  const r = await server.sql('START TRANSACTION');
  assert.equal(r.type, 'error');
  assert.equal(r.type === 'error' && r.error_code, 1235);
  assert.match(r.type === 'error' ? r.error_message : '', /MySQL listener \(api\.mysql\.port/);
  const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'anyone' });
  try {
    await assert.rejects(c.query('COMMIT AND CHAIN RELEASE'), (e: { errno?: number; message: string }) => {
      assert.equal(e.errno, 1064);
      assert.doesNotMatch(e.message, /MySQL listener/);
      return true;
    });
  } finally {
    await c.end();
  }
});

test('strings in an IN list against a PostgreSQL bytea column are their bytes (backslashes too)', async () => {
  for (const client of ['pymysql', 'mysqldb']) {
    // b'\\x41' must match row 1 (those four bytes), not row 2 (the byte 'A'); b'a\\b' row 3.
    const out = await runPython({
      job: 'in_bytes',
      client,
      table: 'pgc.bin_p',
      values: ['5c783431', '615c62'],
    });
    assert.deepEqual(out, { in: [1, 3], not_in: [2] }, client);
  }
  const p = new pg.Client({ ...PG, database: pgdb.database });
  await p.connect();
  const r = await p.query('SELECT count(*)::int AS n FROM bin_p');
  await p.end();
  assert.equal(r.rows[0].n, 3);
});
