/** DuckDB string literal (paths, names): values never become SQL. */
export function lit(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** DuckDB quoted identifier. */
export function ident(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}
