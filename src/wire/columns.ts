/**
 * Result columns and rows on the wire: column definitions (type, length, decimals, flags as a
 * MySQL 8 server would send them), and rows in the text protocol (COM_QUERY) and the binary
 * protocol (COM_STMT_EXECUTE). Values arrive encoded as for JSON results (sql/result.ts):
 * numbers, strings, parsed JSON, base64 for binary; this turns them back into MySQL bytes.
 */
import type { ColumnOrigin, FieldInfo, MysqlType } from '../core/types.js';
import type { Charset } from './charsets.js';
import { lenencAt, lenencSize, type PacketOut } from './packets.js';

/** Column type codes (MYSQL_TYPE_*). */
export const T = {
  TINY: 0x01,
  SHORT: 0x02,
  LONG: 0x03,
  FLOAT: 0x04,
  DOUBLE: 0x05,
  NULL: 0x06,
  TIMESTAMP: 0x07,
  LONGLONG: 0x08,
  INT24: 0x09,
  DATE: 0x0a,
  TIME: 0x0b,
  DATETIME: 0x0c,
  YEAR: 0x0d,
  VARCHAR: 0x0f,
  BIT: 0x10,
  JSON: 0xf5,
  NEWDECIMAL: 0xf6,
  BLOB: 0xfc,
  VAR_STRING: 0xfd,
  STRING: 0xfe,
} as const;

const F = { NOT_NULL: 1, BLOB: 16, UNSIGNED: 32, BINARY: 128, ENUM: 256, SET: 2048, NUM: 32768 } as const;

/**
 * Flags a source's column definition says about the column itself, kept for a plain column
 * of a table: NOT_NULL, PRI_KEY, UNIQUE_KEY, MULTIPLE_KEY, ZEROFILL, AUTO_INCREMENT,
 * TIMESTAMP, NO_DEFAULT_VALUE, ON_UPDATE_NOW, PART_KEY. The type's own flags (BLOB,
 * UNSIGNED, BINARY, ENUM, SET, NUM) follow the engine's type, as for every column.
 */
const ORIGIN_FLAGS = 1 | 2 | 4 | 8 | 64 | 512 | 1024 | 4096 | 8192 | 16384;

/** utf8mb4_general_ci: known to every client (255, MySQL 8's default, is not to old ones). */
export const UTF8MB4 = 45;
export const BINARY_CHARSET = 63;
const NOT_FIXED_DEC = 31;

export interface WireColumn {
  name: string;
  type: MysqlType;
  code: number;
  charset: number;
  length: number;
  flags: number;
  decimals: number;
  /** Set for a plain column of a source table: its schema, table and own names. */
  origin?: ColumnOrigin;
}

interface Shape {
  code: number;
  length: number;
  flags: number;
  binary?: boolean;
}

const SHAPES: Record<MysqlType, Shape> = {
  TINYINT: { code: T.TINY, length: 4, flags: F.NUM | F.BINARY },
  SMALLINT: { code: T.SHORT, length: 6, flags: F.NUM | F.BINARY },
  INT: { code: T.LONG, length: 11, flags: F.NUM | F.BINARY },
  BIGINT: { code: T.LONGLONG, length: 20, flags: F.NUM | F.BINARY },
  DECIMAL: { code: T.NEWDECIMAL, length: 67, flags: F.NUM | F.BINARY },
  FLOAT: { code: T.FLOAT, length: 12, flags: F.NUM | F.BINARY },
  DOUBLE: { code: T.DOUBLE, length: 22, flags: F.NUM | F.BINARY },
  BOOLEAN: { code: T.TINY, length: 1, flags: F.NUM | F.BINARY },
  CHAR: { code: T.STRING, length: 1020, flags: 0 },
  VARCHAR: { code: T.VAR_STRING, length: 1020, flags: 0 },
  TEXT: { code: T.BLOB, length: 262140, flags: F.BLOB },
  DATE: { code: T.DATE, length: 10, flags: F.BINARY },
  TIME: { code: T.TIME, length: 10, flags: F.BINARY },
  DATETIME: { code: T.DATETIME, length: 19, flags: F.BINARY },
  TIMESTAMP: { code: T.TIMESTAMP, length: 19, flags: F.BINARY },
  YEAR: { code: T.YEAR, length: 4, flags: F.NUM | F.BINARY },
  JSON: { code: T.JSON, length: 4294967295, flags: F.BLOB | F.BINARY, binary: true },
  BLOB: { code: T.BLOB, length: 65535, flags: F.BLOB | F.BINARY, binary: true },
  BINARY: { code: T.STRING, length: 255, flags: F.BINARY, binary: true },
  ENUM: { code: T.STRING, length: 1020, flags: F.ENUM },
  SET: { code: T.STRING, length: 1020, flags: F.SET },
};

