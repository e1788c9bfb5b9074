/**
 * A source's column as a MySQL 8 server describes it: the column type (`varchar(20)`, not
 * PostgreSQL's `character varying(20)`), the information_schema facts derived from it
 * (lengths, precision, scale, character set), a plain default, and the keys a column listing
 * implies. One description for SHOW CREATE TABLE (the wire face) and information_schema (the
 * engine), so a tool sees the same table both ways.
 */
import type { CanonicalValue, ColumnInfo } from './types.js';

function args(native: string): string[] {
  const m = /\(([^)]*)\)/.exec(native);
  return m ? m[1].split(',').map((x) => x.trim()) : [];
}

/** Types a MySQL source may declare UNSIGNED (MySQL 8 shows `bigint unsigned`, `decimal(10,2) unsigned`). */
const MAY_BE_UNSIGNED = new Set(['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'DECIMAL', 'FLOAT', 'DOUBLE']);

/** The MySQL column type for a source column (`character varying(20)` → `varchar(20)`, `bigint unsigned`). */
export function mysqlColumnType(c: ColumnInfo): string {
  const t = signedColumnType(c);
  return MAY_BE_UNSIGNED.has(c.type) && /\bunsigned\b/i.test(c.nativeType) ? `${t} unsigned` : t;
}

function signedColumnType(c: ColumnInfo): string {
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

/** information_schema.COLUMNS facts of one column (MySQL 8's values for its column type). */
export interface ColumnFacts {
  dataType: string;
  columnType: string;
  charMaxLength: number | null;
  charOctetLength: number | null;
  numericPrecision: number | null;
  numericScale: number | null;
  datetimePrecision: number | null;
  charset: string | null;
  collation: string | null;
  extra: string;
  default: string | null;
}

const TEXT_LENGTHS: Record<string, number> = {
  tinytext: 255,
  text: 65535,
  mediumtext: 16777215,
  longtext: 4294967295,
  tinyblob: 255,
  blob: 65535,
  mediumblob: 16777215,
  longblob: 4294967295,
};

const INT_PRECISION: Record<string, number> = { tinyint: 3, smallint: 5, mediumint: 7, int: 10, bigint: 19 };

export function columnFacts(c: ColumnInfo): ColumnFacts {
  const columnType = mysqlColumnType(c);
  const dataType = /^\w+/.exec(columnType)?.[0] ?? columnType;
  const nums = args(columnType).map(Number);
  const facts: ColumnFacts = {
    dataType,
    columnType,
    charMaxLength: null,
    charOctetLength: null,
    numericPrecision: null,
    numericScale: null,
    datetimePrecision: null,
    charset: null,
    collation: null,
    extra: autoIncrement(c) ? 'auto_increment' : '',
    default: autoIncrement(c) ? null : plainDefault(c.default),
  };
  if (dataType === 'char' || dataType === 'varchar' || dataType === 'enum' || dataType === 'set') {
    const n = dataType === 'enum' || dataType === 'set' ? longestMember(columnType) : (nums[0] ?? 255);
    facts.charMaxLength = n;
    facts.charOctetLength = n * 4;
  } else if (dataType === 'varbinary' || dataType === 'binary') {
    facts.charMaxLength = nums[0] ?? 255;
    facts.charOctetLength = nums[0] ?? 255;
  } else if (dataType in TEXT_LENGTHS) {
    facts.charMaxLength = TEXT_LENGTHS[dataType];
    facts.charOctetLength = TEXT_LENGTHS[dataType];
  } else if (dataType in INT_PRECISION) {
    // An unsigned BIGINT has 20 digits (18446744073709551615); the other widths keep theirs.
    facts.numericPrecision =
      dataType === 'bigint' && columnType.endsWith(' unsigned') ? 20 : INT_PRECISION[dataType];
    facts.numericScale = 0;
  } else if (dataType === 'decimal') {
    facts.numericPrecision = nums[0] ?? 10;
    facts.numericScale = nums[1] ?? 0;
  } else if (dataType === 'float') facts.numericPrecision = 12;
  else if (dataType === 'double') facts.numericPrecision = 22;
  else if (dataType === 'datetime' || dataType === 'timestamp' || dataType === 'time')
    facts.datetimePrecision = nums[0] ?? 0;
  if (/char|text|enum|set/.test(dataType)) {
    facts.charset = 'utf8mb4';
    facts.collation = 'utf8mb4_general_ci';
  }
  return facts;
}

function longestMember(columnType: string): number {
  const members = [...columnType.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1].replace(/''/g, "'"));
  return Math.max(1, ...members.map((m) => m.length));
}

/** A PostgreSQL serial/identity column or a MySQL one the source marks as such. */
function autoIncrement(c: ColumnInfo): boolean {
  return typeof c.default === 'string' && /^nextval\(/i.test(c.default);
}

/**
 * A default as MySQL 8 shows it: the value of a literal (`'none'::character varying` →
 * `none`), a number as is, CURRENT_TIMESTAMP for the clock; other expressions as written.
 */
export function plainDefault(d: string | null | undefined): string | null {
  if (d === null || d === undefined) return null;
  const s = d.trim();
  const quoted = /^'((?:[^']|'')*)'(?:::[\w\s"]+(?:\[\])?(?:\(\d+(?:,\d+)?\))?)*$/.exec(s);
  if (quoted) return quoted[1].replace(/''/g, "'");
  const num = /^\(?(-?\d+(?:\.\d+)?)\)?(?:::[\w\s]+)*$/.exec(s);
  if (num) return num[1];
  if (/^NULL(::[\w\s]+)?$/i.test(s)) return null;
  if (/^(now\(\)|CURRENT_TIMESTAMP(\(\d*\))?|current_timestamp\(\)|LOCALTIMESTAMP)$/i.test(s))
    return 'CURRENT_TIMESTAMP';
  return s;
}

