/** One statement of an editor's text, with where it sits (offsets into the text). */
export interface Statement {
  text: string;
  from: number;
  to: number;
}

/**
 * Splits SQL text on top-level semicolons, the way the mysql client does: a `;` inside a
 * quoted string ('', "", ``), a `-- ` or `#` line comment or a block comment does not end a
 * statement. Empty statements (only blanks and comments) are dropped.
 */
export function splitStatements(text: string): Statement[] {
  const out: Statement[] = [];
  let start = 0;
  let i = 0;
  const push = (end: number) => {
    const raw = text.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const body = raw.trim();
    if (body && stripComments(body).trim())
      out.push({ text: body, from: start + lead, to: start + lead + body.length });
  };
  while (i < text.length) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      i = skipQuoted(text, i, c);
    } else if (lineComment(text, i)) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl + 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === ';') {
      push(i);
      i += 1;
      start = i;
    } else {
      i += 1;
    }
  }
  push(text.length);
  return out;
}

/** Index just past the closing quote; a doubled quote or (outside backticks) a backslash escapes. */
function skipQuoted(text: string, at: number, q: string): number {
  let i = at + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\' && q !== '`') i += 2;
    else if (c === q && text[i + 1] === q) i += 2;
    else if (c === q) return i + 1;
    else i += 1;
  }
  return text.length;
}

/** The text without comments (quoted text kept), to tell a statement from a lone comment. */
export function stripComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      const end = skipQuoted(text, i, c);
      out += text.slice(i, end);
      i = end;
    } else if (lineComment(text, i)) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      out += ' ';
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/** True for statements whose result is a plan (EXPLAIN / DESCRIBE of a query). */
export function isExplain(text: string): boolean {
  return /^\s*(explain|describe\s+select|desc\s+select)\b/i.test(stripComments(text));
}

/** `#`, or `--` followed by a blank or the end (MySQL: `1--1` is one minus minus one). */
function lineComment(text: string, i: number): boolean {
  if (text[i] === '#') return true;
  if (text[i] !== '-' || text[i + 1] !== '-') return false;
  const next = text[i + 2];
  return next === undefined || /\s/.test(next);
}
