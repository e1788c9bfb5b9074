/**
 * A statement's literal slots, found in one pass over its tokens (templates.ts shares one
 * parse among statements that differ only in them):
 * - one literal: a plain integer (`n`), a short decimal (`d`), a string without a prefix
 *   (`s`, escapes allowed) or a hex literal `X'..'` (`x`: binary values, wire/statement-bytes.ts);
 * - a list of literals, one variadic slot whatever its length: an `IN (...)` list (`L`),
 *   or the rows of `VALUES (...), (...)` when every row has the same number of literals
 *   (`R`). Their elements may also be negative numbers, NULL, TRUE and FALSE.
 * So a 10,000-value IN list and a 3-value one share a template, and the parser never reads
 * the list: its nodes are made here (literalNode), exactly as parse + normalize make them
 * (a differential test holds the two together).
 */
import type { Expr } from '../ast/nodes.js';
import { isKeyword, isPunct, type Token } from './lexer.js';
import { parserNumberText, unescapeMysqlString } from './normalize.js';

/** Integers the parser reads exactly and writes back as the same JS number. */
export const PLAIN_INT = /^(0|[1-9]\d{0,14})$/;
/** Decimals the parser keeps as their own text (rewriteParserGaps casts longer ones). */
const PLAIN_DECIMAL = /^(0|[1-9]\d*)\.\d+$/;
const MAX_DECIMAL_DIGITS = 15;

export type LiteralKind = 'n' | 'd' | 's' | 'x';

/** One literal standing alone: its token (for `x`, one spanning `X'..'`, its value the digits). */
export interface LiteralSlot {
  kind: LiteralKind;
  token: Token;
}

/**
 * A list of literals: `L` an IN list (one element a row), `R` VALUES rows of `arity`
 * elements. `elems` holds the token index of each element's first token, row after row;
 * `start`/`end` are the text span the slot replaces (IN: the elements; VALUES: from the
 * first row's `(` to the last row's `)`).
 */
interface ListBase {
  arity: number;
  elems: number[];
  start: number;
  end: number;
}
export interface InListSlot extends ListBase {
  kind: 'L';
}
export interface RowsSlot extends ListBase {
  kind: 'R';
}
export type ListSlot = InListSlot | RowsSlot;

export type Slot = LiteralSlot | ListSlot;

export function isList(s: Slot): s is ListSlot {
  return s.kind === 'L' || s.kind === 'R';
}

/** A single literal's kind when `tokens[i]` can be a slot of its own, else null. */
function literalKind(sql: string, tokens: Token[], i: number): LiteralKind | null {
  const t = tokens[i];
  const prev = tokens[i - 1];
  const next = tokens[i + 1];
  if (t.kind === 'number') {
    // Part of a qualified name or a longer word (`t.1`, `1.5e3`...).
    if (prev && prev.end === t.start && prev.kind === 'punct' && prev.value === '.') return null;
    if (next && next.start === t.end && (next.kind !== 'punct' || next.value === '.')) return null;
    if (PLAIN_INT.test(t.value)) return 'n';
    if (PLAIN_DECIMAL.test(t.value) && t.value.length - 1 <= MAX_DECIMAL_DIGITS) return 'd';
    return null;
  }
  if (t.kind === 'string') {
    const q = sql[t.start];
    if (q !== "'" && q !== '"') return null;
    if (hexPrefix(sql, tokens, i)) {
      if (next && next.start === t.end && next.kind !== 'punct') return null;
      return 'x';
    }
    // N'..', X'..', _utf8'..' and adjacent-string concatenation keep their text.
    if (prev && prev.end === t.start && prev.kind !== 'punct') return null;
    if (next && next.start === t.end && next.kind !== 'punct') return null;
    return 's';
  }
  return null;
}

