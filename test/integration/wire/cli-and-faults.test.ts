/** The mariadb command-line client against the listener, and bad input that must not hurt the server. */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { JOIN, startWireFixture, type WireFixture } from './helpers.js';
import { rawLogin } from './raw-client.js';

const run = promisify(execFile);
let fx: WireFixture;
let client = '';

before(async () => {
  for (const c of ['mariadb', 'mysql']) {
    try {
      execFileSync('which', [c], { stdio: 'ignore' });
      client = c;
      break;
    } catch {
      // try the next name
    }
  }
  assert.ok(
    client,
    'these tests need the mariadb or mysql command-line client (Debian: apt-get install -y mariadb-client)',
  );
  fx = await startWireFixture();
});

after(async () => {
  await fx?.stop();
});

function cli(args: string[], input?: string): Promise<{ stdout: string }> {
  const child = run(client, ['-h127.0.0.1', `-P${fx.port}`, '-uanyone', '--protocol=TCP', ...args], {
    timeout: 20_000,
  });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  return child;
}

test('mariadb client, batch mode: the cross-source join gives the rows of POST /api/sql/query', async () => {
  const http = await fx.server.sql(JOIN);
  assert.equal(http.type, 'table');
  const { stdout } = await cli(['--batch', '--skip-column-names', '-e', JOIN.replace(/\s+/g, ' ')]);
  const want =
    http.type === 'table'
      ? http.data.map((r) => r.map((v) => (v === null ? 'NULL' : String(v))).join('\t'))
      : [];
  assert.deepEqual(stdout.trim().split('\n'), want);
});

test('executable comments are read as MySQL reads them, and mariadb-dump dumps a source table', async () => {
  const { stdout } = await cli([
    '--batch',
    '--skip-column-names',
    '-e',
    "/*!40101 SET NAMES utf8mb4 */; SELECT 1 /*!, 2 */; SELECT 3 /*!90000 , 4 */; SELECT '/*!x*/'",
  ]);
  assert.deepEqual(stdout.trim().split('\n'), ['1\t2', '3', '/*!x*/']);
  const dumper = client === 'mariadb' ? 'mariadb-dump' : 'mysqldump';
  const dump = await run(
    dumper,
    ['-h127.0.0.1', `-P${fx.port}`, '-uanyone', '--protocol=TCP', 'pgs', 'customers'],
    {
      timeout: 20_000,
    },
  );
  assert.match(dump.stdout, /CREATE TABLE `customers`/);
  assert.match(dump.stdout, /INSERT INTO `customers` VALUES\s*\(1,'Ada','2024-01-05',10\.50\)/);
  assert.match(dump.stdout, /-- Dump completed/);
});

test('mariadb client, interactive style over stdin: SHOW, USE, SET NAMES, DATABASE(), SHOW CREATE TABLE', async () => {
  const script = [
    'SHOW DATABASES;',
    'USE mys;',
    'SHOW TABLES;',
    'SET NAMES utf8mb4;',
    'SELECT count(*) AS n FROM orders WHERE amount > 50;',
    'SELECT DATABASE();',
    'SHOW CREATE TABLE orders;',
    '',
  ].join('\n');
  const { stdout } = await cli(['--table'], script);
  assert.match(stdout, /\| mys +\|/);
  assert.match(stdout, /\| orders +\|/);
  assert.match(stdout, /\| +2 \|/);
  assert.match(stdout, /CREATE TABLE `orders`/);
});

test('a prepared statement with parameters through mysql2 matches POST /api/sql/query', async () => {
  const http = await fx.server.sql(`${JOIN.replace('ORDER BY', 'WHERE o.customer_id = 1 ORDER BY')}`);
  const conn = await mysql.createConnection({
    host: '127.0.0.1',
    port: fx.port,
    user: 'x',
    dateStrings: true,
  });
  const [rows] = await conn.execute(
    { sql: JOIN.replace('ORDER BY', 'WHERE o.customer_id = ? ORDER BY'), rowsAsArray: true },
    [1],
  );
  assert.deepEqual(rows, http.type === 'table' ? http.data : null);
  await conn.end();
});

function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

function raw(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: fx.port }, () => resolve(s));
    s.once('error', reject);
    // Read what the server says, or a closed connection is never noticed.
    s.on('data', () => {});
    s.on('error', () => {});
  });
}

async function stillServes(): Promise<void> {
  const conn = await mysql.createConnection({ host: '127.0.0.1', port: fx.port, user: 'x' });
  const [r] = await conn.query<mysql.RowDataPacket[]>('SELECT 1 AS one');
  assert.equal(r[0].one, 1);
  await conn.end();
}

async function closed(s: Socket): Promise<void> {
  if (s.destroyed) return;
  await new Promise((resolve) => s.once('close', resolve));
}

test('bad input: a malformed handshake, a packet above max_allowed_packet, 500 dropped connections', async () => {
  const fdsBefore = openFds();
  // A handshake response that ends mid-field.
  const bad = await raw();
  bad.write(Buffer.from([5, 0, 0, 1, 0x85, 0xa6, 0xff, 0x01, 0x00]));
  await closed(bad);
  // A packet header announcing 100 MiB: before login, cut at 16 KiB (1043); after login,
  // refused (1153) before anything is buffered.
  const head = Buffer.alloc(4);
  head.writeUIntLE(0xffffff, 0, 3);
  const early = await raw();
  const earlyChunks: Buffer[] = [];
  early.on('data', (d: Buffer) => earlyChunks.push(d));
  early.write(Buffer.concat([head, Buffer.alloc(0xffffff)]));
  await closed(early);
  assert.ok(
    Buffer.concat(earlyChunks).includes(Buffer.from('at most 16384 bytes before it is authenticated')),
  );
  const logged = await rawLogin(fx.port);
  const big = logged.socket;
  big.on('error', () => {});
  for (let i = 0; i < 5; i++) big.write(Buffer.concat([head, Buffer.alloc(0xffffff)]));
  await logged.closed;
  assert.ok(logged.received().includes(Buffer.from('max_allowed_packet')));
  // 500 connections opened and dropped, some mid-handshake.
  const sockets = await Promise.all(Array.from({ length: 500 }, () => raw()));
  for (const s of sockets) s.destroy();
  await stillServes();
  const end = Date.now() + 10_000;
  while (fx.server.mysql!.connections() > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  assert.equal(fx.server.mysql!.connections(), 0);
  assert.ok(openFds() <= fdsBefore + 5, `file descriptors come back (${fdsBefore} → ${openFds()})`);
});
