/**
 * What a log line may say about a statement: its shape with every literal replaced by `?`
 * (string, number, hex and bit literals) and comments dropped, so values such as
 * e-mail addresses or passwords in `CREATE DATABASE ... PARAMETERS` never reach the logs.
 */
const MAX_LOGGED = 500;

/** What observe/ says about a statement's text, read in one pass (readStatement). */
export interface StatementText {
  /** The first keyword, upper-cased (`SELECT`, `INSERT`, ...), or `UNKNOWN`. */
  kind: string;
  /** The text with its literals masked and comments dropped, cut at MAX_LOGGED characters. */
  masked: string;
  /**
   * Names written as a qualifier (`name.` or `` `name`. ``) outside literals and comments,
   * lower-cased, each once, in order: the candidates for the sources a statement touched.
   */
  qualifiers: string[];
}

/**
 * The kind, masked text and qualifiers of `sql` in one pass over it: the audit log, traces
 * and metrics of a point lookup used to read the text three times (a regex pass that copied
 * it for the kind, a masking pass, and a copy with strings blanked for the qualifiers).
 * The masked text stops growing at MAX_LOGGED; the pass goes on to the end for qualifiers.
 */
export function readStatement(sql: string): StatementText {
  /** The masked text so far: plain runs are copied whole when something ends them (put). */
  let out = '';
  /** Where the plain run not yet copied to `out` starts. */
  let from = 0;
  let kind: string | null = null;
  const qualifiers: string[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql.charCodeAt(i);
    const next = sql.charCodeAt(i + 1);
    if (c === SQ || c === DQ) {
      out = put(out, sql, from, i, '?');
      i = skipQuoted(sql, i, c);
      from = i;
      kind ??= 'UNKNOWN';
    } else if (c === BT) {
      const end = skipQuoted(sql, i, BT);
      if (qualifies(sql, end)) addQualifier(qualifiers, sql.slice(i + 1, end - 1).replace(/``/g, '`'));
      i = end;
      kind ??= 'UNKNOWN';
    } else if ((c === DASH && next === DASH) || c === HASH) {
      out = put(out, sql, from, i, '');
      while (i < n && sql.charCodeAt(i) !== NL) i++;
      from = i;
    } else if (c === SLASH && next === STAR) {
      out = put(out, sql, from, i, ' ');
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      from = i;
    } else if ((c === LX || c === UX || c === LB || c === UB) && next === SQ && !isWordAt(sql, i - 1)) {
      out = put(out, sql, from, i, '?');
      i = skipQuoted(sql, i + 1, SQ);
      from = i;
      kind ??= 'UNKNOWN';
    } else if (isDigit(c) && !isWordAt(sql, i - 1)) {
      out = put(out, sql, from, i, '?');
      while (i < n && (isWord(sql.charCodeAt(i)) || sql.charCodeAt(i) === DOT)) i++;
      from = i;
      kind ??= 'UNKNOWN';
    } else if (c === DOT && isDigit(next) && !isWordAt(sql, i - 1)) {
      out = put(out, sql, from, i, '?');
      i++;
      while (i < n && isWord(sql.charCodeAt(i))) i++;
      from = i;
      kind ??= 'UNKNOWN';
    } else if (isSpace(c)) {
      // One plain space after a character that stays is kept in the run as it is; any other
      // run of spaces becomes one, and none at the start.
      if (
        c === SP &&
        !isSpace(next) &&
        (i > from || (out.length > 0 && out.charCodeAt(out.length - 1) !== SP))
      ) {
        i++;
        continue;
      }
      out = put(out, sql, from, i, '');
      while (i < n && isSpace(sql.charCodeAt(i))) i++;
      from = i;
      if (out.length > 0 && out.length <= MAX_LOGGED && out.charCodeAt(out.length - 1) !== SP) out += ' ';
    } else if (isWordStart(c)) {
      const start = i;
      while (i < n && isWord(sql.charCodeAt(i))) i++;
      if (kind === null) kind = firstKeyword(sql, start, i);
      if (qualifies(sql, i)) addQualifier(qualifiers, sql.slice(start, i));
    } else {
      if (c !== OPEN) kind ??= 'UNKNOWN';
      i++;
    }
  }
  out = put(out, sql, from, n, '').trim();
  return {
    kind: kind ?? 'UNKNOWN',
    masked: out.length > MAX_LOGGED ? `${out.slice(0, MAX_LOGGED)}…` : out,
    qualifiers,
  };
}

/**
 * `out`, then the plain run `sql[from, end)`, then `add`: cut at one character past
 * MAX_LOGGED, after which `out` grows no more (the pass goes on for qualifiers).
 */
function put(out: string, sql: string, from: number, end: number, add: string): string {
  const room = MAX_LOGGED + 1 - out.length;
  if (room <= 0) return out;
  if (end - from >= room) return out + sql.slice(from, from + room);
  return out + sql.slice(from, end) + add;
}

