/**
 * What an expression's type is, as far as the AST (and the planner's column types) tell.
 * The compilers only need a coarse answer: is this a string (so MySQL's case-insensitive
 * comparison applies), a date, a boolean? `null` means unknown, and callers then choose the
 * translation that is right for every type.
 */
import type { ColumnRef, Expr } from '../ast/nodes.js';
import type { Kind } from './types.js';

const STRING_FUNCS = new Set([
  'CONCAT',
  'CONCAT_WS',
  'UPPER',
  'UCASE',
  'LOWER',
  'LCASE',
  'SUBSTRING',
  'SUBSTR',
  'MID',
  'LEFT',
  'RIGHT',
  'LPAD',
  'RPAD',
  'TRIM',
  'LTRIM',
  'RTRIM',
  'REPLACE',
  'REVERSE',
  'REPEAT',
  'SPACE',
  'DATE_FORMAT',
  'FORMAT',
  'MONTHNAME',
  'DAYNAME',
  'GROUP_CONCAT',
  'JSON_UNQUOTE',
  'HEX',
  'ELT',
  'CHAR',
  'SUBSTRING_INDEX',
  'TIME_FORMAT',
  'TO_BASE64',
  'BIN',
  'JSON_TYPE',
  'JSON_QUOTE',
]);
/** MySQL functions whose result is a JSON value (MariaDB reports it as LONGTEXT). */
export const JSON_FUNCS = new Set([
  'JSON_EXTRACT',
  'JSON_OBJECT',
  'JSON_ARRAY',
  'JSON_OBJECTAGG',
  'JSON_ARRAYAGG',
  'JSON_MERGE',
  'JSON_MERGE_PATCH',
  'JSON_MERGE_PRESERVE',
  'JSON_SET',
  'JSON_INSERT',
  'JSON_REPLACE',
  'JSON_REMOVE',
  'JSON_ARRAY_APPEND',
  'JSON_ARRAY_INSERT',
  'JSON_KEYS',
]);

/**
 * A result column whose MySQL type the AST settles where a source's own report differs:
 * JSON (a JSON function or `->`; MariaDB says LONGTEXT), TIME (TIMEDIFF, computed as text on
 * targets whose TIME stops at 24:00) and BIGINT (integer arithmetic: MySQL 8 computes `+`,
 * `-`, `*`, DIV and MOD of integers in BIGINT where PostgreSQL, DuckDB and MariaDB report INT).
 * `at` is non-negative from the first column, negative from the last (-1 is the last), for
 * columns after a `*` whose width is not known here.
 */
export interface ResultType {
  at: number;
  type: 'JSON' | 'TIME' | 'BIGINT';
}

export function resultTypes(columns: { expr: Expr }[] | null | undefined): ResultType[] {
  if (!Array.isArray(columns)) return [];
  const star = (e: Expr) => e?.type === 'column_ref' && e.column === '*';
  const firstStar = columns.findIndex((c) => star(c.expr));
  const lastStar = columns.findLastIndex((c) => star(c.expr));
  const out: ResultType[] = [];
  columns.forEach((c, i) => {
    const type = settledType(c.expr);
    if (!type) return;
    if (firstStar < 0 || i < firstStar) out.push({ at: i, type });
    else if (i > lastStar) out.push({ at: i - columns.length, type });
  });
  return out;
}

const INT_ARITHMETIC = new Set(['+', '-', '*', 'DIV', '%', 'MOD']);

function settledType(e: Expr): ResultType['type'] | null {
  // An integer literal is BIGINT in MySQL 8 (`SELECT 1`: LONGLONG), where sources say INT.
  if (e?.type === 'number') return 'BIGINT';
  if (e?.type === 'binary_expr') {
    if (e.operator === '->') return 'JSON';
    // Whether the operands are integers is the source's answer (an INT result); only its width is MySQL's.
    if (INT_ARITHMETIC.has(String(e.operator).toUpperCase())) return 'BIGINT';
    return null;
  }
  if (e?.type === 'unary_expr') return e.operator === '-' ? 'BIGINT' : null;
  if (e?.type !== 'function' && e?.type !== 'aggr_func') return null;
  const name = String(e.name).toUpperCase();
  if (JSON_FUNCS.has(name)) return 'JSON';
  if (name === 'TIMEDIFF' || name === 'SEC_TO_TIME' || name === 'MAKETIME') return 'TIME';
  if (name === 'MOD') return 'BIGINT';
  return null;
}

