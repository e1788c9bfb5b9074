/**
 * The thinnest MySQL proxy this machine can run (bench/wire.ts "floor"): a mysql2 server
 * that forwards each COM_QUERY's text to MariaDB through a mysql2 pool and writes the
 * column definitions and rows back as they came (array rows, no conversion, no parsing,
 * no planning). Run as its own process like Tributary's server, so the two compete with the
 * load generator for the same 2 cores in the same way. Usage: wire-floor.ts <port> <database>
 * [pipe|pipeline]; prints `ready` once listening. With `pipe`, the floor of any proxy at all: each
 * client connection is a TCP pipe to its own MariaDB connection, bytes copied both ways.
 */
import { connect, createServer, type Socket } from 'node:net';
import mysql from 'mysql2';
import { MARIADB } from '../test/helpers/services.js';

const [port, database, mode] = process.argv.slice(2);

if (mode === 'pipe') {
  createServer((client) => {
    client.setNoDelay(true);
    const up = connect({ host: MARIADB.host, port: MARIADB.port, noDelay: true });
    client.pipe(up).pipe(client);
    const close = () => {
      client.destroy();
      up.destroy();
    };
    client.on('error', close).on('close', close);
    up.on('error', close).on('close', close);
  }).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
}

/**
 * With `pipeline`, the floor of a proxy that pipelines (as Tributary's relay does,
 * src/sources/mysql/pipeline.ts): each client's COM_QUERY text leaves for one shared MariaDB
 * connection, the statements that arrive in one turn of the event loop in one write, and each
 * answer's bytes go back to its client untouched (sequence ids restart per command on both
 * ends). No parsing beyond finding where each answer ends; nothing in JS it can do without.
 */
async function pipelineFloor(): Promise<(sql: string, client: { stream: Socket }) => void> {
  const up = mysql.createConnection({ ...MARIADB, database });
  await new Promise<void>((resolve, reject) => up.connect((e) => (e ? reject(e) : resolve())));
  const sock = (up as unknown as { stream: Socket }).stream;
  sock.removeAllListeners('data');
  const waiting: { stream: Socket }[] = [];
  let pending: Buffer[] = [];
  let scheduled = false;
  let buf: Buffer = Buffer.alloc(0);
  // Where the answer at the head of `waiting` stands: 0 its first packet, 1 column definitions, 2 rows.
  let state = 0;
  let answerStart = 0;
  // Column definitions lose MariaDB's extended-metadata field (this upstream connection
  // negotiated it; a client of this floor did not): the only bytes it rewrites.
  const plainDef = (b: Buffer, at: number, len: number): Buffer => {
    let p = at + 4;
    for (let i = 0; i < 6; i++) p += 1 + b[p];
    const ext = 1 + b[p];
    const out = Buffer.allocUnsafe(4 + len - ext);
    out.writeUIntLE(len - ext, 0, 3);
    out[3] = b[at + 3];
    b.copy(out, 4, at + 4, p);
    b.copy(out, 4 + p - (at + 4), p + ext, at + 4 + len);
    return out;
  };
  let parts: Buffer[] = [];
  sock.on('data', (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    let at = 0;
    answerStart = 0;
    while (buf.length - at >= 4) {
      const len = buf[at] | (buf[at + 1] << 8) | (buf[at + 2] << 16);
      if (buf.length - at < 4 + len) break;
      const first = buf[at + 4];
      let ended = false;
      if (state === 0) {
        if (first === 0x00 || first === 0xff) ended = true;
        else state = 1;
      } else if (state === 1) {
        if (first === 0xfe && len < 9) state = 2;
        else {
          parts.push(buf.subarray(answerStart, at), plainDef(buf, at, len));
          answerStart = at + 4 + len;
        }
      } else if (first === 0xfe && len < 9) ended = true;
      else if (first === 0xff) ended = true;
      at += 4 + len;
      if (ended) {
        parts.push(buf.subarray(answerStart, at));
        waiting.shift()!.stream.write(Buffer.concat(parts));
        parts = [];
        answerStart = at;
        state = 0;
      }
    }
    // An answer cut by the chunk's end: what it has so far waits in `parts`.
    if (at > answerStart) parts.push(buf.subarray(answerStart, at));
    buf = buf.subarray(at);
  });
  const flush = () => {
    scheduled = false;
    sock.write(pending.length === 1 ? pending[0] : Buffer.concat(pending));
    pending = [];
  };
  return (sql, client) => {
    const text = Buffer.from(sql, 'utf8');
    const p = Buffer.allocUnsafe(5 + text.length);
    p.writeUIntLE(text.length + 1, 0, 3);
    p[3] = 0;
    p[4] = 0x03;
    text.copy(p, 5);
    pending.push(p);
    waiting.push(client);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}
const piped = mode === 'pipeline' ? await pipelineFloor() : null;

const pool = mysql.createPool({
  ...MARIADB,
  database,
  connectionLimit: 16,
  rowsAsArray: true,
  dateStrings: true,
  supportBigNumbers: true,
  bigNumberStrings: true,
});

// mysql2's own server; its typings do not cover the server side of a connection.
let id = 1;
const server = (mysql as any).createServer((conn: any) => {
  // One write per result, sent at once (as Tributary's listener does): without these the
  // separate packet writes meet Nagle's algorithm and delayed ACKs (~40 ms a call).
  conn.stream.setNoDelay(true);
  conn.serverHandshake({
    protocolVersion: 10,
    serverVersion: '8.0.40-floor',
    connectionId: id++,
    statusFlags: 2,
    characterSet: 45,
    capabilityFlags: 0xf7ff,
    // Each command's packets are numbered from 0: after the handshake's OK the next one
    // expected is a command's first (else mysql2 warns once a connection).
    authCallback: (_: unknown, done: (err: null) => void) => {
      done(null);
      conn.sequenceId = 0;
    },
  });
  conn.on('query', (sql: string) => {
    if (piped) {
      piped(sql, conn);
      conn.sequenceId = 0;
      return;
    }
    pool.query(sql, (err: mysql.QueryError | null, rows: unknown, fields?: mysql.FieldPacket[]) => {
      // mysql2's server side does not restart sequence ids per command: a reply numbered from
      // 1, and the next command expected at 0, or both ends print a warning per packet.
      conn.sequenceId = 1;
      if (err) {
        conn.writeError({ code: err.errno ?? 1105, message: err.message });
        conn.sequenceId = 0;
        return;
      }
      if (!fields) {
        conn.writeOk({ affectedRows: (rows as mysql.ResultSetHeader).affectedRows });
        conn.sequenceId = 0;
        return;
      }
      conn.stream.cork();
      conn.writeColumns(fields);
      for (const row of rows as unknown[][]) conn.writeTextRow(row);
      conn.writeEof();
      conn.stream.uncork();
      conn.sequenceId = 0;
    });
  });
  conn.on('ping', () => conn.writeOk());
  conn.on('init_db', () => conn.writeOk());
  conn.on('quit', () => conn.close?.());
  conn.on('error', () => {});
});
if (mode !== 'pipe') server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
