/**
 * Clauses of MySQL's grammar node-sql-parser 5.4 cannot read, said on tokens in a form it
 * can, before it parses. A pre-pass rather than a grammar fork or patch: the package ships
 * only its generated (minified) parsers, a fork would mean building and keeping a PEG
 * grammar of ~10,000 lines in step with upstream, and each construct below has an exact
 * spelling the grammar already reads. Where the meaning needs more than the text (a NATURAL
 * JOIN's columns, a RANGE frame's unit), the rewrite leaves a marker that normalize.ts turns
 * back into a field of the typed tree:
 *
 * - `NATURAL [INNER | LEFT | RIGHT [OUTER]] JOIN t` → `... JOIN t USING (<NATURAL_MARK>)`;
 *   normalize sets `natural: true` and the planner (plan/natural.ts) fills the USING list
 *   with the columns both sides share, once it knows the tables' columns.
 * - `RANGE` window frames → `ROWS` with `<RANGE_MARK>` as the first PARTITION BY item;
 *   normalize removes it and gives the frame back its RANGE unit (the grammar reads ROWS only).
 * - select modifiers (HIGH_PRIORITY, STRAIGHT_JOIN, SQL_SMALL_RESULT, SQL_BIG_RESULT,
 *   SQL_BUFFER_RESULT, SQL_CACHE, SQL_NO_CACHE): advice to MySQL's optimizer and query cache,
 *   no change to the answer; dropped. `DISTINCTROW` is `DISTINCT`.
 * - charset introducers (`_utf8mb4'a'`): the text is the same string; the introducer is
 *   dropped (the grammar read `_utf8mb4'a'` as a column named `_utf8mb4` aliased `a`).
 * - `a SOUNDS LIKE b` → `SOUNDEX(a) = SOUNDEX(b)`, MySQL's definition of it.
 * - `INTERSECT ALL` / `EXCEPT ALL` → `INTERSECT` / `EXCEPT` with `SET_ALL_MARK` as a select
 *   option of the next member; normalize turns the set operator back into `INTERSECT ALL`.
 *   `INTERSECT DISTINCT` / `EXCEPT DISTINCT` are the plain operators.
 * Constructs with no equivalent answer 1235 naming the construct instead of a syntax error:
 * `MEMBER OF`, `JSON_TABLE`, `VALUES ROW(...)`, RANGE frames with INTERVAL bounds.
 */
import { ErrorCode, SqlError } from '../../core/errors.js';
import { SELECT_MODIFIERS, SELECT_OPTIONS } from './labels.js';
import { closing, isKeyword, isPunct, type Token, tokenize } from './lexer.js';
import { operandEnd, operandStart } from './operands.js';

/** Stands in a USING list for "the columns both sides share" (normalize.ts reads it). */
export const NATURAL_MARK = '\u001dnatural';
/** Stands first in a window's PARTITION BY for "this frame is RANGE" (normalize.ts reads it). */
export const RANGE_MARK = '\u001drange';
/**
 * Stands as a select option of the member after `INTERSECT ALL` / `EXCEPT ALL` (normalize.ts
 * reads it): an option the grammar keeps, and one the user's own text never leaves behind
 * (SQL_NO_CACHE is dropped from the text in the same pass).
 */
export const SET_ALL_MARK = 'SQL_NO_CACHE';