const NUMBER_FUNCS = new Set([
  'LENGTH',
  'OCTET_LENGTH',
  'CHAR_LENGTH',
  'CHARACTER_LENGTH',
  'LOCATE',
  'INSTR',
  'POSITION',
  'FIELD',
  'ABS',
  'CEIL',
  'CEILING',
  'FLOOR',
  'ROUND',
  'TRUNCATE',
  'MOD',
  'POW',
  'POWER',
  'SQRT',
  'EXP',
  'LN',
  'LOG',
  'LOG10',
  'LOG2',
  'SIGN',
  'PI',
  'RAND',
  'YEAR',
  'MONTH',
  'DAY',
  'DAYOFMONTH',
  'HOUR',
  'MINUTE',
  'SECOND',
  'DAYOFWEEK',
  'WEEKDAY',
  'DAYOFYEAR',
  'QUARTER',
  'WEEK',
  'DATEDIFF',
  'TIMESTAMPDIFF',
  'UNIX_TIMESTAMP',
  'COUNT',
  'SUM',
  'AVG',
  'STD',
  'STDDEV',
  'STDDEV_POP',
  'STDDEV_SAMP',
  'VARIANCE',
  'VAR_POP',
  'VAR_SAMP',
  'ROW_NUMBER',
  'RANK',
  'DENSE_RANK',
  'NTILE',
  'PERCENT_RANK',
  'CUME_DIST',
  'ASCII',
  'STRCMP',
  'BIT_AND',
  'BIT_OR',
  'BIT_XOR',
  'TIME_TO_SEC',
  'MICROSECOND',
  'TO_SECONDS',
  'TO_DAYS',
  'PERIOD_ADD',
  'PERIOD_DIFF',
  'WEEKOFYEAR',
  'YEARWEEK',
  'BIT_LENGTH',
  'BIT_COUNT',
  'JSON_LENGTH',
  'JSON_VALID',
  'JSON_CONTAINS',
]);
const DATE_FUNCS = new Set(['CURDATE', 'CURRENT_DATE', 'DATE', 'LAST_DAY', 'MAKEDATE']);
const DATETIME_FUNCS = new Set([
  'NOW',
  'CURRENT_TIMESTAMP',
  'LOCALTIMESTAMP',
  'LOCALTIME',
  'SYSDATE',
  'UTC_TIMESTAMP',
  'FROM_UNIXTIME',
  'TIMESTAMP',
  'CONVERT_TZ',
]);
const SAME_AS_ARG = new Set([
  'MIN',
  'MAX',
  'ANY_VALUE',
  'FIRST_VALUE',
  'LAST_VALUE',
  'NTH_VALUE',
  'LAG',
  'LEAD',
]);
const FIRST_KNOWN = new Set(['IFNULL', 'COALESCE', 'NULLIF', 'GREATEST', 'LEAST']);
const COMPARISON = new Set([
  '=',
  '<>',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '<=>',
  'AND',
  'OR',
  'XOR',
  '&&',
  '||',
  'IN',
  'NOT IN',
  'LIKE',
  'NOT LIKE',
  'BETWEEN',
  'NOT BETWEEN',
  'IS',
  'IS NOT',
  'REGEXP',
  'NOT REGEXP',
  'RLIKE',
  'NOT RLIKE',
]);

/** Looks up a column_ref's kind (the compiler binds `columnType` and alias scopes). */
export type ColumnKind = (ref: ColumnRef) => Kind;

export function isBooleanExpr(node: Expr | null | undefined): boolean {
  if (!node) return false;
  if (node.type === 'bool') return true;
  if (node.type === 'binary_expr') return COMPARISON.has(String(node.operator).toUpperCase());
  if (node.type === 'unary_expr') {
    const op = String(node.operator).toUpperCase();
    return op === 'NOT' || op === '!' || op === 'EXISTS' || op === 'NOT EXISTS';
  }
  if (node.type === 'function') return node.name === 'ISNULL' || node.name === 'REGEXP_LIKE';
  return false;
}

