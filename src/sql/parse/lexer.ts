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

const IDENT_START = /[A-Za-z_$\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

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

export function tokenize(sql: string, opts: { json?: boolean } = {}): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '#' || (ch === '-' && sql[i + 1] === '-' && /\s|$/.test(sql[i + 2] ?? ''))) {
      while (i < sql.length && sql[i] !== '\n') i++;
      continue;
    }
    if (ch === '/' && sql[i + 1] === '*') {
      const e = sql.indexOf('*/', i + 2);
      i = e < 0 ? sql.length : e + 2;
      continue;
    }
    if (ch === '`') {
      const r = readQuoted(sql, i, '`');
      out.push({ kind: 'quoted', value: r.value, start: i, end: r.end });
      i = r.end;
      continue;
    }
    if (ch === "'" || ch === '"') {
      const r = readQuoted(sql, i, ch);
      out.push({ kind: 'string', value: r.value, start: i, end: r.end });
      i = r.end;
      continue;
    }
    if (opts.json && ch === '{') {
      const e = readJson(sql, i);
      out.push({ kind: 'json', value: sql.slice(i, e), start: i, end: e });
      i = e;
      continue;
    }
    if (/[0-9]/.test(ch)) {
      let j = i;
      while (j < sql.length && /[0-9.eE]/.test(sql[j])) j++;
      if (j < sql.length && IDENT_PART.test(sql[j])) {
        // identifiers may start with digits in MySQL (e.g. 1abc)
        while (j < sql.length && IDENT_PART.test(sql[j])) j++;
        out.push({ kind: 'ident', value: sql.slice(i, j), start: i, end: j });
      } else out.push({ kind: 'number', value: sql.slice(i, j), start: i, end: j });
      i = j;
      continue;
    }
    if (IDENT_START.test(ch)) {
      let j = i + 1;
      while (j < sql.length && IDENT_PART.test(sql[j])) j++;
      out.push({ kind: 'ident', value: sql.slice(i, j), start: i, end: j });
      i = j;
      continue;
    }
    out.push({ kind: 'punct', value: ch, start: i, end: i + 1 });
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

export function quoteIdent(name: string): string {
  return '`' + name.replace(/`/g, '``') + '`';
}
