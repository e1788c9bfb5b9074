/** A MySQL identifier in backticks (a backtick inside is doubled). */
export function quoteIdent(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

/** A MySQL string literal in single quotes (quote and backslash escaped). */
export function quoteString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** A file name as a table name: its stem, with anything but letters, digits and _ folded to _. */
export function tableNameOf(fileName: string): string {
  const stem = fileName
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[A-Za-z_]/.test(stem) ? stem : `t_${stem || 'file'}`;
}