/** Whether the string at `tokens[i]` is the digits of a hex literal `X'..'` (the X just before it). */
function hexPrefix(sql: string, tokens: Token[], i: number): boolean {
  const t = tokens[i];
  const prev = tokens[i - 1];
  if (!prev || prev.end !== t.start || prev.kind !== 'ident' || (prev.value !== 'X' && prev.value !== 'x'))
    return false;
  const before = tokens[i - 2];
  if (before && before.end === prev.start && before.kind !== 'punct') return false;
  // An odd number of digits (MySQL refuses it) keeps its text.
  return sql[t.start] === "'" && t.value.length % 2 === 0 && /^[0-9A-Fa-f]*$/.test(t.value);
}

/** The slot of a single literal at `tokens[i]` of kind `kind`. */
function literalSlot(tokens: Token[], i: number, kind: LiteralKind): LiteralSlot {
  const t = tokens[i];
  if (kind !== 'x') return { kind, token: t };
  return { kind, token: { kind: 'string', value: t.value, start: tokens[i - 1].start, end: t.end } };
}

/** A float in exponent form (PyMySQL writes every float so: `0.25e0`), a list element only. */
const EXPONENT = /^(0|[1-9]\d{0,14})(\.\d{1,15})?[eE][+-]?\d{1,3}$/;

/** Whether `tokens[i]` is a number a list element may be (a literal slot's, or an exponent form). */
function elementNumber(sql: string, tokens: Token[], i: number): boolean {
  const t = tokens[i];
  if (t?.kind !== 'number') return false;
  if (EXPONENT.test(t.value)) {
    const next = tokens[i + 1];
    return !(next && next.start === t.end && (next.kind !== 'punct' || next.value === '.'));
  }
  return literalKind(sql, tokens, i) !== null;
}

/** How many tokens the list element at `i` takes (1, or 2 for `-5`), or 0 when it is not one. */
function elementWidth(sql: string, tokens: Token[], i: number): number {
  const t = tokens[i];
  if (!t) return 0;
  if (t.kind === 'ident') {
    if (isKeyword(t, 'NULL', 'TRUE', 'FALSE')) return 1;
    return tokens[i + 1]?.kind === 'string' && literalKind(sql, tokens, i + 1) === 'x' ? 2 : 0;
  }
  if (isPunct(t, '-')) {
    const n = tokens[i + 1];
    return n && n.start === t.end && elementNumber(sql, tokens, i + 1) ? 2 : 0;
  }
  if (t.kind === 'number') return elementNumber(sql, tokens, i) ? 1 : 0;
  return literalKind(sql, tokens, i) !== null ? 1 : 0;
}

/**
 * The elements of a parenthesised list of literals opening at `open`: pushed onto `out`,
 * and the index of the closing `)`; -1 (nothing pushed) when it is anything else.
 */
function literalList(sql: string, tokens: Token[], open: number, out: number[]): number {
  const mark = out.length;
  let i = open + 1;
  for (;;) {
    const w = elementWidth(sql, tokens, i);
    if (w === 0) break;
    out.push(i);
    i += w;
    if (isPunct(tokens[i], ')')) return i;
    if (!isPunct(tokens[i], ',')) break;
    i++;
  }
  out.length = mark;
  return -1;
}

/** `VALUES (..), (..)` rows of literals of one arity from the `(` at `open`: the slot and its last token, or null. */
function valuesRows(sql: string, tokens: Token[], open: number): { slot: ListSlot; last: number } | null {
  const elems: number[] = [];
  let close = literalList(sql, tokens, open, elems);
  if (close < 0) return null;
  const arity = elems.length;
  for (;;) {
    if (!isPunct(tokens[close + 1], ',') || !isPunct(tokens[close + 2], '(')) break;
    const before = elems.length;
    const next = literalList(sql, tokens, close + 2, elems);
    if (next < 0 || elems.length - before !== arity) return null;
    close = next;
  }
  return {
    slot: { kind: 'R', arity, elems, start: tokens[open].start, end: tokens[close].end },
    last: close,
  };
}

/** Whether the number at `i`, in an ORDER BY / GROUP BY list, is a whole item of it. */
function positional(tokens: Token[], i: number): boolean {
  const prev = tokens[i - 1];
  const next = tokens[i + 1];
  const starts = isKeyword(prev, 'BY') || isPunct(prev, ',');
  const ends = !next || isPunct(next, ',') || isPunct(next, ')') || next.kind === 'ident';
  return starts && ends;
}

