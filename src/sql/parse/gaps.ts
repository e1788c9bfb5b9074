/**
 * MySQL syntax node-sql-parser's grammar cannot read, rewritten on tokens before it parses
 * (a pre-pass rather than a grammar fork: the lead is reworking sql/, and these
 * constructs have exact equivalents the grammar already reads):
 * - index hints `USE|FORCE|IGNORE INDEX|KEY [FOR JOIN|ORDER BY|GROUP BY] (...)`: advice to
 *   MySQL's optimizer, meaningless on other targets; dropped.
 * - the null-safe `a <=> b`: `((a = b OR a IS NULL AND b IS NULL) IS TRUE)`, which is 1
 *   or 0, never NULL, as `<=>` is, and a boolean where one is needed, on every target.
 * - `CONVERT(x, type)` → `CAST(x AS type)`, its definition: the grammar reads the comma form
 *   only for a plain operand and not with `SIGNED INTEGER`, both of which JDBC's
 *   DatabaseMetaData sends (`CONVERT(CASE ... END, UNSIGNED INTEGER)`).
 * - the `BINARY x` operator → `CAST(x AS BINARY)`, its definition (the grammar reads the
 *   prefix and drops it, so `BINARY 'a' = 'A'` would compare case-insensitively).
 */
import { rewriteClauseGaps } from './clause-gaps.js';
import { closing, isKeyword, isPunct, type Token, tokenize } from './lexer.js';
import { operandEnd, operandStart, primaryEnd } from './operands.js';

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** `USE INDEX (...)` and the like after a table: [start token, end token] to drop, or null. */
function indexHint(t: Token[], i: number): number | null {
  if (!isKeyword(t[i], 'USE', 'FORCE', 'IGNORE') || !isKeyword(t[i + 1], 'INDEX', 'KEY')) return null;
  let j = i + 2;
  if (isKeyword(t[j], 'FOR')) {
    if (isKeyword(t[j + 1], 'JOIN')) j += 2;
    else if (isKeyword(t[j + 1], 'ORDER', 'GROUP') && isKeyword(t[j + 2], 'BY')) j += 3;
    else return null;
  }
  if (!isPunct(t[j], '(')) return null;
  const close = closing(t, j);
  return close < 0 ? null : close;
}

/** The top-level comma of `CONVERT(expr, type)` at token i, or -1 (also for `CONVERT(x USING cs)`). */
function convertComma(t: Token[], i: number): number {
  if (!isKeyword(t[i], 'CONVERT') || !isPunct(t[i + 1], '(')) return -1;
  const close = closing(t, i + 1);
  let depth = 0;
  for (let j = i + 2; j < close; j++) {
    if (isPunct(t[j], '(')) depth++;
    else if (isPunct(t[j], ')')) depth--;
    else if (depth === 0 && isPunct(t[j], ',')) return j;
  }
  return -1;
}

/** Tokens after which `BINARY` is the prefix operator (not a type: `AS BINARY`, a column's `BINARY(16)`). */
const BEFORE_OPERATOR = new Set([
  'SELECT',
  'WHERE',
  'AND',
  'OR',
  'NOT',
  'ON',
  'WHEN',
  'THEN',
  'ELSE',
  'BY',
  'HAVING',
  'LIKE',
  'IN',
  'CASE',
  'XOR',
  'BETWEEN',
]);
const PUNCT_BEFORE_OPERATOR = new Set(['(', ',', '=', '<', '>', '!', '+', '-', '*', '/', '%']);

/** The end of the operand of a `BINARY x` operator at token i, or -1. */
function binaryOperand(t: Token[], i: number): number {
  if (!isKeyword(t[i], 'BINARY')) return -1;
  const prev = t[i - 1];
  const after =
    (prev?.kind === 'punct' && PUNCT_BEFORE_OPERATOR.has(prev.value)) ||
    (prev?.kind === 'ident' && BEFORE_OPERATOR.has(prev.value.toUpperCase()));
  if (!after) return -1;
  // `CONVERT(x, BINARY)`: a type, which the CONVERT rewrite handles.
  if (isPunct(t[i + 1], ')')) return -1;
  return primaryEnd(t, i + 1);
}

export function rewriteSyntaxGaps(sql: string): string {
  return rewriteClauseGaps(rewriteOperatorGaps(sql));
}

function rewriteOperatorGaps(sql: string): string {
  if (!/<=>|\b(?:USE|FORCE|IGNORE)\s+(?:INDEX|KEY)\b|\bCONVERT\s*\(|\bBINARY\b/i.test(sql)) return sql;
  let t: Token[];
  try {
    t = tokenize(sql);
  } catch {
    return sql;
  }
  const edits: Edit[] = [];
  for (let i = 0; i < t.length; i++) {
    const comma = convertComma(t, i);
    if (comma >= 0) {
      edits.push({ start: t[i].start, end: t[i].end, text: 'CAST' });
      edits.push({ start: t[comma].start, end: t[comma].end, text: ' AS ' });
      continue;
    }
    const binaryEnd = binaryOperand(t, i);
    if (binaryEnd >= 0) {
      edits.push({
        start: t[i].start,
        end: t[binaryEnd].end,
        text: `CAST(${sql.slice(t[i + 1].start, t[binaryEnd].end)} AS BINARY)`,
      });
      i = binaryEnd;
      continue;
    }
    const hintEnd = indexHint(t, i);
    if (hintEnd !== null) {
      edits.push({ start: t[i].start, end: t[hintEnd].end, text: '' });
      i = hintEnd;
      continue;
    }
    const nullSafe =
      isPunct(t[i], '<') &&
      isPunct(t[i + 1], '=') &&
      isPunct(t[i + 2], '>') &&
      t[i + 1].start === t[i].end &&
      t[i + 2].start === t[i + 1].end;
    if (!nullSafe) continue;
    const ls = operandStart(t, i);
    const re = operandEnd(t, i + 3);
    if (ls < 0 || re < 0) continue; // left to the parser, which names the position
    const l = sql.slice(t[ls].start, t[i - 1].end);
    const r = sql.slice(t[i + 3].start, t[re].end);
    edits.push({
      start: t[ls].start,
      end: t[re].end,
      // Fully parenthesised: the grammar reads `a OR b AND c` as `(a OR b) AND c`.
      text: `((((${l}) = (${r})) OR ((${l}) IS NULL AND (${r}) IS NULL)) IS TRUE)`,
    });
    i = re;
  }
  if (edits.length === 0) return sql;
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  // Edits do not overlap: each skips past what it consumed. A `<=>` nested inside an
  // operand of another is left as it is, and the parser then names its position.
  for (const e of edits) {
    if (e.start < at) continue; // inside an operand a `<=>` rewrite already copied
    out += sql.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + sql.slice(at);
}