const QUICK =
  /\b(?:NATURAL|RANGE|HIGH_PRIORITY|STRAIGHT_JOIN|SQL_SMALL_RESULT|SQL_BIG_RESULT|SQL_BUFFER_RESULT|SQL_CACHE|SQL_NO_CACHE|DISTINCTROW|SOUNDS|INTERSECT|EXCEPT|MEMBER|JSON_TABLE|VALUES)\b|\b_[a-z0-9]+\s*['"]/i;

/** MySQL's character sets, as introducers name them. */
const CHARSETS = new Set([
  'armscii8',
  'ascii',
  'big5',
  'binary',
  'cp1250',
  'cp1251',
  'cp1256',
  'cp1257',
  'cp850',
  'cp852',
  'cp866',
  'cp932',
  'dec8',
  'eucjpms',
  'euckr',
  'gb18030',
  'gb2312',
  'gbk',
  'geostd8',
  'greek',
  'hebrew',
  'hp8',
  'keybcs2',
  'koi8r',
  'koi8u',
  'latin1',
  'latin2',
  'latin5',
  'latin7',
  'macce',
  'macroman',
  'sjis',
  'swe7',
  'tis620',
  'ucs2',
  'ujis',
  'utf16',
  'utf16le',
  'utf32',
  'utf8',
  'utf8mb3',
  'utf8mb4',
]);

/** Words that end a table factor's alias position after JOIN. */
const NOT_ALIAS = new Set([
  'ON',
  'USING',
  'WHERE',
  'JOIN',
  'INNER',
  'LEFT',
  'RIGHT',
  'CROSS',
  'NATURAL',
  'STRAIGHT_JOIN',
  'GROUP',
  'ORDER',
  'HAVING',
  'LIMIT',
  'WINDOW',
  'UNION',
  'EXCEPT',
  'INTERSECT',
  'FOR',
  'LOCK',
  'INTO',
  'USE',
  'FORCE',
  'IGNORE',
]);

interface Edit {
  start: number;
  end: number;
  text: string;
}

function enclosingOpen(t: Token[], at: number): number {
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    if (isPunct(t[i], ')')) depth++;
    else if (isPunct(t[i], '(') && depth-- === 0) return i;
  }
  return -1;
}

const unsupported = (what: string) =>
  new SqlError(ErrorCode.NOT_SUPPORTED, `Not supported: ${what} (no target of this server can run it)`);

/** Token index of the last token of the table factor starting at `i` (a name or a parenthesized one), with its alias. */
function factorEnd(t: Token[], i: number): number {
  let j: number;
  if (isPunct(t[i], '(')) {
    j = closing(t, i);
    if (j < 0) return -1;
  } else {
    if (t[i]?.kind !== 'ident' && t[i]?.kind !== 'quoted') return -1;
    j = i;
    while (isPunct(t[j + 1], '.') && (t[j + 2]?.kind === 'ident' || t[j + 2]?.kind === 'quoted')) j += 2;
  }
  if (isKeyword(t[j + 1], 'AS')) return t[j + 2] ? j + 2 : -1;
  const a = t[j + 1];
  if (a?.kind === 'quoted' || (a?.kind === 'ident' && !NOT_ALIAS.has(a.value.toUpperCase()))) return j + 1;
  return j;
}

/** `NATURAL ... JOIN factor` at token i: the edits, and the token to continue after. */
function naturalJoin(t: Token[], i: number, edits: Edit[]): number {
  let j = i + 1;
  let kind = '';
  if (isKeyword(t[j], 'INNER')) j++;
  else if (isKeyword(t[j], 'LEFT', 'RIGHT')) {
    kind = `${t[j].value.toUpperCase()} `;
    j++;
    if (isKeyword(t[j], 'OUTER')) j++;
  }
  if (!isKeyword(t[j], 'JOIN')) return i;
  const end = factorEnd(t, j + 1);
  if (end < 0) return i;
  edits.push({ start: t[i].start, end: t[j].end, text: `${kind}JOIN` });
  edits.push({ start: t[end].end, end: t[end].end, text: ` USING (\`${NATURAL_MARK}\`)` });
  return end;
}

/** A `RANGE` frame unit at token i inside a window specification. */
function rangeFrame(t: Token[], i: number, edits: Edit[]): boolean {
  if (!isKeyword(t[i + 1], 'BETWEEN', 'UNBOUNDED', 'CURRENT') && t[i + 1]?.kind !== 'number') {
    if (isKeyword(t[i + 1], 'INTERVAL')) throw unsupported('RANGE window frames with INTERVAL bounds');
    return false;
  }
  const open = enclosingOpen(t, i);
  if (open < 1 || !isKeyword(t[open - 1], 'OVER', 'AS')) return false;
  const close = closing(t, open);
  for (let k = i; k < close; k++)
    if (isKeyword(t[k], 'INTERVAL')) throw unsupported('RANGE window frames with INTERVAL bounds');
  edits.push({ start: t[i].start, end: t[i].end, text: 'ROWS' });
  let partition = -1;
  for (let k = open + 1; k < i; k++) {
    if (isKeyword(t[k], 'PARTITION') && isKeyword(t[k + 1], 'BY')) partition = k + 1;
  }
  const mark = `\`${RANGE_MARK}\``;
  if (partition >= 0) edits.push({ start: t[partition].end, end: t[partition].end, text: ` ${mark},` });
  else edits.push({ start: t[open].end, end: t[open].end, text: `PARTITION BY ${mark} ` });
  return true;
}

