/**
 * The checks that let a pushdown plan compiled once with marker integers serve every
 * statement of the same shape (plan/shape-plans.ts). Compilers branch on a number
 * literal's value in places (a boolean position turns 0/5 into FALSE/TRUE, GROUP BY 2 and
 * ORDER BY 2 in a set operation read the select list, function arguments such as
 * SUBSTRING's position or ROUND's places are folded, INTERVAL n is folded into a string,
 * two equal literals make two expressions "the same" for grouping), so a slot is only
 * filled in after compiling where none of that happens: a comparison, IN list or BETWEEN
 * bound directly under the top-level WHERE's AND/OR/NOT, or LIMIT/OFFSET. The rest is
 * proven on the compiled text itself.
 */
import type { Expr, SqlStatement } from '../ast/nodes.js';
import type { Path } from '../parse/templates.js';

const CONNECTIVES = new Set(['AND', 'OR', '&&', '||']);
const COMPARISONS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=']);
const LISTS = new Set(['IN', 'NOT IN', 'BETWEEN', 'NOT BETWEEN']);

const upper = (v: unknown): string => String(v ?? '').toUpperCase();

/**
 * Whether the number literal at `path` (a template path ending at its node's `value`) sits
 * where its value cannot change how anything else compiles.
 */
export function fillableSlot(ast: SqlStatement, path: Path): boolean {
  const n = path.length;
  if (n < 2 || path[n - 1] !== 'value') return false;
  if (path[0] === 'limit') return n === 4 && path[1] === 'value' && typeof path[2] === 'number';
  // The WHERE of a UNION's later member is as much a WHERE as the first's.
  let member: SqlStatement | undefined = ast;
  let i = 0;
  while (path[i] === '_next' && member && '_next' in member) {
    member = member._next ?? undefined;
    i++;
  }
  if (path[i] !== 'where' || !member || !('where' in member)) return false;
  let node: Expr | null | undefined = member.where;
  i++;
  for (;;) {
    const key = path[i];
    if (
      node?.type === 'binary_expr' &&
      CONNECTIVES.has(upper(node.operator)) &&
      (key === 'left' || key === 'right')
    )
      node = node[key];
    else if (node?.type === 'unary_expr' && ['NOT', '!'].includes(upper(node.operator)) && key === 'expr')
      node = node.expr;
    else break;
    i++;
  }
  if (node?.type !== 'binary_expr') return false;
  const op = upper(node.operator);
  const side = path[i++];
  if (side !== 'left' && side !== 'right') return false;
  let leaf: Expr | undefined = node[side];
  if (LISTS.has(op) && side === 'right') {
    const at = path[i + 1];
    if (leaf?.type !== 'expr_list' || path[i] !== 'value' || typeof at !== 'number') return false;
    leaf = leaf.value?.[at];
    i += 2;
  } else if (!COMPARISONS.has(op) && !LISTS.has(op)) return false;
  return leaf?.type === 'number' && i === n - 1;
}

/**
 * What a slot's value is, as far as any compiler or target could tell values apart: 0 and
 * 1 (booleans), a 32-bit integer, or a bigger one. Each class is verified on its own.
 */
export function valueClass(digits: string): string {
  if (digits === '0' || digits === '1') return digits;
  return digits.length < 10 || (digits.length === 10 && digits <= '2147483647') ? 'n' : 'b';
}

/** Compiled text cut at its slots: `parts[0] + value(slots[0]) + parts[1] + ...`. */
export interface SlottedSql {
  parts: string[];
  /** The slot filling each gap, in text order (a compiler may reorder, e.g. `LIMIT o, n`). */
  slots: number[];
}

export function fillSlots(s: SlottedSql, value: (slot: number) => string): string {
  let out = s.parts[0];
  for (let i = 0; i < s.slots.length; i++) out += value(s.slots[i]) + s.parts[i + 1];
  return out;
}

const WORD_CHAR = /[0-9A-Za-z_$.\u0080-\uffff]/;

/**
 * `sql` cut at each marker, or null unless every marker occurs exactly once, as a number
 * of its own (not part of a longer digit run, a name or a decimal) and outside any quoted
 * string, identifier or comment. `mysqlSyntax`: the target's strings take backslash
 * escapes and `#` starts a comment (in PostgreSQL it is XOR).
 */
export function cutAtMarkers(
  sql: string,
  markers: { slot: number; text: string }[],
  mysqlSyntax: boolean,
  /** A marker may be missing (one text of several: a fragment's, the local statement's). */
  someOf = false,
): SlottedSql | null {
  const quoted = quotedSpans(sql, mysqlSyntax);
  if (!quoted) return null;
  const at: { pos: number; slot: number; len: number }[] = [];
  for (const m of markers) {
    const pos = sql.indexOf(m.text);
    if (pos < 0 && someOf) continue;
    if (pos < 0 || sql.indexOf(m.text, pos + 1) >= 0) return null;
    const end = pos + m.text.length;
    if (WORD_CHAR.test(sql[pos - 1] ?? ' ') || WORD_CHAR.test(sql[end] ?? ' ')) return null;
    if (quoted.some(([a, b]) => pos < b && end > a)) return null;
    at.push({ pos, slot: m.slot, len: m.text.length });
  }
  at.sort((a, b) => a.pos - b.pos);
  const parts: string[] = [];
  let from = 0;
  for (const x of at) {
    parts.push(sql.slice(from, x.pos));
    from = x.pos + x.len;
  }
  parts.push(sql.slice(from));
  return { parts, slots: at.map((x) => x.slot) };
}

/** [start, end) of every quoted string, quoted identifier and comment; null if one is unterminated. */
function quotedSpans(sql: string, mysqlSyntax: boolean): [number, number][] | null {
  const spans: [number, number][] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    let end = -1;
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      for (; j < sql.length; j++) {
        if (mysqlSyntax && ch !== '`' && sql[j] === '\\') j++;
        else if (sql[j] === ch) {
          if (sql[j + 1] !== ch) break;
          j++;
        }
      }
      if (j >= sql.length) return null;
      end = j + 1;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      end = nl < 0 ? sql.length : nl;
    } else if (ch === '#' && mysqlSyntax) {
      const nl = sql.indexOf('\n', i);
      end = nl < 0 ? sql.length : nl;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      if (close < 0) return null;
      end = close + 2;
    }
    if (end < 0) i++;
    else {
      spans.push([i, end]);
      i = end;
    }
  }
  return spans;
}
