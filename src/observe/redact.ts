/**
 * What a log line may say about a statement: its shape with every literal replaced by `?`
 * (string, number, hex and bit literals) and comments dropped, so values such as
 * e-mail addresses or passwords in `CREATE DATABASE ... PARAMETERS` never reach the logs.
 */
const MAX_LOGGED = 500;

export function redactSql(sql: string): string {
  let out = '';
  let i = 0;
  const n = sql.length;
  while (i < n && out.length <= MAX_LOGGED) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === "'" || c === '"') {
      i = skipQuoted(sql, i, c);
      out += '?';
    } else if (c === '`') {
      const end = skipQuoted(sql, i, '`');
      out += sql.slice(i, end);
      i = end;
    } else if ((c === '-' && next === '-') || c === '#') {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      out += ' ';
    } else if ((c === 'x' || c === 'X' || c === 'b' || c === 'B') && next === "'" && !isWord(sql[i - 1])) {
      i = skipQuoted(sql, i + 1, "'");
      out += '?';
    } else if (isDigit(c) && !isWord(sql[i - 1])) {
      while (i < n && (isWord(sql[i]) || sql[i] === '.')) i++;
      out += '?';
    } else if (c === '.' && isDigit(next) && !isWord(sql[i - 1])) {
      i++;
      while (i < n && isWord(sql[i])) i++;
      out += '?';
    } else if (isSpace(c)) {
      while (i < n && isSpace(sql[i])) i++;
      if (out.length && !out.endsWith(' ')) out += ' ';
    } else {
      out += c;
      i++;
    }
  }
  out = out.trim();
  return out.length > MAX_LOGGED ? `${out.slice(0, MAX_LOGGED)}…` : out;
}

/** The first keyword of a statement (`SELECT`, `INSERT`, ...), for a one-word summary. */
export function statementKind(sql: string): string {
  const m = /^[\s(]*([A-Za-z_]+)/.exec(sql.replace(/^\s*(--[^\n]*\n|#[^\n]*\n|\/\*[\s\S]*?\*\/)*/, ''));
  return m ? m[1].toUpperCase() : 'UNKNOWN';
}

/**
 * Names written as a qualifier (`name.` or `` `name`. ``) in the statement that are
 * data sources, plus the default database: the sources a call touched, as far as the
 * text shows. Table aliases are filtered out by the list of known sources.
 */
export function sourcesIn(sql: string, known: string[], defaultDb?: string): string[] {
  const byLower = new Map(known.map((k) => [k.toLowerCase(), k]));
  const found = new Set<string>();
  const re = /(?:`((?:[^`]|``)+)`|([A-Za-z_][\w$]*))\s*\./g;
  const stripped = sql.replace(/'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"/g, "''");
  for (let m = re.exec(stripped); m; m = re.exec(stripped)) {
    const name = (m[1] ?? m[2]).replace(/``/g, '`').toLowerCase();
    const hit = byLower.get(name);
    if (hit) found.add(hit);
  }
  if (defaultDb) found.add(byLower.get(defaultDb.toLowerCase()) ?? defaultDb);
  return [...found];
}

function skipQuoted(s: string, start: number, q: string): number {
  let i = start + 1;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\' && q !== '`') {
      i += 2;
      continue;
    }
    if (c === q) {
      if (s[i + 1] === q) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return s.length;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isWord(c: string | undefined): boolean {
  return c !== undefined && /[\w$]/.test(c);
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\n' || c === '\t' || c === '\r';
}
