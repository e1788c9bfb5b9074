/**
 * MySQL's executable comments (SPEC section 9): `/*! text *\/` is part of the statement, and
 * so is `/*!NNNNN text *\/` when NNNNN (a five-digit version, 80036 = 8.0.36) is at most
 * the version this server speaks as; a higher one is a comment. `mysqldump`, `mariadb-dump`
 * and admin tools send them (`/*!40101 SET NAMES utf8mb4 *\/`, `SELECT /*!40001 SQL_NO_CACHE *\/ *`).
 * MariaDB's own `/*M!NNNNNN ... *\/` is a plain comment, as MySQL reads it. Strings, quoted
 * names and other comments are left as they are. Pure and linear.
 */

/** The MySQL version executable comments are read for (8.0.36, as the wire face reports). */
export const COMMENT_VERSION = 80036;

/** `sql` with its executable comments opened (their text kept, the markers gone). */
export function readExecutableComments(sql: string): string {
  if (!sql.includes('/*!')) return sql;
  let out = '';
  let from = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`') {
      i = skipQuoted(sql, i, c);
      continue;
    }
    if (c === '#' || (c === '-' && sql[i + 1] === '-')) {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) break; // unterminated: the parser names it
      if (sql[i + 2] === '!') {
        let body = i + 3;
        // Five digits exactly, as MySQL 8.0 reads them (a sixth is the text's).
        const version = /^\d{5}/.exec(sql.slice(body, body + 5));
        const readable = !version || Number(version[0]) <= COMMENT_VERSION;
        if (version) body += version[0].length;
        // The markers become spaces, so the text around them never runs together.
        out += `${sql.slice(from, i)} ${readable ? sql.slice(body, end) : ''} `;
        from = end + 2;
      }
      i = end + 2;
      continue;
    }
    i++;
  }
  return from === 0 ? sql : out + sql.slice(from);
}

/** The index after the quoted string, name or identifier starting at `i` (backslash escapes outside backticks). */
function skipQuoted(sql: string, i: number, q: string): number {
  let j = i + 1;
  while (j < sql.length) {
    const c = sql[j];
    if (c === '\\' && q !== '`') {
      j += 2;
      continue;
    }
    if (c === q) {
      if (sql[j + 1] === q) {
        j += 2;
        continue;
      }
      return j + 1;
    }
    j++;
  }
  return j;
}
