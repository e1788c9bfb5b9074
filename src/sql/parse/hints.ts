/**
 * Hints for habits from other dialects, added to the error of a statement that failed:
 * PostgreSQL's `x::type`, `date_trunc(...)`, `ILIKE`, and double-quoted identifiers.
 * Only a failed statement gets one, and only for what its own text contains (tokens, so
 * nothing inside a string literal or comment counts).
 */
import { type Token, tokenize } from './lexer.js';

const CAST_TYPES: Record<string, string> = {
  date: 'DATE',
  timestamp: 'DATETIME',
  timestamptz: 'DATETIME',
  time: 'TIME',
  text: 'CHAR',
  varchar: 'CHAR',
  int: 'SIGNED',
  integer: 'SIGNED',
  bigint: 'SIGNED',
  smallint: 'SIGNED',
  numeric: 'DECIMAL(18,2)',
  decimal: 'DECIMAL(18,2)',
  float: 'DOUBLE',
  float8: 'DOUBLE',
  real: 'DOUBLE',
  json: 'JSON',
  jsonb: 'JSON',
};

const TRUNC_FORMATS: Record<string, (e: string) => string> = {
  year: (e) => `DATE_FORMAT(${e}, '%Y-01-01')`,
  month: (e) => `DATE_FORMAT(${e}, '%Y-%m-01')`,
  week: (e) => `DATE_SUB(DATE(${e}), INTERVAL WEEKDAY(${e}) DAY)`,
  day: (e) => `DATE(${e})`,
  hour: (e) => `DATE_FORMAT(${e}, '%Y-%m-%d %H:00:00')`,
  minute: (e) => `DATE_FORMAT(${e}, '%Y-%m-%d %H:%i:00')`,
};

const KEYWORDS = new Set([
  'select',
  'where',
  'and',
  'or',
  'on',
  'by',
  'not',
  'when',
  'then',
  'else',
  'case',
  'as',
  'from',
  'having',
  'in',
  'is',
  'distinct',
  'return',
]);

/** The operand just before index `end` (a possibly dotted name, or a parenthesised group). */
function operandBefore(sql: string, toks: Token[], end: number): string | null {
  let i = end - 1;
  if (i < 0) return null;
  let start: number;
  if (toks[i].value === ')' && toks[i].kind === 'punct') {
    let depth = 0;
    for (; i >= 0; i--) {
      if (toks[i].kind !== 'punct') continue;
      if (toks[i].value === ')') depth++;
      else if (toks[i].value === '(' && --depth === 0) break;
    }
    if (i < 0) return null;
    // A function call's name belongs to the operand; a keyword before the group does not.
    if (i > 0 && toks[i - 1].kind === 'ident' && !KEYWORDS.has(toks[i - 1].value.toLowerCase())) i--;
    start = toks[i].start;
  } else {
    if (toks[i].kind === 'punct') return null;
    while (
      i >= 2 &&
      toks[i - 1].kind === 'punct' &&
      toks[i - 1].value === '.' &&
      toks[i - 2].kind !== 'punct'
    )
      i -= 2;
    start = toks[i].start;
  }
  return sql.slice(start, toks[end - 1].end);
}

function castHint(sql: string, toks: Token[]): string | null {
  for (let i = 1; i + 2 < toks.length; i++) {
    const [a, b, t] = [toks[i], toks[i + 1], toks[i + 2]];
    if (a.kind !== 'punct' || a.value !== ':' || b.kind !== 'punct' || b.value !== ':' || b.start !== a.end)
      continue;
    const expr = operandBefore(sql, toks, i);
    if (!expr || t.kind !== 'ident') continue;
    const type = t.value.toLowerCase();
    const target = CAST_TYPES[type] ?? type.toUpperCase();
    const alt = type === 'date' ? ` or DATE(${expr})` : '';
    return `MySQL has no '::' cast: write CAST(${expr} AS ${target})${alt}.`;
  }
  return null;
}

function truncHint(sql: string, toks: Token[]): string | null {
  for (let i = 0; i + 5 < toks.length; i++) {
    if (toks[i].kind !== 'ident' || toks[i].value.toLowerCase() !== 'date_trunc') continue;
    if (toks[i + 1].value !== '(' || toks[i + 2].kind !== 'string' || toks[i + 3].value !== ',') continue;
    const unit = toks[i + 2].value.toLowerCase();
    // The second argument runs to the matching ')'.
    let depth = 1;
    let j = i + 4;
    for (; j < toks.length; j++) {
      if (toks[j].kind !== 'punct') continue;
      if (toks[j].value === '(') depth++;
      else if (toks[j].value === ')' && --depth === 0) break;
    }
    if (j >= toks.length) return null;
    const expr = sql.slice(toks[i + 4].start, toks[j - 1].end);
    const rewrite: ((e: string) => string) | undefined = TRUNC_FORMATS[unit];
    const example = rewrite ? rewrite(expr) : `DATE_FORMAT(${expr}, '%Y-%m-01')`;
    const adapt = rewrite === undefined ? ` (for '${unit}', adapt the format)` : '';
    return `MySQL has no date_trunc: write ${example}${adapt}.`;
  }
  return null;
}

function ilikeHint(toks: Token[]): string | null {
  const i = toks.findIndex((t) => t.kind === 'ident' && t.value.toLowerCase() === 'ilike');
  if (i < 0) return null;
  const neg = i > 0 && toks[i - 1].kind === 'ident' && toks[i - 1].value.toLowerCase() === 'not';
  return `MySQL has no ILIKE: ${neg ? 'NOT LIKE' : 'LIKE'} already ignores case (MySQL's default collation).`;
}

function doubleQuoteHint(sql: string, toks: Token[]): string | null {
  // A double-quoted name right after FROM/JOIN/'.' or before '.' is meant as an identifier.
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (t.kind !== 'string' || sql[t.start] !== '"') continue;
    const prev = toks[i - 1];
    const next = toks[i + 1];
    const asName =
      (prev?.kind === 'ident' && /^(from|join|update|into|table|by)$/i.test(prev.value)) ||
      (prev?.kind === 'punct' && prev.value === '.') ||
      (next?.kind === 'punct' && next.value === '.') ||
      (prev?.kind === 'ident' && /^(select|where|and|or|on)$/i.test(prev.value));
    if (asName)
      return `In MySQL "${t.value}" is a string, not a name: quote identifiers with backticks, \`${t.value.replace(/`/g, '``')}\`.`;
  }
  return null;
}

/** A hint for a failed statement written with another dialect's habits; null when none applies. */
export function dialectHint(sql: string): string | null {
  let toks: Token[];
  try {
    toks = tokenize(sql);
  } catch {
    return null;
  }
  return castHint(sql, toks) ?? truncHint(sql, toks) ?? ilikeHint(toks) ?? doubleQuoteHint(sql, toks);
}
