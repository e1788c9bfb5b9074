/**
 * The thinnest MySQL proxy this machine can run (bench/wire.ts "floor"): a mysql2 server
 * that forwards each COM_QUERY's text to MariaDB through a mysql2 pool and writes the
 * column definitions and rows back as they came (array rows, no conversion, no parsing,
 * no planning). Run as its own process like Tributary's server, so the two compete with the
 * load generator for the same 2 cores in the same way. Usage: wire-floor.ts <port> <database>
 * [pipe]; prints `ready` once listening. With `pipe`, the floor of any proxy at all: each
 * client connection is a TCP pipe to its own MariaDB connection, bytes copied both ways.
 */
import { connect, createServer } from 'node:net';
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
  });
  conn.on('query', (sql: string) => {
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