export function redactSql(sql: string): string {
  return readStatement(sql).masked;
}

/**
 * The first keyword of a statement (`SELECT`, `INSERT`, ...), for a one-word summary: the
 * first word after spaces, comments and opening parentheses. Reads only that far.
 */
export function statementKind(sql: string): string {
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql.charCodeAt(i);
    const next = sql.charCodeAt(i + 1);
    if (isSpace(c) || c === OPEN) i++;
    else if ((c === DASH && next === DASH) || c === HASH) {
      while (i < n && sql.charCodeAt(i) !== NL) i++;
    } else if (c === SLASH && next === STAR) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if ((c === LX || c === UX || c === LB || c === UB) && next === SQ) return 'UNKNOWN';
    else if (isWordStart(c)) {
      let end = i;
      while (end < n && isWord(sql.charCodeAt(end))) end++;
      return firstKeyword(sql, i, end);
    } else return 'UNKNOWN';
  }
  return 'UNKNOWN';
}

/** Lower-cased known source names → their spelling, per list of names (the list is kept until it changes). */
const byLowerOf = new WeakMap<readonly string[], Map<string, string>>();

/**
 * The sources among `qualifiers` (readStatement), plus the default database: the sources a
 * call touched, as far as the text shows. Table aliases are filtered out by the list of
 * known sources.
 */
export function sourcesOf(
  qualifiers: readonly string[],
  known: readonly string[],
  defaultDb?: string,
): string[] {
  let byLower = byLowerOf.get(known);
  if (!byLower) {
    byLower = new Map(known.map((k) => [k.toLowerCase(), k]));
    byLowerOf.set(known, byLower);
  }
  const found: string[] = [];
  for (const q of qualifiers) {
    const hit = byLower.get(q);
    if (hit !== undefined && !found.includes(hit)) found.push(hit);
  }
  if (defaultDb) {
    const d = byLower.get(defaultDb.toLowerCase()) ?? defaultDb;
    if (!found.includes(d)) found.push(d);
  }
  return found;
}

/** `sourcesOf` straight from the text. */
export function sourcesIn(sql: string, known: readonly string[], defaultDb?: string): string[] {
  return sourcesOf(readStatement(sql).qualifiers, known, defaultDb);
}

function addQualifier(qualifiers: string[], name: string): void {
  const lower = name.toLowerCase();
  if (!qualifiers.includes(lower)) qualifiers.push(lower);
}

/** Whether a `.` follows `at`, after spaces only. */
function qualifies(s: string, at: number): boolean {
  while (at < s.length && isSpace(s.charCodeAt(at))) at++;
  return s.charCodeAt(at) === DOT;
}

/** The letters and underscores a word starts with, upper-cased (`SELECT1` → `SELECT`). */
function firstKeyword(s: string, start: number, end: number): string {
  let i = start;
  while (i < end && isWordStart(s.charCodeAt(i))) i++;
  return s.slice(start, i).toUpperCase();
}

function skipQuoted(s: string, start: number, q: number): number {
  let i = start + 1;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === BACKSLASH && q !== BT) {
      i += 2;
      continue;
    }
    if (c === q) {
      if (s.charCodeAt(i + 1) === q) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return n;
}

const SQ = 39; // '
const DQ = 34; // "
const BT = 96; // `
const DASH = 45;
const HASH = 35;
const SLASH = 47;
const STAR = 42;
const DOT = 46;
const NL = 10;
const SP = 32;
const OPEN = 40; // (
const BACKSLASH = 92;
const LX = 120; // x
const UX = 88; // X
const LB = 98; // b
const UB = 66; // B

/** Character classes of ASCII codes: what the pass asks of every character, by one table look-up. */
const DIGIT = 1;
const WORD_START = 2;
const WORD = 4;
const SPACE = 8;
const CLASSES = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[0-9]/.test(ch)) CLASSES[c] |= DIGIT | WORD;
  if (/[A-Za-z_]/.test(ch)) CLASSES[c] |= WORD_START | WORD;
  if (ch === '$') CLASSES[c] |= WORD;
  if (/[ \n\t\r]/.test(ch)) CLASSES[c] |= SPACE;
}

function isDigit(c: number): boolean {
  return c < 128 && (CLASSES[c] & DIGIT) !== 0;
}

/** A letter or underscore: what an unquoted name starts with. */
function isWordStart(c: number): boolean {
  return c < 128 && (CLASSES[c] & WORD_START) !== 0;
}

/** `[\w$]`. */
function isWord(c: number): boolean {
  return c < 128 && (CLASSES[c] & WORD) !== 0;
}

function isWordAt(s: string, i: number): boolean {
  return i >= 0 && isWord(s.charCodeAt(i));
}

function isSpace(c: number): boolean {
  return c < 128 && (CLASSES[c] & SPACE) !== 0;
}