/** The slots of a tokenized statement, in text order. */
export function findSlots(sql: string, tokens: Token[]): Slot[] {
  const out: Slot[] = [];
  // `ORDER BY 2`, `GROUP BY 1, 3`: positions of select items, part of the statement rather
  // than data, so they stay in its text (a slot there would stop the shape being shared).
  let depth = 0;
  let byDepth = -1;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'punct') {
      if (t.value === '(') depth++;
      else if (t.value === ')' && --depth < byDepth) byDepth = -1;
    } else if (t.kind === 'ident') {
      if (isKeyword(t, 'BY') && isKeyword(tokens[i - 1], 'ORDER', 'GROUP')) byDepth = depth;
      else if (depth === byDepth && !isKeyword(t, 'ASC', 'DESC')) byDepth = -1;
    }
    if (t.kind === 'number' && depth === byDepth && positional(tokens, i)) continue;
    if (t.kind === 'ident' && isPunct(tokens[i + 1], '(')) {
      if (isKeyword(t, 'IN')) {
        const elems: number[] = [];
        const close = literalList(sql, tokens, i + 1, elems);
        if (close >= 0) {
          const first = tokens[elems[0]];
          out.push({ kind: 'L', arity: 1, elems, start: first.start, end: tokens[close - 1].end });
          i = close;
          continue;
        }
      } else if (isKeyword(t, 'VALUES', 'VALUE') && !isPunct(tokens[i - 1], '=')) {
        const rows = valuesRows(sql, tokens, i + 1);
        if (rows) {
          out.push(rows.slot);
          i = rows.last;
          continue;
        }
      }
    }
    const kind = t.kind === 'number' || t.kind === 'string' ? literalKind(sql, tokens, i) : null;
    if (kind) out.push(literalSlot(tokens, i, kind));
  }
  return out;
}

/** Escapes node-sql-parser decodes itself; normalize.ts decodes the rest (unescapeMysqlString). */
const PARSER_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** A quoted string's value as parse + normalize give it (the two decoding steps, in order). */
function stringValue(raw: string, quote: "'" | '"'): string {
  const parsed = raw.includes('\\')
    ? raw.replace(/\\([\s\S])/g, (m, c: string) => PARSER_ESCAPES[c] ?? m)
    : raw;
  return unescapeMysqlString(parsed, quote);
}

/** The value a single literal slot puts into its template's literal node. */
export function literalValue(sql: string, s: LiteralSlot): number | string {
  const t = s.token;
  if (s.kind === 'n') return Number(t.value);
  if (s.kind === 'd' || s.kind === 'x') return t.value;
  return stringValue(sql.slice(t.start + 1, t.end - 1), sql[t.start] as "'" | '"');
}

/** The normalized literal node of the list element starting at `tokens[i]` (parse + normalize's). */
export function literalNode(sql: string, tokens: Token[], i: number): Expr {
  const t = tokens[i];
  if (t.kind === 'ident' && tokens[i + 1]?.kind === 'string' && (t.value === 'X' || t.value === 'x'))
    return { type: 'hex_string', prefix: null, value: tokens[i + 1].value } as Expr;
  if (t.kind === 'ident') {
    const w = t.value.toUpperCase();
    return w === 'NULL' ? { type: 'null', value: null } : { type: 'bool', value: w === 'TRUE' };
  }
  if (t.kind === 'string')
    return { type: 'string', value: literalValue(sql, { kind: 's', token: t }) as string };
  if (t.kind === 'number')
    return { type: 'number', value: PLAIN_INT.test(t.value) ? Number(t.value) : parserNumberText(t.value) };
  // `-` and a number.
  const n = tokens[i + 1];
  return {
    type: 'number',
    value: PLAIN_INT.test(n.value) ? -Number(n.value) : `-${parserNumberText(n.value)}`,
  };
}
