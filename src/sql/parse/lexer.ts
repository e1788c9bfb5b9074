/**
 * A small MySQL lexer for what node-sql-parser cannot read: service statements
 * (CREATE DATABASE ... PARAMETERS = {json}, SHOW ..., DESCRIBE) and the pre-pass that
 * folds three-part names. It only needs to know where identifiers, strings, comments
 * and punctuation begin and end; real SQL goes to node-sql-parser.
 */
export type TokenKind = 'ident' | 'quoted' | 'string' | 'number' | 'punct' | 'json';

export interface Token {
  kind: TokenKind;
  /** Identifier/string value (unquoted, unescaped), or the punctuation/number text. */
  value: string;
  start: number;
  end: number;
}

// Character classes by code unit: the lexer runs on every statement (the shape cache key),
// and a regex test per character was most of its cost. Each mirrors a regex, noted beside it.

/** /\s/ */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return /\s/.test(String.fromCharCode(c));
}

/** /[0-9]/ */
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** /[A-Za-z_$\u0080-\uffff]/ */
function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c >= 0x80;
}

/** /[A-Za-z0-9_$\u0080-\uffff]/ */
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || isDigit(c);
}

/** /[0-9.eE]/ */
function isNumberPart(c: number): boolean {
  return isDigit(c) || c === 46 || c === 101 || c === 69;
}

export class LexError extends Error {}

function readQuoted(sql: string, i: number, q: string): { value: string; end: number } {
  let out = '';
  let j = i + 1;
  while (j < sql.length) {
    const ch = sql[j];
    if (ch === '\\' && q !== '`') {
      const n = sql[j + 1];
      const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', Z: '\x1a' };
      out += n === undefined ? '' : (map[n] ?? n);
      j += 2;
      continue;
    }
    if (ch === q) {
      if (sql[j + 1] === q) {
        out += q;
        j += 2;
        continue;
      }
      return { value: out, end: j + 1 };
    }
    out += ch;
    j++;
  }
  throw new LexError(`unterminated ${q === '`' ? 'identifier' : 'string'} starting at position ${i}`);
}

/** Reads a balanced `{...}` or `[...]` JSON text, respecting JSON strings. */
function readJson(sql: string, i: number): number {
  let depth = 0;
  let j = i;
  while (j < sql.length) {
    const ch = sql[j];
    if (ch === '"' || ch === "'") {
      j++;
      while (j < sql.length && sql[j] !== ch) j += sql[j] === '\\' ? 2 : 1;
    } else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  throw new LexError(`unterminated JSON object starting at position ${i}`);
}

export function tokenize(sql: string, opts?: { json?: boolean }): Token[] {
  const out: Token[] = [];
  const json = opts?.json === true;
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    // '#' or '--': node-sql-parser reads '--' as a comment whatever follows it (MySQL wants
    // a space after it), and the lexer must see the statement as the parser does.
    if (c === 35 || (c === 45 && sql.charCodeAt(i + 1) === 45)) {
      while (i < n && sql.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (c === 47 && sql.charCodeAt(i + 1) === 42) {
      const e = sql.indexOf('*/', i + 2);
      i = e < 0 ? n : e + 2;
      continue;
    }
    if (c === 96) {
      const r = readQuoted(sql, i, '`');
      out.push({ kind: 'quoted', value: r.value, start: i, end: r.end });
      i = r.end;
      continue;
    }
    if (c === 39 || c === 34) {
      const r = readQuoted(sql, i, sql[i]);
      out.push({ kind: 'string', value: r.value, start: i, end: r.end });
      i = r.end;
      continue;
    }
    if (json && c === 123) {
      const e = readJson(sql, i);
      out.push({ kind: 'json', value: sql.slice(i, e), start: i, end: e });
      i = e;
      continue;
    }
    if (isDigit(c)) {
      let j = i;
      while (j < n && isNumberPart(sql.charCodeAt(j))) j++;
      // An exponent's sign: `1e-5`, `2.5E+10` are one number, as MySQL reads them.
      const e = sql.charCodeAt(j - 1);
      const sign = sql.charCodeAt(j);
      if ((e === 101 || e === 69) && (sign === 43 || sign === 45) && isDigit(sql.charCodeAt(j + 1))) {
        j += 2;
        while (j < n && isDigit(sql.charCodeAt(j))) j++;
      }
      if (j < n && isIdentPart(sql.charCodeAt(j))) {
        // identifiers may start with digits in MySQL (e.g. 1abc)
        while (j < n && isIdentPart(sql.charCodeAt(j))) j++;
        out.push({ kind: 'ident', value: sql.slice(i, j), start: i, end: j });
      } else out.push({ kind: 'number', value: sql.slice(i, j), start: i, end: j });
      i = j;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < n && isIdentPart(sql.charCodeAt(j))) j++;
      out.push({ kind: 'ident', value: sql.slice(i, j), start: i, end: j });
      i = j;
      continue;
    }
    out.push({ kind: 'punct', value: sql[i], start: i, end: i + 1 });
    i++;
  }
  return out;
}

export function isName(t: Token | undefined): t is Token {
  return !!t && (t.kind === 'ident' || t.kind === 'quoted');
}

export function isKeyword(t: Token | undefined, ...words: string[]): boolean {
  return !!t && t.kind === 'ident' && words.includes(t.value.toUpperCase());
}

export function isPunct(t: Token | undefined, v: string): boolean {
  return !!t && t.kind === 'punct' && t.value === v;
}

/** Index of the ')' closing the '(' at `open`, or -1. */
export function closing(t: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < t.length; i++) {
    if (isPunct(t[i], '(')) depth++;
    else if (isPunct(t[i], ')') && --depth === 0) return i;
  }
  return -1;
}

/** Index of the '(' opening the ')' at `close`, or -1. */
export function opening(t: Token[], close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    if (isPunct(t[i], ')')) depth++;
    else if (isPunct(t[i], '(') && --depth === 0) return i;
  }
  return -1;
}
