/**
 * Binary values through the MySQL listener arrive intact (SPEC section 9, Bytes): written by
 * the clients people have (PyMySQL and mysqlclient with and without binary_prefix, Connector/J
 * setBytes with its default client-side prepares, `mariadb --binary-mode` with `_binary'..'`
 * and `X'..'` literals) into a MariaDB VARBINARY and LONGBLOB table and a PostgreSQL bytea
 * table; compared byte for byte at the source itself and read back through the listener in
 * the text protocol and the binary protocol (server-side prepared). A latin1 connection
 * stores 'é' as 'é' in a utf8 text column.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { ensureJavaClients, ensurePythonClients, runPythonJob } from '../../helpers/debian-clients.js';
import { mariaParams, pgParams, startTestServer, type TestServer } from '../../helpers/server.js';
import {
  createMariaDatabase,
  createPgDatabase,
  MARIADB,
  mariaExec,
  PG,
  pgExec,
} from '../../helpers/services.js';

const run = promisify(execFile);
const PYTHON_SCRIPT = new URL('./python/binary.py', import.meta.url).pathname;
const JAVA_SOURCE = new URL('./jdbc/BinaryClient.java', import.meta.url).pathname;

/** Every byte value, in order and reversed (NUL, quote, backslash, 0x80-0xFF among them). */
const ALL = Buffer.concat([
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i)),
]);
/** Values a byte-blind path gets wrong: NUL in valid UTF-8, PostgreSQL's bytea escapes, quotes. */
const VALUES: Record<string, Buffer> = {
  '1': ALL,
  '2': Buffer.from([0x00, 0x01]),
  '3': Buffer.from('\\x41', 'latin1'),
  '4': Buffer.from('a\\b\'"', 'latin1'),
  '5': Buffer.from('plain text é', 'utf8'),
  '6': Buffer.alloc(0),
};
const HEX = Object.fromEntries(Object.entries(VALUES).map(([k, v]) => [k, v.toString('hex')]));
const TABLES = ['myb.bin_v', 'myb.bin_b', 'pgb.bin_p'];

let server: TestServer;
let port = 0;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let maria: Awaited<ReturnType<typeof createMariaDatabase>>;
let python = '';

before(async () => {
  python = ensurePythonClients();
  pgdb = await createPgDatabase('wirebin');
  maria = await createMariaDatabase('wirebin');
  await pgExec(
    pgdb.database,
    `CREATE TABLE bin_p (id int PRIMARY KEY, v bytea); CREATE TABLE words (id int PRIMARY KEY, t text);`,
  );
  await mariaExec(
    maria.database,
    `CREATE TABLE bin_v (id int PRIMARY KEY, v varbinary(600));
     CREATE TABLE bin_b (id int PRIMARY KEY, v longblob);
     CREATE TABLE words (id int PRIMARY KEY, t text) DEFAULT CHARSET utf8mb4;`,
  );
  server = await startTestServer();
  for (const sql of [
    `CREATE DATABASE pgb WITH ENGINE = 'postgres', PARAMETERS = ${pgParams(pgdb.database)}`,
    `CREATE DATABASE myb WITH ENGINE = 'mariadb', PARAMETERS = ${mariaParams(maria.database)}`,
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

/** What the source itself holds in `table` (source.table), by id, as hex. */
async function atSource(table: string): Promise<Record<string, string>> {
  const [db, name] = table.split('.');
  const out: Record<string, string> = {};
  if (db === 'pgb') {
    const c = new pg.Client({ ...PG, database: pgdb.database });
    await c.connect();
    try {
      const r = await c.query(`SELECT id, v FROM ${name}`);
      for (const row of r.rows) out[String(row.id)] = (row.v as Buffer).toString('hex');
    } finally {
      await c.end();
    }
    return out;
  }
  const c = await mysql.createConnection({ ...MARIADB, database: maria.database });
  try {
    const [rows] = await c.query<mysql.RowDataPacket[]>(`SELECT id, v FROM ${name}`);
    for (const row of rows) out[String(row.id)] = (row.v as Buffer).toString('hex');
  } finally {
    await c.end();
  }
  return out;
}

/** `table` read back through the listener: text protocol (query) and binary protocol (execute). */
async function throughListener(
  table: string,
): Promise<{ text: Record<string, string>; binary: Record<string, string> }> {
  const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'anyone' });
  const text: Record<string, string> = {};
  const binary: Record<string, string> = {};
  try {
    const [rows] = await c.query<mysql.RowDataPacket[]>(`SELECT id, v FROM ${table}`);
    for (const row of rows) text[String(row.id)] = (row.v as Buffer).toString('hex');
    for (const id of Object.keys(text)) {
      const [one] = await c.execute<mysql.RowDataPacket[]>(`SELECT v FROM ${table} WHERE id = ?`, [
        Number(id),
      ]);
      binary[id] = (one[0].v as Buffer).toString('hex');
    }
  } finally {
    await c.end();
  }
  return { text, binary };
}

async function clear(): Promise<void> {
  const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'anyone' });
  try {
    for (const t of TABLES) await c.query(`DELETE FROM ${t}`);
  } finally {
    await c.end();
  }
}