/** A string literal that MySQL would compare as a number or a date rather than as text. */
export function looksNumericOrTemporal(s: string): boolean {
  const t = s.trim();
  return (
    /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t) ||
    /^\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{1,2}(:\d{1,2}(\.\d+)?)?)?$/.test(t) ||
    /^\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(t)
  );
}

export function kindOf(node: Expr | null | undefined, col: ColumnKind): Kind {
  if (!node || typeof node !== 'object') return null;
  switch (node.type) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'bool':
      return 'bool';
    case 'date':
      return 'date';
    case 'timestamp':
    case 'datetime':
      return 'datetime';
    case 'time':
      return 'time';
    case 'column_ref':
      return col(node);
    case 'cast':
      return castKind(node.target?.[0]?.dataType);
    case 'case': {
      for (const a of node.args ?? []) {
        const k = kindOf(a.result, col);
        if (k) return k;
      }
      return null;
    }
    case 'unary_expr':
      if (node.operator === '-' || node.operator === '+' || node.operator === '~') return 'number';
      return isBooleanExpr(node) ? 'bool' : null;
    case 'binary_expr': {
      const op = String(node.operator).toUpperCase();
      if (COMPARISON.has(op)) return 'bool';
      if (op === '->') return 'json';
      if (op === '->>') return 'string';
      if (op === '+' || op === '-') {
        if (node.left?.type === 'interval' || node.right?.type === 'interval') {
          const base = node.left?.type === 'interval' ? node.right : node.left;
          const k = kindOf(base, col);
          return k === 'string' ? null : k;
        }
      }
      return 'number';
    }
    case 'aggr_func':
    case 'function': {
      const name = String(node.name).toUpperCase();
      const args: Expr[] = node.type === 'aggr_func' ? [node.args?.expr] : (node.args?.value ?? []);
      if (STRING_FUNCS.has(name)) return 'string';
      if (NUMBER_FUNCS.has(name)) return 'number';
      if (DATE_FUNCS.has(name)) return 'date';
      if (DATETIME_FUNCS.has(name)) return 'datetime';
      if (name === 'CURTIME' || name === 'CURRENT_TIME' || name === 'UTC_TIME' || name === 'TIME')
        return 'time';
      if (JSON_FUNCS.has(name)) return 'json';
      if (name === 'ISNULL') return 'bool';
      if (SAME_AS_ARG.has(name)) return kindOf(args[0], col);
      if (FIRST_KNOWN.has(name)) {
        for (const a of args) {
          const k = kindOf(a, col);
          if (k) return k;
        }
        return null;
      }
      if (name === 'IF') return kindOf(args[1], col) ?? kindOf(args[2], col);
      if (name === 'DATE_ADD' || name === 'DATE_SUB' || name === 'ADDDATE' || name === 'SUBDATE') {
        const k = kindOf(args[0], col);
        return k === 'string' ? null : k;
      }
      if (name === 'STR_TO_DATE') return 'datetime';
      return null;
    }
    case 'subquery': {
      const first = node.ast?.columns?.[0]?.expr;
      return first && node.ast.columns.length === 1 ? kindOf(first, col) : null;
    }
    default:
      return null;
  }
}

export function castKind(dataType: unknown): Kind {
  const t = String(dataType ?? '').toUpperCase();
  if (/CHAR|TEXT/.test(t)) return 'string';
  if (/INT|SIGNED|UNSIGNED|DECIMAL|NUMERIC|DOUBLE|FLOAT|REAL|YEAR/.test(t)) return 'number';
  if (t === 'DATE') return 'date';
  if (t === 'DATETIME' || t === 'TIMESTAMP') return 'datetime';
  if (t === 'TIME') return 'time';
  if (t === 'JSON') return 'json';
  if (/BINARY|BLOB/.test(t)) return 'binary';
  return null;
}
