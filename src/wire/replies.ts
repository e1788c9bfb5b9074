/** The server's small packets: OK, EOF, ERR (with SQLSTATE), and the initial handshake. */
import type { PacketOut } from './packets.js';

export const CAP = {
  LONG_PASSWORD: 1,
  FOUND_ROWS: 2,
  LONG_FLAG: 4,
  CONNECT_WITH_DB: 8,
  NO_SCHEMA: 16,
  ODBC: 64,
  IGNORE_SPACE: 256,
  PROTOCOL_41: 512,
  INTERACTIVE: 1024,
  SSL: 2048,
  IGNORE_SIGPIPE: 4096,
  TRANSACTIONS: 8192,
  SECURE_CONNECTION: 32768,
  MULTI_RESULTS: 1 << 17,
  PS_MULTI_RESULTS: 1 << 18,
  PLUGIN_AUTH: 1 << 19,
  CONNECT_ATTRS: 1 << 20,
  PLUGIN_AUTH_LENENC: 1 << 21,
} as const;

export const SERVER_CAPS =
  CAP.LONG_PASSWORD |
  CAP.FOUND_ROWS |
  CAP.LONG_FLAG |
  CAP.CONNECT_WITH_DB |
  CAP.NO_SCHEMA |
  CAP.ODBC |
  CAP.IGNORE_SPACE |
  CAP.PROTOCOL_41 |
  CAP.INTERACTIVE |
  CAP.IGNORE_SIGPIPE |
  CAP.TRANSACTIONS |
  CAP.SECURE_CONNECTION |
  CAP.MULTI_RESULTS |
  CAP.PS_MULTI_RESULTS |
  CAP.PLUGIN_AUTH |
  CAP.CONNECT_ATTRS |
  CAP.PLUGIN_AUTH_LENENC;

export const STATUS_IN_TRANS = 0x0001;
export const STATUS_AUTOCOMMIT = 0x0002;

/** SQLSTATE for the MySQL codes the engine and this face answer with (MySQL's own table). */
const SQLSTATE: Record<number, string> = {
  1007: 'HY000',
  1008: 'HY000',
  1040: '08004',
  1044: '42000',
  1045: '28000',
  1047: '08S01',
  1048: '23000',
  1049: '42000',
  1050: '42S01',
  1051: '42S02',
  1052: '23000',
  1053: '08S01',
  1054: '42S22',
  1062: '23000',
  1064: '42000',
  1021: 'HY000',
  1022: '23000',
  1169: '23000',
  1205: 'HY000',
  1213: '40001',
  1216: '23000',
  1217: '23000',
  1365: '22012',
  1366: 'HY000',
  1451: '23000',
  1452: '23000',
  1557: '23000',
  1690: '22003',
  1859: '23000',
  3819: 'HY000',
  1136: '21S01',
  1142: '42000',
  1143: '42000',
  1146: '42S02',
  1149: '42000',
  1153: '08S01',
  1235: '42000',
  1243: 'HY000',
  1264: '22003',
  1292: '22007',
  1317: '70100',
  1406: '22001',
  3024: 'HY000',
};

export function sqlState(code: number): string {
  return SQLSTATE[code] ?? 'HY000';
}

export function writeOk(out: PacketOut, affected = 0, info = ''): void {
  out.begin().int1(0).lenenc(affected).lenenc(0).int2(out.status).int2(0);
  if (info) out.text(info);
  out.end();
}

export function writeEof(out: PacketOut): void {
  out.begin().int1(0xfe).int2(0).int2(out.status).end();
}

export function writeError(out: PacketOut, code: number, message: string): void {
  out
    .begin()
    .int1(0xff)
    .int2(code)
    .text(`#${sqlState(code)}`)
    .text(message.length > 4000 ? `${message.slice(0, 4000)}...` : message)
    .end();
}

export interface Greeting {
  serverVersion: string;
  connectionId: number;
  scramble: Buffer;
  plugin: string;
  tls: boolean;
}

export function writeGreeting(out: PacketOut, g: Greeting): void {
  const caps = SERVER_CAPS | (g.tls ? CAP.SSL : 0);
  out
    .begin()
    .int1(10)
    .nulText(g.serverVersion)
    .int4(g.connectionId)
    .bytes(g.scramble.subarray(0, 8))
    .int1(0)
    .int2(caps & 0xffff)
    .int1(45)
    .int2(STATUS_AUTOCOMMIT)
    .int2(caps >>> 16)
    .int1(21)
    .bytes(Buffer.alloc(10))
    .bytes(g.scramble.subarray(8))
    .int1(0)
    .nulText(g.plugin)
    .end();
}

export interface HandshakeResponse {
  caps: number;
  user: string;
  token: Buffer;
  db: string | null;
  plugin: string | null;
  /** The client's character set (a collation id). */
  collation: number;
}