/** Digits after the point in a decimal or time text ('12.50' → 2). */
function fraction(v: unknown): number {
  if (typeof v !== 'string') return 0;
  const dot = v.lastIndexOf('.');
  return dot < 0 ? 0 : v.length - dot - 1;
}

/**
 * Column definitions for a result. DECIMAL scale and fractional seconds are not in the
 * engine's field types, so they are read from the first rows (`sample`): a DECIMAL(10,2)
 * column then shows two decimals in every client.
 */
export function wireColumns(fields: FieldInfo[], sample: unknown[][]): WireColumn[] {
  return fields.map((f, i) => {
    const s = SHAPES[f.type] ?? SHAPES.VARCHAR;
    const decimals = columnDecimals(f, i, sample);
    let length = s.length;
    if (decimals && decimals !== NOT_FIXED_DEC && f.type !== 'DECIMAL') length += decimals + 1;
    const flags = f.unsigned ? s.flags | F.UNSIGNED : s.flags;
    const col: WireColumn = {
      name: f.name,
      type: f.type,
      code: s.code,
      charset: s.binary || s.flags & F.NUM || s.flags & F.BINARY ? BINARY_CHARSET : UTF8MB4,
      length,
      flags,
      decimals,
    };
    if (f.origin) {
      col.origin = f.origin;
      col.flags = flags | (f.origin.flags & ORIGIN_FLAGS);
    }
    return col;
  });
}

/** Column `i`'s decimals: FLOAT and DOUBLE's "not fixed", DECIMAL scale and fractional seconds from `sample`. */
export function columnDecimals(f: FieldInfo, i: number, sample: unknown[][]): number {
  if (f.type === 'FLOAT' || f.type === 'DOUBLE') return NOT_FIXED_DEC;
  if (f.type !== 'DECIMAL' && f.type !== 'TIME' && f.type !== 'DATETIME' && f.type !== 'TIMESTAMP') return 0;
  let decimals = 0;
  for (const row of sample) decimals = Math.max(decimals, fraction(row[i]));
  return clampDecimals(f, decimals);
}

/** A sampled column's decimals from the most digits after the point among its values (DECIMAL scale or fractional seconds). */
export function clampDecimals(f: FieldInfo, digits: number): number {
  return Math.min(digits, f.type === 'DECIMAL' ? 30 : 6);
}

/**
 * A column definition. Its names are utf8mb4, or written in `charset` (the connection's
 * character_set_results when that is another set, columnsIn gave the column its collation).
 */
export function writeColumnDef(
  out: PacketOut,
  c: WireColumn,
  schema = '',
  table = '',
  charset: Charset | null = null,
): void {
  const o = c.origin;
  out.begin();
  if (charset) {
    for (const name of ['def', o ? o.schema : schema, o ? o.table : table, o ? o.orgTable : table, c.name])
      out.lenencBytes(charset.encode(name));
    out.lenencBytes(charset.encode(o ? o.orgName : ''));
  } else
    out
      .lenencText('def')
      .lenencText(o ? o.schema : schema)
      .lenencText(o ? o.table : table)
      .lenencText(o ? o.orgTable : table)
      .lenencText(c.name)
      .lenencText(o ? o.orgName : '');
  out.int1(0x0c).int2(c.charset).int4(c.length).int1(c.code).int2(c.flags).int1(c.decimals).int2(0).end();
}

