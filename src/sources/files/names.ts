import { FileError } from './errors.js';

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** File table names are plain SQL identifiers so they can be written unquoted: `files.sales_2024`. */
export function checkTableName(name: string): string {
  if (!NAME_RE.test(name) || name.length > 64) {
    throw new FileError(
      400,
      'invalid_name',
      `Invalid file table name '${name.slice(0, 80)}': use letters, digits and underscores, starting with a letter or underscore (at most 64 characters)`,
    );
  }
  return name;
}

/** A table name from a local file name: `Sales 2024.csv` → `sales_2024`. */
export function tableNameFromFile(fileName: string): string {
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '');
  let n = base
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!n) n = 'file';
  if (/^[0-9]/.test(n)) n = `t_${n}`;
  return n.slice(0, 64);
}
