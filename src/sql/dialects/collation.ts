/**
 * Text under MySQL's default collation (utf8mb4_general_ci): which comparisons fold (case,
 * the accents it equates, trailing spaces), how a value is folded on each target, and
 * MySQL-equal comparisons with literals at the source's speed.
 *
 * Under MySQL's default collation `col = 'Purchase'` holds for every spelling that folds to
 * 'purchase': other cases, the accents utf8mb4_general_ci ignores, trailing spaces. Folding
 * every row (`translate(upper(rtrim(col)), ...)`) costs about ten times the comparison
 * itself (PostgreSQL, 1,000,000 rows: 32 ms raw, 315 ms folded), so the predicate is said in
 * parts that are each cheap where they run:
 *
 *  - `col IN (<known spellings that fold to the literal>)`: the spellings the source's own
 *    statistics know (PostgreSQL's `pg_stats.most_common_vals`), decided by plain comparisons;
 *  - OR, for a value that is none of the known spellings: a LIKE that keeps the literal's
 *    caseless characters in place (`'user-4242'` → `'____-4242%'`), a superset that cannot
 *    reject a MySQL-equal value, and only then the fold.
 *
 * Together they are exact whatever the statistics say (a known spelling is decided by
 * whether it folds to the literal; any other value is folded): stale statistics cost speed,
 * never answers. Known spellings are classified here, in JS, so only ASCII ones are used:
 * on ASCII, JS's fold and the source's upper()/rtrim() agree byte for byte.
 */
import { aliasColumns } from '../ast/equality.js';
import { columnName, type Expr, type SelectStmt } from '../ast/nodes.js';
import type { Compiler } from './compiler-api.js';
import { looksNumericOrTemporal } from './infer.js';
import { UNACCENTED } from './support.js';
import type { Kind } from './types.js';

/** Whether `ch` is a character the fold can reach from another one (a cased or accent-base letter). */
function foldable(ch: string): boolean {
  return ch.toLowerCase() !== ch.toUpperCase() || UNACCENTED.includes(ch);
}

/**
 * A LIKE pattern (backslash escapes) matched by every value that folds to `folded`: the
 * foldable characters become `_`, the others stay, and `%` admits trailing spaces. Null
 * when no character stays (the pattern would only check the length).
 */
export function likeSuperset(folded: string): string | null {
  let out = '';
  let kept = 0;
  for (const ch of folded) {
    if (foldable(ch)) out += '_';
    else {
      kept++;
      out += ch === '%' || ch === '_' || ch === '\\' ? `\\${ch}` : ch;
    }
  }
  return kept > 0 ? `${out}%` : null;
}

/** Pure ASCII: JS's fold and every target's upper()/rtrim() agree on such a string. */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * The known spellings a comparison can decide without folding: `all` (ASCII spellings the
 * source knows) and `equal` (those that fold to one of the wanted values).
 */
export function splitKnown(
  known: readonly string[],
  wanted: ReadonlySet<string>,
  fold: (s: string) => string,
): { all: string[]; equal: string[] } {
  const all: string[] = [];
  const equal: string[] = [];
  for (const k of known) {
    if (typeof k !== 'string' || !isAscii(k) || k.includes('\0')) continue;
    all.push(k);
    if (wanted.has(fold(k.replace(/ +$/, '')))) equal.push(k);
  }
  return { all, equal };
}

/** Whether a comparison between these two must ignore case and trailing spaces. */
export function foldStrings(c: Compiler, l: Expr, r: Expr): boolean {
  if (!c.emulate) return false;
  if (c.caseSensitive(l) || c.caseSensitive(r)) return false;
  if (l?.type === 'expr_list' || r?.type === 'expr_list') return false;
  const kl = c.kind(l);
  const kr = c.kind(r);
  const other = (k: Kind) => k !== null && k !== 'string';
  if (other(kl) || other(kr)) return false;
  if (kl === 'string' && kr === 'string') return true;
  if (kl === 'string' || kr === 'string') {
    const s = kl === 'string' ? l : r;
    if (s.type === 'string') {
      const v = String(s.value);
      return !looksNumericOrTemporal(v) && (v.toLowerCase() !== v.toUpperCase() || / $/.test(v));
    }
    return true;
  }
  return false;
}

/** A string expression folded for comparison: upper case (MySQL's weights), trailing spaces removed. */
export function foldSql(c: Compiler, node: Expr): string {
  if (node?.type === 'string') return c.stringLiteral(c.foldText(String(node.value).replace(/ +$/, '')));
  return foldExpr(c, c.text(node), node?.type === 'column_ref', true);
}

