/**
 * Operand extents on tokens, for pre-passes that rewrite a binary operator the parser cannot
 * read (`<=>`, `SOUNDS LIKE`): an operand is an arithmetic chain of primaries (names,
 * literals, calls, parenthesized groups). Anything looser is left to the parser.
 */
import { closing, isPunct, opening, type Token } from './lexer.js';

const OPERAND_JOINERS = new Set(['+', '-', '*', '/', '%', '.']);
const STOP_WORDS = new Set([
  'SELECT',
  'WHERE',
  'AND',
  'OR',
  'NOT',
  'ON',
  'WHEN',
  'THEN',
  'ELSE',
  'CASE',
  'END',
  'AS',
  'FROM',
  'HAVING',
  'BY',
  'IN',
  'IS',
  'LIKE',
  'BETWEEN',
  'XOR',
  'SET',
  'RETURN',
  'DIV',
  'MOD',
  'IF',
]);

/** Whether `t` can be (the end or the start of) a primary: a name, a literal, a parameter. */
function primary(t: Token | undefined): boolean {
  if (!t) return false;
  if (t.kind === 'ident') return !STOP_WORDS.has(t.value.toUpperCase());
  return t.kind === 'quoted' || t.kind === 'string' || t.kind === 'number';
}

/** Token index where the left operand of a binary operator at `op` (an arithmetic chain of primaries) starts. */
export function operandStart(t: Token[], op: number): number {
  let i = op - 1;
  for (;;) {
    if (isPunct(t[i], ')')) {
      i = opening(t, i);
      if (i < 0) return -1;
      if (primary(t[i - 1]) && t[i - 1].end === t[i].start) i--; // a function call
    } else if (!primary(t[i])) return -1;
    const before = t[i - 1];
    if (before?.kind === 'punct' && OPERAND_JOINERS.has(before.value) && i - 2 >= 0) {
      i -= 2;
      continue;
    }
    return i;
  }
}

/** Token index where the right operand starting at `start` ends. */
export function operandEnd(t: Token[], start: number): number {
  let i = start;
  for (;;) {
    if (isPunct(t[i], '-') || isPunct(t[i], '+')) i++; // a sign
    if (primary(t[i]) && isPunct(t[i + 1], '(') && t[i + 1].start === t[i].end) i = closing(t, i + 1);
    else if (isPunct(t[i], '(')) i = closing(t, i);
    else if (!primary(t[i])) return -1;
    if (i < 0) return -1;
    const after = t[i + 1];
    if (after?.kind === 'punct' && OPERAND_JOINERS.has(after.value) && t[i + 2]) {
      i += 2;
      continue;
    }
    return i;
  }
}

/** Token index where one primary starting at `start` ends (a dotted name, a literal, a call, a parenthesized group), or -1. */
export function primaryEnd(t: Token[], start: number): number {
  let i = start;
  if (primary(t[i]) && isPunct(t[i + 1], '(') && t[i + 1].start === t[i].end) return closing(t, i + 1);
  if (isPunct(t[i], '(')) return closing(t, i);
  if (!primary(t[i])) return -1;
  while (isPunct(t[i + 1], '.') && primary(t[i + 2])) i += 2;
  return i;
}
