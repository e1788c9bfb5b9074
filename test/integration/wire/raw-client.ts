/**
 * A MySQL client by hand, for what real drivers never do on purpose: stop reading, half-close,
 * send too much before logging in. Logs in only to a server without auth (empty password).
 */
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  socket: Socket;
  /** Bytes received so far. */
  received(): Buffer;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
}

/** Connects and waits for the greeting. */
export async function rawConnect(port: number): Promise<RawConnection> {
  const socket = connect({ host: '127.0.0.1', port });
  const chunks: Buffer[] = [];
  socket.on('data', (d) => chunks.push(d));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const conn = { socket, received: () => Buffer.concat(chunks), closed };
  await until(() => conn.received().length >= 4, 'the greeting');
  return conn;
}

/** A packet: 3-byte length, sequence number, payload. */
export function packet(seq: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUIntLE(payload.length, 0, 3);
  head[3] = seq;
  return Buffer.concat([head, payload]);
}

/** A HandshakeResponse41 for `user` with no password. */
export function handshakeResponse(user: string): Buffer {
  // LONG_PASSWORD | PROTOCOL_41 | SECURE_CONNECTION | PLUGIN_AUTH
  const caps = 0x1 | 0x200 | 0x8000 | 0x80000;
  const fixed = Buffer.alloc(32);
  fixed.writeUInt32LE(caps, 0);
  fixed.writeUInt32LE(16 * 1024 * 1024, 4);
  fixed[8] = 45;
  return packet(
    1,
    Buffer.concat([
      fixed,
      Buffer.from(`${user}\0`),
      Buffer.from([0]),
      Buffer.from('caching_sha2_password\0'),
    ]),
  );
}

/** Connects and logs in (a server without auth); resolves after the OK. */
export async function rawLogin(port: number, user = 'raw'): Promise<RawConnection> {
  const c = await rawConnect(port);
  const greeting = c.received().length;
  c.socket.write(handshakeResponse(user));
  await until(() => c.received().length > greeting, 'the answer to the handshake');
  const answer = c.received().subarray(greeting);
  if (answer[4] !== 0x00) throw new Error(`login refused: ${answer.toString('hex')}`);
  return c;
}

/** COM_QUERY. */
export function comQuery(sql: string): Buffer {
  return packet(0, Buffer.concat([Buffer.from([0x03]), Buffer.from(sql, 'utf8')]));
}

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