/**
 * A string expression as a sort key under MySQL's collation: folded like foldSql, but
 * trailing spaces kept. MySQL's PAD SPACE compares as if the shorter value were padded with
 * spaces, so a byte-order sort of the untrimmed fold agrees with it wherever rtrim's does
 * (values equal but for trailing spaces are ties, and either order is MySQL's), and more
 * often ('a\t' < 'a ' in MySQL; rtrim would sort 'A' first); rtrim costs about a third of
 * the key (PostgreSQL, 100k rows, top 10). Only for the last key of a sort, whose ties are
 * free: not before another key (it decides those ties), nor for window peers or grouping.
 */
export function sortKeySql(c: Compiler, node: Expr): string {
  if (node?.type === 'string') return c.stringLiteral(c.foldText(String(node.value)));
  return foldExpr(c, c.text(node), node?.type === 'column_ref', false);
}

/**
 * `sql` folded as MySQL's collation compares it (upper case, accents, and trailing spaces
 * when `trim`). translate() is the costly part (DuckDB: 490 ms per 1M values against 40
 * for upper()), and pure ASCII needs none of it: an expression cheap to say twice (`simple`,
 * a column) takes a branch on whether it is ASCII where the target has one.
 */
export function foldExpr(c: Compiler, sql: string, simple: boolean, trim: boolean): string {
  const base = trim ? `rtrim(${sql})` : sql;
  const slow = c.accentFold(`upper(${base})`);
  const ascii = simple ? c.asciiTest(sql) : null;
  return ascii ? `CASE WHEN ${ascii} THEN ${c.asciiUpper(base)} ELSE ${slow} END` : slow;
}

/**
 * `col = 'x'` / `col IN ('x', 'y')` on a text column under MySQL's collation, said so the
 * source folds only the rows that could match (see the header); null when `col` is not
 * a plain column, where the fold of both sides is the translation.
 */
export function textEquality(c: Compiler, col: Expr, values: string[], not: boolean): string | null {
  if (col?.type !== 'column_ref' || columnName(col) === '*' || c.kind(col) !== 'string') return null;
  const sql = c.expr(col);
  const folded = [...new Set(values.map((v) => c.foldText(v.replace(/ +$/, ''))))];
  const fold = foldSql(c, col);
  const parts: string[] = [];
  // Lower-casing that expands a character (U+0130 → i + U+0307 under ICU) breaks the
  // length reasoning of both supersets: then only the fold is said.
  const plain = !folded.some((f) => f.includes('\u0307'));
  const pattern = plain && folded.length === 1 ? likeSuperset(folded[0]) : null;
  if (pattern) {
    const like = c.likePrefilter(sql, pattern);
    if (like) parts.push(like);
  }
  parts.push(
    folded.length === 1
      ? `${fold} = ${c.stringLiteral(folded[0])}`
      : `${fold} IN (${folded.map((f) => c.stringLiteral(f)).join(', ')})`,
  );
  const known = c.opts.knownValues?.(c.columnRefName(col));
  let body = parts.join(' AND ');
  let disjunction = false;
  if (known?.length) {
    const { all, equal } = splitKnown(known, new Set(folded), (v) => c.foldText(v));
    if (all.length) {
      const list = (xs: string[]) => xs.map((x) => c.stringLiteral(x)).join(', ');
      body = `${equal.length ? `${sql} IN (${list(equal)}) OR ` : ''}(${sql} NOT IN (${list(all)}) AND ${body})`;
      disjunction = equal.length > 0;
    }
  }
  // A value that folds to n characters has at least n bytes: one length test per row
  // turns most other values away before any comparison (PostgreSQL, 1M rows: 57 → 31 ms).
  const shortest = Math.min(...folded.map((f) => [...f].length));
  const bytes = plain && shortest >= 2 ? c.byteLength(sql) : null;
  if (bytes) body = `${bytes} >= ${shortest} AND ${disjunction ? `(${body})` : body}`;
  // A parent operator parenthesises this node (operand()); only NOT needs its own.
  return not ? `NOT (${body})` : body;
}

/** A one-column subquery whose values are folded for comparison. */
export function foldedSubquery(c: Compiler, ast: SelectStmt): string {
  const v = c.quoteIdent('_v');
  const inner = c.selectStatement(aliasColumns(ast, ['_v']));
  return `SELECT ${c.foldColumnSql(`${c.quoteIdent('_in')}.${v}`)} FROM (${inner}) AS ${c.quoteIdent('_in')}`;
}
