/**
 * Before authentication a connection may send at most 16 KiB and must finish the handshake
 * within 10 s (docs/reference/wire.md): a client cannot make the server hold a 64 MiB packet
 * without a password, nor keep a connection open by never logging in.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import mysql from 'mysql2/promise';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { rawConnect } from './raw-client.js';

let server: TestServer;
let port = 0;

before(async () => {
  server = await startTestServer();
  port = server.mysql!.port;
});

after(async () => {
  await server?.stop();
});

/** The first ERR packet in `bytes` (after the greeting): its code and message. */
function errorIn(bytes: Buffer): { code: number; message: string } | null {
  let at = 0;
  while (at + 4 <= bytes.length) {
    const len = bytes.readUIntLE(at, 3);
    const body = bytes.subarray(at + 4, at + 4 + len);
    if (body[0] === 0xff) return { code: body.readUInt16LE(1), message: body.subarray(9).toString() };
    at += 4 + len;
  }
  return null;
}

test('a client sending 20 MiB before logging in is cut off after 16 KiB', async () => {
  const c = await rawConnect(port);
  const greeting = c.received().length;
  // One packet that claims 16 MiB, then its bytes, 64 KiB at a time, until the server hangs up.
  const total = 20 * 1024 * 1024;
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  let closed = false;
  void c.closed.then(() => {
    closed = true;
  });
  const head = Buffer.alloc(4);
  head.writeUIntLE(0xffffff, 0, 3);
  head[3] = 1;
  c.socket.write(head);
  while (sent < total && !closed && !c.socket.destroyed) {
    const ok = c.socket.write(chunk);
    sent += chunk.length;
    if (!ok) await Promise.race([new Promise((r) => c.socket.once('drain', r)), c.closed]);
  }
  await c.closed;
  // What loopback's socket buffers take in before the server's hang-up reaches the writer is
  // all that was sent: far from 20 MiB.
  assert.ok(sent < total / 2, `the writer was stopped early (${sent} bytes written)`);
  const err = errorIn(c.received().subarray(greeting));
  assert.deepEqual(err, {
    code: 1043,
    message: 'Bad handshake: a connection may send at most 16384 bytes before it is authenticated',
  });
  assert.equal(server.mysql!.connections(), 0);
});

test('a connection that does not finish the handshake is closed after 10 s', async () => {
  const silent = await rawConnect(port);
  const partial = await rawConnect(port);
  // Half of a handshake response's header, then nothing.
  partial.socket.write(Buffer.from([0x20, 0x00]));
  const started = Date.now();
  await Promise.all([silent.closed, partial.closed]);
  const took = Date.now() - started;
  assert.ok(took >= 9500 && took < 12_000, `closed after ${took} ms`);
});

test('after logging in, statements far beyond 16 KiB are read', async () => {
  const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'anyone' });
  const big = 'x'.repeat(200_000);
  const [rows] = await c.query<mysql.RowDataPacket[]>(`SELECT '${big}' AS s`);
  assert.equal(rows[0].s, big);
  await c.end();
});
