/**
 * A statement's bytes as the engine's text (SPEC section 9, Bytes). The statement is bytes in
 * the connection's character set: utf8mb4 text is taken as it is, latin1 (MySQL's cp1252) is
 * converted. A string literal that must keep its exact bytes becomes a hex literal `X'..'`,
 * which every dialect writes as bytes (X'..', bytea, BLOB): one with the `_binary` introducer
 * (PyMySQL's binary_prefix, Connector/J's setBytes, `mariadb --binary-mode`), and one whose
 * bytes are not text in the connection's character set (a client that escapes bytes into a
 * plain string, as PyMySQL and mysqlclient do by default). Everything else is text, so the
 * rest of the engine never sees a replacement character. One pass over the bytes.
 */
import { isUtf8 } from 'node:buffer';
import { SqlError } from '../core/errors.js';
import { type Charset, charsetNamed, UTF8 } from './charsets.js';

const Q1 = 0x27; // '
const Q2 = 0x22; // "
const BACKTICK = 0x60;
const BACKSLASH = 0x5c;

function isIdentByte(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f ||
    c === 0x24 ||
    c >= 0x80
  );
}

function isSpaceByte(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/** MySQL's backslash escapes in a string literal; `\%` and `\_` keep their backslash. */
const ESCAPES: Record<number, number> = {
  48: 0x00, // \0
  98: 0x08, // \b
  110: 0x0a, // \n
  114: 0x0d, // \r
  116: 0x09, // \t
  90: 0x1a, // \Z
};

/** The end (after the closing quote) of the string literal opening at `i`, or -1 when it is not closed. */
function literalEnd(b: Uint8Array, i: number): number {
  const q = b[i];
  let j = i + 1;
  for (;;) {
    // Jump to the next quote or backslash (native search: a 16 MB value is one literal).
    const nq = b.indexOf(q, j);
    if (nq < 0) return -1;
    // A backslash before that quote escapes what follows it (searched up to the quote only).
    const bs = b.subarray(j, nq).indexOf(BACKSLASH);
    if (bs >= 0) {
      j += bs + 2;
      continue;
    }
    if (b[nq + 1] === q) {
      j = nq + 2;
      continue;
    }
    return nq + 1;
  }
}

/** The value bytes of the string literal `b[start..end)` (quotes included), its escapes undone. */
export function literalBytes(b: Uint8Array, start: number, end: number): Buffer {
  const q = b[start];
  const body = Buffer.from(b.buffer, b.byteOffset + start + 1, end - start - 2);
  // Most values: nothing escaped, the bytes as they are.
  if (body.indexOf(BACKSLASH) < 0 && body.indexOf(q) < 0) return body;
  const out = Buffer.allocUnsafe(body.length);
  let o = 0;
  for (let j = 0; j < body.length; j++) {
    const c = body[j];
    if (c === BACKSLASH && j + 1 < body.length) {
      const e = body[++j];
      if (e === 0x25 || e === 0x5f) out[o++] = BACKSLASH;
      out[o++] = ESCAPES[e] ?? e;
    } else {
      out[o++] = c;
      if (c === q) j++;
    }
  }
  return out.subarray(0, o);
}

function isAscii(b: Uint8Array, start: number, end: number): boolean {
  for (let j = start; j < end; j++) if (b[j] >= 0x80) return false;
  return true;
}

function validUtf8(b: Uint8Array, start: number, end: number): boolean {
  return isAscii(b, start, end) || isUtf8(b.subarray(start, end));
}

/** The introducer (`_binary`, `_latin1`, `_utf8mb4`...) right before the quote at `q`: its start and set. */
function introducer(b: Uint8Array, q: number): { start: number; charset: Charset | 'binary' } | null {
  let e = q;
  while (e > 0 && isSpaceByte(b[e - 1])) e--;
  let s = e;
  while (s > 0 && isIdentByte(b[s - 1])) s--;
  if (e - s < 2 || b[s] !== 0x5f) return null;
  const name = Buffer.from(b.subarray(s + 1, e))
    .toString('latin1')
    .toLowerCase();
  if (name === 'binary') return { start: s, charset: 'binary' };
  const charset = charsetNamed(name);
  return charset ? { start: s, charset } : null;
}

/** Where the first byte sequence that is not UTF-8 starts in `b[start..end)` (a sequence is at most 4 bytes). */
function firstInvalid(b: Uint8Array, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const c = b[i];
    const len =
      c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (len === 0 || i + len > end || (len > 1 && !validUtf8(b, i, i + len))) return i;
    i += len;
  }
  return end;
}