/** `table.column` of a foreign key (ColumnInfo.references) as its parts. */
export function splitReference(ref: string | null | undefined): { table: string; column: string } | null {
  if (!ref) return null;
  const dot = ref.lastIndexOf('.');
  return dot > 0 ? { table: ref.slice(0, dot), column: ref.slice(dot + 1) } : null;
}

/** One index column as SHOW INDEX / information_schema.STATISTICS list it. */
export interface IndexPart {
  name: string;
  unique: boolean;
  seq: number;
  column: string;
  nullable: boolean;
}

/**
 * The indexes a column listing implies: PRIMARY over the PRI columns, then one index per
 * UNI or MUL column, named after it (the listing does not carry index names).
 */
export function indexParts(cols: ColumnInfo[]): IndexPart[] {
  const out: IndexPart[] = [];
  let seq = 0;
  for (const c of cols)
    if (c.key === 'PRI')
      out.push({ name: 'PRIMARY', unique: true, seq: ++seq, column: c.name, nullable: false });
  for (const c of cols)
    if (c.key === 'UNI' || c.key === 'MUL')
      out.push({ name: c.name, unique: c.key === 'UNI', seq: 1, column: c.name, nullable: c.nullable });
  return out;
}

/**
 * What SHOW INDEX and information_schema.STATISTICS both say of an index column after its
 * name: SEQ_IN_INDEX, COLUMN_NAME, COLLATION, CARDINALITY, SUB_PART, PACKED, NULLABLE,
 * INDEX_TYPE, COMMENT, INDEX_COMMENT, IS_VISIBLE, EXPRESSION.
 */
export function indexPartTail(p: IndexPart): CanonicalValue[] {
  return [p.seq, p.column, 'A', null, null, null, p.nullable ? 'YES' : '', 'BTREE', '', '', 'YES', null];
}

/** The name a foreign key of `column` gets (PostgreSQL's default naming). */
export function foreignKeyName(table: string, column: string): string {
  return `${table}_${column}_fkey`;
}