/** `INTERSECT|EXCEPT ALL|DISTINCT` at token i: the edits. */
function setQuantifier(t: Token[], i: number, edits: Edit[]): void {
  const q = t[i + 1];
  if (!isKeyword(q, 'ALL', 'DISTINCT')) return;
  edits.push({ start: t[i].end, end: q.end, text: '' });
  if (q.value.toUpperCase() === 'DISTINCT') return;
  let j = i + 2;
  while (isPunct(t[j], '(')) j++;
  if (!isKeyword(t[j], 'SELECT'))
    throw unsupported(`${t[i].value.toUpperCase()} ALL before anything but a SELECT`);
  edits.push({ start: t[j].end, end: t[j].end, text: ` ${SET_ALL_MARK}` });
}

/** Whether the SELECT options before token i (back to SELECT) are only options. */
function afterSelect(t: Token[], i: number): boolean {
  for (let k = i - 1; k >= 0; k--) {
    if (isKeyword(t[k], 'SELECT')) return true;
    if (t[k].kind !== 'ident' || !SELECT_OPTIONS.has(t[k].value.toUpperCase())) return false;
  }
  return false;
}

export function rewriteClauseGaps(sql: string): string {
  if (!QUICK.test(sql)) return sql;
  let t: Token[];
  try {
    t = tokenize(sql);
  } catch {
    return sql;
  }
  const edits: Edit[] = [];
  for (let i = 0; i < t.length; i++) {
    const tok = t[i];
    if (tok.kind !== 'ident') continue;
    const word = tok.value.toUpperCase();
    if (word === 'NATURAL') {
      i = naturalJoin(t, i, edits);
    } else if (word === 'INTERSECT' || word === 'EXCEPT') {
      setQuantifier(t, i, edits);
    } else if (word === 'RANGE') {
      rangeFrame(t, i, edits);
    } else if (SELECT_MODIFIERS.has(word) && afterSelect(t, i)) {
      edits.push({ start: tok.start, end: t[i + 1]?.start ?? tok.end, text: '' });
    } else if (word === 'DISTINCTROW' && afterSelect(t, i)) {
      edits.push({ start: tok.start, end: tok.end, text: 'DISTINCT' });
    } else if (
      word.startsWith('_') &&
      CHARSETS.has(word.slice(1).toLowerCase()) &&
      t[i + 1]?.kind === 'string' &&
      !isPunct(t[i - 1], '.')
    ) {
      edits.push({ start: tok.start, end: t[i + 1].start, text: '' });
    } else if (word === 'SOUNDS' && isKeyword(t[i + 1], 'LIKE')) {
      const ls = operandStart(t, i);
      const re = operandEnd(t, i + 2);
      if (ls < 0 || re < 0) throw unsupported('this SOUNDS LIKE operand (write SOUNDEX(a) = SOUNDEX(b))');
      const l = sql.slice(t[ls].start, t[i - 1].end);
      const r = sql.slice(t[i + 2].start, t[re].end);
      edits.push({ start: t[ls].start, end: t[re].end, text: `(SOUNDEX(${l}) = SOUNDEX(${r}))` });
      i = re;
    } else if (word === 'MEMBER' && isKeyword(t[i + 1], 'OF')) {
      throw unsupported('MEMBER OF (write JSON_CONTAINS(array, JSON_ARRAY(value)))');
    } else if (word === 'JSON_TABLE' && isPunct(t[i + 1], '(')) {
      throw unsupported('JSON_TABLE');
    } else if (word === 'VALUES' && isKeyword(t[i + 1], 'ROW') && isPunct(t[i + 2], '(')) {
      throw unsupported('VALUES ROW(...) as a table (write SELECT ... UNION ALL SELECT ...)');
    }
  }
  if (edits.length === 0) return sql;
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += sql.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + sql.slice(at);
}
