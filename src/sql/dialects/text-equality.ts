/**
 * MySQL-equal text comparisons at the source's speed.
 *
 * Under MySQL's default collation `col = 'Purchase'` holds for every spelling that folds to
 * 'purchase': other cases, the accents utf8mb4_general_ci ignores, trailing spaces. Folding
 * every row (`translate(lower(rtrim(col)), ...)`) costs about ten times the comparison
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
 * on ASCII, JS's fold and the source's lower()/rtrim() agree byte for byte.
 */
import { UNACCENTED } from './support.js';

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

/** Pure ASCII: JS's fold and every target's lower()/rtrim() agree on such a string. */
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