/**
 * A result's columns in the connection's character_set_results when that is not utf8mb4:
 * each text column carries that set's collation (binary, numeric and temporal ones keep 63).
 */
export function columnsIn(cols: WireColumn[], charset: Charset): WireColumn[] {
  return cols.map((c) => (c.charset === UTF8MB4 ? { ...c, charset: charset.collation } : c));
}

/**
 * A row's text cells as bytes in `charset` for columns from columnsIn (a character the set
 * cannot hold is '?'); the row then goes to writeTextRow or writeBinaryRow as any other.
 */
export function rowIn(cols: WireColumn[], row: unknown[], charset: Charset): unknown[] {
  const out = row.slice();
  for (let i = 0; i < cols.length; i++) {
    const v = row[i];
    if (typeof v === 'string' && cols[i].charset !== BINARY_CHARSET) out[i] = charset.encode(v);
  }
  return out;
}

/** A value as the bytes of the text protocol, or null. */
function textValue(v: unknown, type: MysqlType): string | Buffer | null {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'string':
      return type === 'BLOB' || type === 'BINARY' ? Buffer.from(v, 'base64') : v;
    case 'number':
    case 'bigint':
      return String(v);
    case 'boolean':
      return v ? '1' : '0';
    default:
      if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      // A JSON column's value, parsed by the result encoding.
      return JSON.stringify(v);
  }
}

export function writeTextRow(out: PacketOut, cols: WireColumn[], row: unknown[]): void {
  out.begin();
  for (let i = 0; i < cols.length; i++) {
    const v = row[i];
    if (typeof v === 'string' && !cols[i].flags) {
      out.lenencText(v);
      continue;
    }
    const t = textValue(v, cols[i].type);
    if (t === null) out.int1(0xfb);
    else if (typeof t === 'string') out.lenencText(t);
    else out.lenencBytes(t);
  }
  out.end();
}

function int(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (typeof v === 'boolean') return v ? 1n : 0n;
  try {
    return BigInt(String(v));
  } catch {
    return 0n;
  }
}

const DATE_RE = /^(-?\d{1,4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?)?/;
const TIME_RE = /^(-)?(\d+):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?$/;

function micros(frac: string | undefined): number {
  return frac ? Number(frac.padEnd(6, '0')) : 0;
}

function writeDate(out: PacketOut, v: unknown, withTime: boolean): void {
  const m = DATE_RE.exec(String(v));
  if (!m) {
    out.int1(0);
    return;
  }
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1, 7).map((x) => Number(x ?? 0));
  const us = micros(m[7]);
  if (!withTime || (h === 0 && mi === 0 && s === 0 && us === 0)) {
    if (y === 0 && mo === 0 && d === 0) out.int1(0);
    else out.int1(4).int2(y).int1(mo).int1(d);
    return;
  }
  out
    .int1(us ? 11 : 7)
    .int2(y)
    .int1(mo)
    .int1(d)
    .int1(h)
    .int1(mi)
    .int1(s);
  if (us) out.int4(us);
}

function writeTime(out: PacketOut, v: unknown): void {
  const m = TIME_RE.exec(String(v));
  if (!m) {
    out.int1(0);
    return;
  }
  const hours = Number(m[2]);
  const us = micros(m[5]);
  const mi = Number(m[3]);
  const s = Number(m[4]);
  if (hours === 0 && mi === 0 && s === 0 && us === 0) {
    out.int1(0);
    return;
  }
  out
    .int1(us ? 12 : 8)
    .int1(m[1] ? 1 : 0)
    .int4(Math.floor(hours / 24))
    .int1(hours % 24)
    .int1(mi)
    .int1(s);
  if (us) out.int4(us);
}

