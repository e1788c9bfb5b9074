/**
 * SHOW CREATE TABLE and SHOW INDEX for tools that read a table's shape that way
 * (SQLAlchemy's reflection parses SHOW CREATE TABLE): MySQL's text built from the source's
 * column listing, with MySQL type names so the tools' parsers understand them. The column
 * description itself is core/mysql-columns.ts, shared with information_schema.
 */
import {
  columnFacts,
  foreignKeyName,
  indexParts,
  indexPartTail,
  mysqlColumnType,
  splitReference,
} from '../core/mysql-columns.js';
import type { ColumnInfo } from '../core/types.js';

const q = (s: string) => `\`${s.replace(/`/g, '``')}\``;
const lit = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export function createTableText(table: string, cols: ColumnInfo[]): string {
  const lines = cols.map((c) => {
    const facts = columnFacts(c);
    let line = `  ${q(c.name)} ${mysqlColumnType(c)}`;
    if (!c.nullable) line += ' NOT NULL';
    if (facts.extra) line += ` ${facts.extra.toUpperCase()}`;
    else if (facts.default !== null)
      line += ` DEFAULT ${facts.default === 'CURRENT_TIMESTAMP' || /^-?\d+(\.\d+)?$/.test(facts.default) ? facts.default : lit(facts.default)}`;
    else if (c.nullable && c.type !== 'TEXT' && c.type !== 'BLOB' && c.type !== 'JSON')
      line += ' DEFAULT NULL';
    if (c.comment) line += ` COMMENT ${lit(c.comment)}`;
    return line;
  });
  const parts = indexParts(cols);
  const pk = parts.filter((p) => p.name === 'PRIMARY').map((p) => q(p.column));
  if (pk.length) lines.push(`  PRIMARY KEY (${pk.join(',')})`);
  for (const p of parts) {
    if (p.name === 'PRIMARY') continue;
    lines.push(`  ${p.unique ? 'UNIQUE KEY' : 'KEY'} ${q(p.name)} (${q(p.column)})`);
  }
  // SQLAlchemy's reflection reads foreign keys from these lines.
  for (const c of cols) {
    const ref = splitReference(c.references);
    if (!ref) continue;
    lines.push(
      `  CONSTRAINT ${q(foreignKeyName(table, c.name))} FOREIGN KEY (${q(c.name)}) REFERENCES ${q(ref.table)} (${q(ref.column)})`,
    );
  }
  return `CREATE TABLE ${q(table)} (\n${lines.join(',\n')}\n) ENGINE=Tributary DEFAULT CHARSET=utf8mb4`;
}

/** SHOW INDEX rows: the primary key, unique and other keys the listing marks. */
export function indexRows(table: string, cols: ColumnInfo[]): unknown[][] {
  return indexParts(cols).map((p) => [table, p.unique ? 0 : 1, p.name, ...indexPartTail(p)]);
}

export const INDEX_COLUMNS = [
  'Table',
  'Non_unique',
  'Key_name',
  'Seq_in_index',
  'Column_name',
  'Collation',
  'Cardinality',
  'Sub_part',
  'Packed',
  'Null',
  'Index_type',
  'Comment',
  'Index_comment',
  'Visible',
  'Expression',
];