/** Every table holds exactly `want` (id to hex) at its source and through both protocols. */
async function assertStored(want: Record<string, string>, who: string): Promise<void> {
  for (const table of TABLES) {
    assert.deepEqual(await atSource(table), want, `${who}: ${table} at its source`);
    const back = await throughListener(table);
    assert.deepEqual(back.text, want, `${who}: ${table} read back in the text protocol`);
    assert.deepEqual(back.binary, want, `${who}: ${table} read back in the binary protocol`);
  }
}

function runPython(job: Record<string, unknown>): Promise<any> {
  return runPythonJob(python, PYTHON_SCRIPT, { port, ...job });
}

for (const client of ['pymysql', 'mysqldb']) {
  for (const prefix of [true, false]) {
    test(`${client} (binary_prefix=${prefix}): bytes written as statement text round-trip byte for byte`, async () => {
      await clear();
      const out = await runPython({ client, binary_prefix: prefix, tables: TABLES, values: HEX });
      for (const t of TABLES) {
        assert.deepEqual(out[t], HEX, `${client} reads back ${t}`);
        for (const id of Object.keys(HEX))
          assert.deepEqual(out.found[`${t} ${id}`], [Number(id)], `${client}: ${t} WHERE v = value ${id}`);
      }
      await assertStored(HEX, `${client} binary_prefix=${prefix}`);
    });
  }
}

test('Connector/J setBytes (client-side prepared, its default): every byte value round-trips', async () => {
  const java = ensureJavaClients();
  const classes = mkdtempSync(join(tmpdir(), 'tributary-jdbc-bin-'));
  try {
    execFileSync(java.javac, ['-d', classes, '-cp', java.jar, JAVA_SOURCE], {
      stdio: 'pipe',
      timeout: 120_000,
    });
    await clear();
    const { stdout } = await run(
      java.java,
      ['-cp', `${java.jar}:${classes}`, 'BinaryClient', String(port), ALL.toString('hex'), ...TABLES],
      { timeout: 60_000 },
    );
    const out = JSON.parse(stdout);
    assert.equal(out.prepared_class, 'ClientSidePreparedStatement');
    for (const t of TABLES) {
      assert.equal(out[`${t} text`], ALL.toString('hex'), `${t} through a Statement`);
      assert.equal(out[`${t} binary`], ALL.toString('hex'), `${t} through a server-side prepared statement`);
    }
    await assertStored({ '7': ALL.toString('hex') }, 'Connector/J');
  } finally {
    rmSync(classes, { recursive: true, force: true });
  }
});

/** A `_binary'..'` literal of `b`: quote and backslash escaped, every other byte as it is. */
function binaryLiteral(b: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from("_binary'")];
  for (const c of b) parts.push(c === 0x27 || c === 0x5c ? Buffer.from([0x5c, c]) : Buffer.from([c]));
  parts.push(Buffer.from("'"));
  return Buffer.concat(parts);
}

test('mariadb --binary-mode: _binary literals with raw bytes and X literals are stored exactly', async () => {
  await clear();
  const lines: Buffer[] = [];
  for (const t of TABLES) {
    lines.push(Buffer.from(`INSERT INTO ${t} (id, v) VALUES (1, `), binaryLiteral(ALL), Buffer.from(');\n'));
    lines.push(Buffer.from(`INSERT INTO ${t} (id, v) VALUES (2, X'${ALL.toString('hex')}');\n`));
    lines.push(
      Buffer.from(`INSERT INTO ${t} (id, v) VALUES (3, `),
      binaryLiteral(VALUES['4']),
      Buffer.from(');\n'),
    );
  }
  const child = run(
    'mariadb',
    ['-h127.0.0.1', `-P${port}`, '-uanyone', '--protocol=TCP', '--binary-mode', '--batch'],
    {
      timeout: 20_000,
    },
  );
  child.child.stdin?.end(Buffer.concat(lines));
  await child;
  await assertStored(
    { '1': ALL.toString('hex'), '2': ALL.toString('hex'), '3': HEX['4'] },
    'mariadb --binary-mode',
  );
});

test('a latin1 connection (handshake or SET NAMES) stores é as é in a utf8 text column', async () => {
  const words = ['myb.words', 'pgb.words'];
  for (const client of ['pymysql', 'mysqldb']) {
    const out = await runPython({ latin1: true, client, words, text: 'é, ÿ and €' });
    assert.equal(out.character_set_client, 'latin1', client);
    assert.equal(out.char_length, 10, client);
    const c = await mysql.createConnection({ ...MARIADB, database: maria.database });
    const [rows] = await c.query<mysql.RowDataPacket[]>('SELECT t, HEX(t) AS h FROM words');
    await c.end();
    assert.deepEqual(
      rows.map((r) => [r.t, r.h]),
      [['é, ÿ and €', Buffer.from('é, ÿ and €').toString('hex').toUpperCase()]],
      client,
    );
    const p = new pg.Client({ ...PG, database: pgdb.database });
    await p.connect();
    const r = await p.query('SELECT t FROM words');
    await p.end();
    assert.deepEqual(
      r.rows.map((x) => x.t),
      ['é, ÿ and €'],
      client,
    );
  }
});