/** A cell's ASCII integer text as a number (TINYINT to INT: within 2^53). */
function asciiInt(b: Buffer, start: number, end: number): number {
  let i = start;
  const neg = b[i] === 0x2d;
  if (neg || b[i] === 0x2b) i++;
  let n = 0;
  for (; i < end; i++) n = n * 10 + (b[i] - 0x30);
  return neg ? -n : n;
}

/**
 * A text-protocol row as a MySQL server sent it (its cells are `buf[start, end)`) in the
 * binary protocol: the result relay's answer to COM_STMT_EXECUTE (wire/relay-sink.ts). The
 * same bytes as writeBinaryRow of the values the normal path decodes from that row: integers,
 * dates and times are converted; any other cell (DECIMAL, strings, bytes) is a length-encoded
 * string in both protocols, so its bytes are copied as they are.
 */
export function writeBinaryRowFromText(
  out: PacketOut,
  cols: WireColumn[],
  buf: Buffer,
  start: number,
  end: number,
): void {
  out.begin().int1(0);
  const bitmap = out.reserve((cols.length + 9) >> 3);
  let pos = start;
  for (let i = 0; i < cols.length && pos < end; i++) {
    const b = buf[pos];
    // 0xfb: a NULL cell; else a length-encoded length, then the text.
    if (b === 0xfb) {
      out.setBit(bitmap, i + 2);
      pos++;
      continue;
    }
    const len = lenencAt(buf, pos);
    const at = pos + lenencSize(b);
    const cellEnd = at + len;
    switch (cols[i].code) {
      case T.TINY:
        out.int1(asciiInt(buf, at, cellEnd));
        break;
      case T.SHORT:
      case T.YEAR:
        out.int2(asciiInt(buf, at, cellEnd));
        break;
      case T.LONG:
        out.int4(asciiInt(buf, at, cellEnd));
        break;
      case T.LONGLONG:
        out.int8(len < 16 ? BigInt(asciiInt(buf, at, cellEnd)) : BigInt(buf.toString('latin1', at, cellEnd)));
        break;
      case T.FLOAT:
        out.float(Number(buf.toString('latin1', at, cellEnd)));
        break;
      case T.DOUBLE:
        out.double(Number(buf.toString('latin1', at, cellEnd)));
        break;
      case T.DATE:
        writeDate(out, buf.toString('latin1', at, cellEnd), false);
        break;
      case T.DATETIME:
      case T.TIMESTAMP:
        writeDate(out, buf.toString('latin1', at, cellEnd), true);
        break;
      case T.TIME:
        writeTime(out, buf.toString('latin1', at, cellEnd));
        break;
      default:
        out.range(buf, pos, cellEnd);
    }
    pos = cellEnd;
  }
  out.end();
}

/** One row in the binary protocol: a NULL bitmap (offset 2) then each value per its column type. */
export function writeBinaryRow(out: PacketOut, cols: WireColumn[], row: unknown[]): void {
  out.begin().int1(0);
  const bitmap = out.reserve((cols.length + 9) >> 3);
  for (let i = 0; i < cols.length; i++) {
    const v = row[i];
    if (v === null || v === undefined) {
      out.setBit(bitmap, i + 2);
      continue;
    }
    const c = cols[i];
    switch (c.code) {
      case T.TINY:
        out.int1(Number(int(v)));
        break;
      case T.SHORT:
      case T.YEAR:
        out.int2(Number(int(v)));
        break;
      case T.LONG:
        out.int4(Number(int(v)));
        break;
      case T.LONGLONG:
        out.int8(int(v));
        break;
      case T.FLOAT:
        out.float(Number(v));
        break;
      case T.DOUBLE:
        out.double(Number(v));
        break;
      case T.DATE:
        writeDate(out, v, false);
        break;
      case T.DATETIME:
      case T.TIMESTAMP:
        writeDate(out, v, true);
        break;
      case T.TIME:
        writeTime(out, v);
        break;
      default: {
        const t = textValue(v, c.type);
        if (typeof t === 'string') out.lenencText(t);
        else out.lenencBytes(t ?? Buffer.alloc(0));
      }
    }
  }
  out.end();
}
