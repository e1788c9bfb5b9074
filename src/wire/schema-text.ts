/**
 * SHOW CREATE TABLE and SHOW INDEX for tools that read a table's shape that way
 * (SQLAlchemy's reflection parses SHOW CREATE TABLE): MySQL's text built from the source's
 * column listing, with MySQL type names so the tools' parsers understand them.
 */
import type { ColumnInfo } from '../core/types.js';

function args(native: string): string[] {
  const m = /\(([^)]*)\)/.exec(native);
  return m ? m[1].split(',').map((x) => x.trim()) : [];
}

/** The MySQL column type for a source column (`character varying(20)` → `varchar(20)`). */
export function mysqlColumnType(c: ColumnInfo): string {
  const a = args(c.nativeType);
  const num = a.every((x) => /^\d+$/.test(x)) ? a : [];
  switch (c.type) {
    case 'TINYINT':
      return 'tinyint';
    case 'SMALLINT':
      return 'smallint';
    case 'INT':
      return 'int';
    case 'BIGINT':
      return 'bigint';
    case 'BOOLEAN':
      return 'tinyint(1)';
    case 'DECIMAL':
      return num.length ? `decimal(${num.slice(0, 2).join(',')})` : 'decimal(65,30)';
    case 'FLOAT':
      return 'float';
    case 'DOUBLE':
      return 'double';
    case 'CHAR':
      return num.length ? `char(${num[0]})` : 'char(255)';
    case 'VARCHAR':
      return num.length ? `varchar(${num[0]})` : 'text';
    case 'TEXT':
      return /long/i.test(c.nativeType) ? 'longtext' : 'text';
    case 'DATE':
      return 'date';
    case 'TIME':
      return num.length ? `time(${num[0]})` : 'time';
    case 'DATETIME':
      return num.length && num[0] !== '0' ? `datetime(${num[0]})` : 'datetime';
    case 'TIMESTAMP':
      return num.length && num[0] !== '0' ? `timestamp(${num[0]})` : 'timestamp';
    case 'YEAR':
      return 'year';
    case 'JSON':
      return 'json';
    case 'BLOB':
      return /long/i.test(c.nativeType) ? 'longblob' : 'blob';
    case 'BINARY':
      return num.length ? `varbinary(${num[0]})` : 'blob';
    case 'ENUM':
    case 'SET':
      return /^(enum|set)\(/i.test(c.nativeType) ? c.nativeType : 'text';
    default:
      return 'text';
  }
}

const q = (s: string) => `\`${s.replace(/`/g, '``')}\``;
const lit = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** `table.column` of a foreign key (ColumnInfo.references) as its parts. */
export function splitReference(ref: string | null | undefined): { table: string; column: string } | null {
  if (!ref) return null;
  const dot = ref.lastIndexOf('.');
  return dot > 0 ? { table: ref.slice(0, dot), column: ref.slice(dot + 1) } : null;
}

export function createTableText(table: string, cols: ColumnInfo[]): string {
  const lines = cols.map((c) => {
    let line = `  ${q(c.name)} ${mysqlColumnType(c)}`;
    if (!c.nullable) line += ' NOT NULL';
    else if (c.default == null && c.type !== 'TEXT' && c.type !== 'BLOB' && c.type !== 'JSON')
      line += ' DEFAULT NULL';
    if (c.comment) line += ` COMMENT ${lit(c.comment)}`;
    return line;
  });
  const pk = cols.filter((c) => c.key === 'PRI').map((c) => q(c.name));
  if (pk.length) lines.push(`  PRIMARY KEY (${pk.join(',')})`);
  for (const c of cols) {
    if (c.key === 'UNI') lines.push(`  UNIQUE KEY ${q(c.name)} (${q(c.name)})`);
    else if (c.key === 'MUL') lines.push(`  KEY ${q(c.name)} (${q(c.name)})`);
  }
  // The constraint names PostgreSQL gives by default; SQLAlchemy's reflection reads these lines.
  for (const c of cols) {
    const ref = splitReference(c.references);
    if (!ref) continue;
    lines.push(
      `  CONSTRAINT ${q(`${table}_${c.name}_fkey`)} FOREIGN KEY (${q(c.name)}) REFERENCES ${q(ref.table)} (${q(ref.column)})`,
    );
  }
  return `CREATE TABLE ${q(table)} (\n${lines.join(',\n')}\n) ENGINE=Tributary DEFAULT CHARSET=utf8mb4`;
}

/** SHOW INDEX rows: the primary key, unique and other keys the listing marks. */
export function indexRows(table: string, cols: ColumnInfo[]): unknown[][] {
  const rows: unknown[][] = [];
  let seq = 0;
  for (const c of cols) {
    if (c.key !== 'PRI') continue;
    rows.push([table, 0, 'PRIMARY', ++seq, c.name, 'A', null, null, null, '', 'BTREE', '', '', 'YES', null]);
  }
  for (const c of cols) {
    if (c.key !== 'UNI' && c.key !== 'MUL') continue;
    const nonUnique = c.key === 'UNI' ? 0 : 1;
    rows.push([
      table,
      nonUnique,
      c.name,
      1,
      c.name,
      'A',
      null,
      null,
      null,
      c.nullable ? 'YES' : '',
      'BTREE',
      '',
      '',
      'YES',
      null,
    ]);
  }
  return rows;
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
