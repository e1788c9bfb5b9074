/**
 * Prepared statements: where the `?` placeholders are in a statement's text, the parameter
 * values of COM_STMT_EXECUTE (binary protocol), and the statement with each value quoted in
 * as a literal. The engine takes text, and its templates already share one parse across
 * statements that differ only in literals, so a prepared point lookup costs no more parsing.
 */
import { stringLiteral } from '../core/sql-text.js';
import { type Charset, UTF8 } from './charsets.js';
import { T } from './columns.js';
import { MalformedPacket, type PacketIn } from './packets.js';

/** Offsets of the `?` placeholders, outside strings, quoted names and comments. */
export function placeholders(sql: string): number[] {
  const at: number[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`') {
      i++;
      while (i < n && sql[i] !== c) i += sql[i] === '\\' && c !== '`' ? 2 : 1;
      i++;
    } else if (c === '-' && sql[i + 1] === '-' && (i + 2 >= n || /\s/.test(sql[i + 2]))) {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '#') {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else {
      if (c === '?') at.push(i);
      i++;
    }
  }
  return at;
}

/** A parameter value: a literal already written as SQL text. */
export type Param = string;

const NULL = 'NULL';

/**
 * The values of one COM_STMT_EXECUTE (after stmt id, flags and iteration count). `types`
 * are the previous execution's, kept when the client does not send them again;
 * `longData` holds what COM_STMT_SEND_LONG_DATA sent per parameter.
 */
export function readParams(
  p: PacketIn,
  count: number,
  types: number[] | null,
  longData: Map<number, Buffer[]>,
  charset: Charset = UTF8,
): { values: Param[]; types: number[] } {
  if (count === 0) return { values: [], types: [] };
  const nullMap = p.bytes((count + 7) >> 3);
  const bound = p.left > 0 ? p.int1() : 0;
  let t = types;
  if (bound === 1) {
    t = [];
    for (let i = 0; i < count; i++) t.push(p.int2());
  }
  if (!t) throw new MalformedPacket();
  const values: Param[] = [];
  for (let i = 0; i < count; i++) {
    if (nullMap[i >> 3] & (1 << (i & 7))) {
      values.push(NULL);
      continue;
    }
    const long = longData.get(i);
    if (long) {
      values.push(bytesLiteral(Buffer.concat(long), t[i] & 0xff, charset));
      continue;
    }
    values.push(readValue(p, t[i], charset));
  }
  return { values, types: t };
}

function readValue(p: PacketIn, typeWord: number, charset: Charset): Param {
  const type = typeWord & 0xff;
  const unsigned = (typeWord & 0x8000) !== 0;
  switch (type) {
    case T.NULL:
      return NULL;
    case T.TINY: {
      const v = p.int1();
      return String(unsigned ? v : (v << 24) >> 24);
    }
    case T.SHORT:
    case T.YEAR: {
      const v = p.int2();
      return String(unsigned ? v : (v << 16) >> 16);
    }
    case T.LONG:
    case T.INT24: {
      const v = p.int4();
      return String(unsigned ? v : v | 0);
    }
    case T.LONGLONG: {
      const v = p.int8();
      return String(unsigned ? v : BigInt.asIntN(64, v));
    }
    case T.FLOAT: {
      const v = p.bytes(4).readFloatLE(0);
      return finite(v);
    }
    case T.DOUBLE: {
      const v = p.bytes(8).readDoubleLE(0);
      return finite(v);
    }
    case T.DATE:
    case T.DATETIME:
    case T.TIMESTAMP:
      return readDate(p, type === T.DATE);
    case T.TIME:
      return readTime(p);
    default:
      return bytesLiteral(p.lenencBytes(), type, charset);
  }
}

function finite(v: number): string {
  return Number.isFinite(v) ? String(v) : NULL;
}

/**
 * Text parameters as string literals (in the connection's character set); bytes that are not
 * its text as hex literals (any bytes survive).
 */
function bytesLiteral(b: Buffer, type: number, charset: Charset): Param {
  if (type === T.NEWDECIMAL && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(b.toString('latin1')))
    return b.toString('latin1');
  if (charset !== UTF8 && !BLOBS.has(type)) return stringLiteral('mysql', charset.decoder.decode(b));
  const text = b.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(b)) return stringLiteral('mysql', text);
  return `X'${b.toString('hex')}'`;
}

/** Parameter types that are bytes whatever the connection's character set (TINY, MEDIUM, LONG BLOB, BLOB). */
const BLOBS = new Set<number>([0xf9, 0xfa, 0xfb, T.BLOB]);

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function readDate(p: PacketIn, dateOnly: boolean): Param {
  const len = p.int1();
  let y = 0;
  let mo = 0;
  let d = 0;
  let h = 0;
  let mi = 0;
  let s = 0;
  let us = 0;
  if (len >= 4) {
    y = p.int2();
    mo = p.int1();
    d = p.int1();
  }
  if (len >= 7) {
    h = p.int1();
    mi = p.int1();
    s = p.int1();
  }
  if (len >= 11) us = p.int4();
  const date = `${pad(y, 4)}-${pad(mo)}-${pad(d)}`;
  if (dateOnly || len <= 4) return `'${date}'`;
  return `'${date} ${pad(h)}:${pad(mi)}:${pad(s)}${us ? `.${pad(us, 6)}` : ''}'`;
}

function readTime(p: PacketIn): Param {
  const len = p.int1();
  if (len === 0) return "'00:00:00'";
  const neg = p.int1();
  const days = p.int4();
  const h = p.int1() + days * 24;
  const mi = p.int1();
  const s = p.int1();
  const us = len >= 12 ? p.int4() : 0;
  return `'${neg ? '-' : ''}${pad(h)}:${pad(mi)}:${pad(s)}${us ? `.${pad(us, 6)}` : ''}'`;
}

/** The statement with each placeholder replaced by its value's literal. */
export function bindParams(sql: string, at: number[], values: Param[]): string {
  if (at.length === 0) return sql;
  let out = '';
  let last = 0;
  at.forEach((pos, i) => {
    out += sql.slice(last, pos) + values[i];
    last = pos + 1;
  });
  return out + sql.slice(last);
}