/** Text of a range outside literals: it must be text in the connection's character set (MySQL's 1300). */
function plainText(b: Uint8Array, start: number, end: number, charset: Charset): string {
  if (start >= end) return '';
  const part = b.subarray(start, end);
  if (charset !== UTF8) return charset.decoder.decode(part);
  if (!validUtf8(b, start, end)) {
    const k = firstInvalid(b, start, end);
    const hex = Buffer.from(b.subarray(k, Math.min(k + 8, end)))
      .toString('hex')
      .toUpperCase();
    throw new SqlError(1300, `Invalid utf8mb4 character string: '${hex}'`);
  }
  return Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString('utf8');
}

const hexLiteral = (v: Uint8Array) =>
  `X'${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}'`;

/**
 * The engine's text of a statement received as `bytes` on a connection whose character set
 * is `charset`. Comments, quoted names and text literals keep their place; a binary literal
 * becomes `X'..'` (its introducer dropped). Invalid UTF-8 outside a string literal is error
 * 1300, as MySQL answers.
 */
export function decodeStatement(bytes: Uint8Array, charset: Charset = UTF8): string {
  // A plain view: a Buffer's subarray goes through its species constructor, slower per literal.
  const b = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = b.length;
  // The common statement: UTF-8 with no introducer to act on.
  if (charset === UTF8 && validUtf8(b, 0, n)) {
    const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
    if (!INTRODUCED.test(text)) return text;
  }
  const out: string[] = [];
  let last = 0;
  let i = 0;
  while (i < n) {
    const c = b[i];
    if (c === Q1 || c === Q2) {
      const end = literalEnd(b, i);
      if (end < 0) break;
      const intro = introducer(b, i);
      const own = intro && intro.charset !== 'binary' ? intro.charset : charset;
      const from = intro ? intro.start : i;
      if (intro?.charset === 'binary' || (own === UTF8 && !validUtf8(b, i + 1, end - 1))) {
        out.push(plainText(b, last, from, charset), hexLiteral(literalBytes(b, i, end)));
        last = end;
      } else if (own !== charset) {
        // The literal's own character set decides its text; the introducer goes (it is Unicode now).
        out.push(plainText(b, last, from, charset), own.decoder.decode(b.subarray(i, end)));
        last = end;
      }
      i = end;
    } else if (c === BACKTICK) {
      const e = b.indexOf(BACKTICK, i + 1);
      i = e < 0 ? n : e + 1;
    } else if (c === 0x23 || (c === 0x2d && b[i + 1] === 0x2d && (i + 2 >= n || isSpaceByte(b[i + 2])))) {
      const e = b.indexOf(0x0a, i);
      i = e < 0 ? n : e + 1;
    } else if (
      c === 0x2f &&
      b[i + 1] === 0x2a &&
      b[i + 2] !== 0x21 &&
      !(b[i + 2] === 0x4d && b[i + 3] === 0x21)
    ) {
      // A comment (an executable one, `/*!` or `/*M!`, is read as statement text).
      const e = indexOfEnd(b, i + 2);
      i = e < 0 ? n : e + 2;
    } else i++;
  }
  out.push(plainText(b, last, n, charset));
  return out.join('');
}

/** An introducer that changes what a literal's bytes mean here (`_utf8mb4` on a UTF-8 connection does not). */
const INTRODUCED = /_(binary|latin|cp|koi8|greek|hebrew|macroman)\w*\s*['"]/i;

function indexOfEnd(b: Uint8Array, from: number): number {
  for (let j = from; j + 1 < b.length; j++) if (b[j] === 0x2a && b[j + 1] === 0x2f) return j;
  return -1;
}
