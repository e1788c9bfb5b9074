/**
 * Splitting a script into statements on `;`, the way the mysql client does: not inside
 * quotes, backticks or comments. Also says whether the text ends mid-statement (the shell
 * keeps reading lines until it does not).
 */
export interface Piece {
  sql: string;
  /** 1-based line of the statement's first character in the whole text. */
  line: number;
}

export function splitStatements(text: string): { statements: Piece[]; rest: string } {
  const statements: Piece[] = [];
  let start = 0;
  let i = 0;
  const n = text.length;
  const push = (end: number) => {
    const raw = text.slice(start, end);
    const lead = leadingCommentLength(raw);
    const sql = raw.slice(lead).trim();
    if (sql) statements.push({ sql, line: lineAt(text, start + lead) });
  };
  while (i < n) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      const end = closeQuote(text, i);
      if (end < 0) return { statements, rest: text.slice(start) };
      i = end + 1;
    } else if (c === '#' || (c === '-' && text[i + 1] === '-' && /[\s]/.test(text[i + 2] ?? ' '))) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return { statements, rest: text.slice(start) };
      i = end + 2;
    } else if (c === ';') {
      push(i);
      i++;
      start = i;
    } else i++;
  }
  const rest = text.slice(start);
  return { statements, rest: rest.trim() && !isOnlyComments(rest.trim()) ? rest : '' };
}

/** A whole script: what is left after the last `;` is a statement too. */
export function scriptStatements(text: string): Piece[] {
  const { statements, rest } = splitStatements(text);
  if (rest.trim()) {
    const lead = leadingCommentLength(rest);
    statements.push({ sql: rest.slice(lead).trim(), line: lineAt(text, text.length - rest.length + lead) });
  }
  return statements;
}

function closeQuote(text: string, at: number): number {
  const q = text[at];
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && q !== '`') i++;
    else if (c === q) {
      if (text[i + 1] === q) i++;
      else return i;
    }
  }
  return -1;
}

/** Blank space and comments before a statement (a script's header comment is not part of it). */
function leadingCommentLength(s: string): number {
  const m = /^(?:\s+|--(?:[^\S\n][^\n]*)?(?:\n|$)|#[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/.exec(s);
  return m ? m[0].length : 0;
}

function isOnlyComments(sql: string): boolean {
  return (
    sql
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(--\s|#).*$/gm, '')
      .trim() === ''
  );
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
