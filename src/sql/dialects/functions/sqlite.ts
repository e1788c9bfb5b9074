/**
 * SQLite (3.46+ for strftime's names and the 'floor' date modifier): what it can say of
 * MySQL's functions. Anything missing here is refused rather than approximated.
 */
import { type Expr, wordOf } from '../../ast/nodes.js';
import type { FunctionHandler, FunctionMap, SqlCompiler } from '../compiler.js';
import {
  arity,
  asciiFn,
  commonFunctions,
  intLiteral,
  jsonUnquoteFn,
  locateFn,
  logBaseFn,
  nonNegative,
  numeric,
  ordFn,
  plain,
  roundDouble,
  substringFn,
  textual,
  timestampFn,
  trimChar,
  trimParts,
} from './common.js';
import { sqliteDateFormat, sqliteDayName, sqliteMonthName } from './date-format.js';
import { PG_ONLY_JSON } from './json-shape.js';
import { timeFunctions } from './time-value.js';

type C = SqlCompiler;
const t = (c: C, x: Expr) => c.expr(x);

function part(fmt: string, adjust = ''): FunctionHandler {
  return arity(
    'date part',
    1,
    1,
    (c, _n, [x]) => `(CAST(strftime('${fmt}', ${t(c, x)}) AS INTEGER)${adjust})`,
  );
}

const trim: FunctionHandler = (c, _n, args) => {
  const p = trimParts(c, args);
  const ch = trimChar(c, p.chars);
  const fn = p.dir === 'LEADING' ? 'ltrim' : p.dir === 'TRAILING' ? 'rtrim' : 'trim';
  return `${fn}(${c.text(p.value)}${ch ? `, ${ch}` : ''})`;
};

const repeat = (_c: C, s: string, n: string) => `replace(hex(zeroblob(max(${n}, 0))), '00', ${s})`;

const drop =
  (name: string): FunctionHandler =>
  (c) =>
    c.unsupported(`function ${name}`);

/** Half to even of a double (C's rint): SQLite's round() takes an exact half away from zero. */
const rintSqlite = (v: string) =>
  `(CASE WHEN abs(${v} - CAST(${v} AS INTEGER)) = 0.5 THEN 2 * round(${v} / 2) ELSE round(${v}) END)`;

/** GREATEST / LEAST of numbers: SQLite's max() and min() would compare text by its bytes, not MySQL's collation. */
function extreme(name: string, fn: string): FunctionHandler {
  return arity(name, 2, Infinity, (c, _n, args) => {
    if (args.some((a) => a?.type !== 'null' && c.kind(a) !== 'number'))
      return c.unsupported(`${name} of other than numbers`);
    return `${fn}(${args.map((a) => c.num(a)).join(', ')})`;
  });
}

/** LOWER / UPPER of an ASCII literal only: SQLite changes ASCII letters only, MySQL every letter. */
function asciiCase(name: string, fn: string): FunctionHandler {
  return arity(name, 1, 1, (c, _n, [s]) => {
    if (s?.type !== 'string' || /[^ -~\t\n\r]/.test(String(s.value)))
      return c.unsupported(`${name} (SQLite changes the case of ASCII letters only)`);
    return `${fn}(${c.text(s)})`;
  });
}

export const sqliteFunctions: FunctionMap = {
  ...commonFunctions,
  ...timeFunctions('sqlite'),
  // SQLite has no regular expressions (a refusal, never PostgreSQL's syntax).
  REGEXP_REPLACE: (c) => c.unsupported('REGEXP_REPLACE'),
  REGEXP_LIKE: (c) => c.unsupported('REGEXP_LIKE'),
  REGEXP_SUBSTR: (c) => c.unsupported('REGEXP_SUBSTR'),
  LENGTH: textual('octet_length', 1, 1),
  OCTET_LENGTH: textual('octet_length', 1, 1),
  CHAR_LENGTH: textual('length', 1, 1),
  CHARACTER_LENGTH: textual('length', 1, 1),
  SUBSTRING: substringFn('substr', 'length'),
  SUBSTR: substringFn('substr', 'length'),
  MID: substringFn('substr', 'length'),
  LEFT: arity('LEFT', 2, 2, (c, _n, [s, n]) => `substr(${c.text(s)}, 1, ${nonNegative(c, n)})`),
  RIGHT: arity('RIGHT', 2, 2, (c, _n, [s, n]) => {
    const k = nonNegative(c, n);
    return `CASE WHEN ${k} = 0 THEN '' ELSE substr(${c.text(s)}, -(${k})) END`;
  }),
  LOCATE: locateFn((h, n) => `instr(${h}, ${n})`, 'substr'),
  INSTR: locateFn((h, n) => `instr(${h}, ${n})`, 'substr'),
  POSITION: locateFn((h, n) => `instr(${h}, ${n})`, 'substr'),
  LPAD: drop('LPAD'),
  // Written for PostgreSQL and DuckDB (make_date, to_hex, chr, date arithmetic): refused here.
  YEARWEEK: drop('YEARWEEK'),
  TO_DAYS: drop('TO_DAYS'),
  FROM_DAYS: drop('FROM_DAYS'),
  MAKEDATE: drop('MAKEDATE'),
  HEX: drop('HEX'),
  INSERT: drop('INSERT'),
  QUOTE: drop('QUOTE'),
  RPAD: drop('RPAD'),
  REVERSE: drop('REVERSE'),
  TRIM: trim,
  REPEAT: arity('REPEAT', 2, 2, (c, _n, [s, n]) => repeat(c, c.text(s), c.expr(n))),
  SPACE: arity('SPACE', 1, 1, (c, _n, [n]) => repeat(c, "' '", c.expr(n))),
  // unicode('') is NULL in SQLite; MySQL's ASCII('') is 0.
  ASCII: asciiFn((s) => `CASE WHEN ${s} = '' THEN 0 ELSE unicode(${s}) END`),
  ORD: ordFn((s) => `CASE WHEN ${s} = '' THEN 0 ELSE unicode(${s}) END`, 'INTEGER'),
  FORMAT: arity('FORMAT', 2, 3, (c, _n, [n, d]) => {
    const places = intLiteral(d);
    if (places === null || places < 0 || places > 30)
      return c.unsupported('FORMAT with a computed number of decimals');
    const v = c.num(n);
    const r = c.isApproximate(n) ? roundDouble(c, n, d, rintSqlite) : `round(${v}, ${places})`;
    return `CASE WHEN ${v} IS NULL THEN NULL ELSE printf(${c.lit(`%,.${places}f`)}, ${r}) END`;
  }),
  ROUND: arity('ROUND', 1, 2, (c, _n, [x, d]) => {
    // SQLite's round() takes no negative digits, and rounds a double half away from zero.
    const places = d ? intLiteral(d) : 0;
    if (places === null) return c.unsupported('ROUND to a computed number of digits');
    if (c.isApproximate(x)) return roundDouble(c, x, d, rintSqlite);
    if (places < 0) return `(round(${c.num(x)} / 1e${-places}) * 1e${-places})`;
    return d ? `round(${c.num(x)}, ${places})` : `round(${c.num(x)})`;
  }),
  TRUNCATE: drop('TRUNCATE'),
  POW: numeric('pow', 2, 2),
  POWER: numeric('pow', 2, 2),
  LOG10: logBaseFn((x) => `log10(${x})`),
  LOG2: logBaseFn((x) => `log2(${x})`),
  RAND: drop('RAND'),
  GREATEST: extreme('GREATEST', 'max'),
  LEAST: extreme('LEAST', 'min'),
  // SQLite's lower() and upper() change ASCII letters only.
  LOWER: asciiCase('LOWER', 'lower'),
  LCASE: asciiCase('LCASE', 'lower'),
  UPPER: asciiCase('UPPER', 'upper'),
  UCASE: asciiCase('UCASE', 'upper'),
  NOW: arity('NOW', 0, 0, () => `datetime('now')`),
  CURRENT_TIMESTAMP: arity('CURRENT_TIMESTAMP', 0, 0, () => `datetime('now')`),
  LOCALTIMESTAMP: arity('LOCALTIMESTAMP', 0, 0, () => `datetime('now')`),
  LOCALTIME: arity('LOCALTIME', 0, 0, () => `datetime('now')`),
  SYSDATE: arity('SYSDATE', 0, 0, () => `datetime('now')`),
  UTC_TIMESTAMP: arity('UTC_TIMESTAMP', 0, 0, () => `datetime('now')`),
  CURDATE: arity('CURDATE', 0, 0, () => `date('now')`),
  CURRENT_DATE: arity('CURRENT_DATE', 0, 0, () => `date('now')`),
  UTC_DATE: arity('UTC_DATE', 0, 0, () => `date('now')`),
  UTC_TIME: arity('UTC_TIME', 0, 0, () => `time('now')`),
  CURTIME: arity('CURTIME', 0, 0, () => `time('now')`),
  CURRENT_TIME: arity('CURRENT_TIME', 0, 0, () => `time('now')`),
  DATE: arity('DATE', 1, 1, (c, _n, [x]) => `date(${t(c, x)})`),
  TIME: arity('TIME', 1, 1, (c, _n, [x]) => `time(${t(c, x)})`),
  TIMESTAMP: timestampFn((c, x) => `datetime(${t(c, x)})`),
  BIT_LENGTH: arity('BIT_LENGTH', 1, 1, (c, _n, [s]) => `(8 * length(CAST(${c.text(s)} AS BLOB)))`),
  TO_BASE64: drop('TO_BASE64'),
  BIN: drop('BIN'),
  BIT_COUNT: drop('BIT_COUNT'),
  JSON_TYPE: drop('JSON_TYPE'),
  JSON_LENGTH: drop('JSON_LENGTH'),
  JSON_KEYS: drop('JSON_KEYS'),
  JSON_CONTAINS: drop('JSON_CONTAINS'),
  JSON_QUOTE: drop('JSON_QUOTE'),
  ...Object.fromEntries(PG_ONLY_JSON.map((name) => [name, drop(name)])),
  JSON_VALUE: drop('JSON_VALUE'),
  YEAR: part('%Y'),
  MONTH: part('%m'),
  DAY: part('%d'),
  DAYOFMONTH: part('%d'),
  HOUR: part('%H'),
  MINUTE: part('%M'),
  SECOND: part('%S'),
  DAYOFYEAR: part('%j'),
  DAYOFWEEK: part('%w', ' + 1'),
  WEEKDAY: arity('WEEKDAY', 1, 1, (c, _n, [x]) => `((CAST(strftime('%w', ${t(c, x)}) AS INTEGER) + 6) % 7)`),
  QUARTER: arity('QUARTER', 1, 1, (c, _n, [x]) => `((CAST(strftime('%m', ${t(c, x)}) AS INTEGER) + 2) / 3)`),
  WEEK: arity('WEEK', 1, 2, (c, _n, [x, mode]) => {
    const m = mode ? intLiteral(mode) : 0;
    if (m === 3) return `CAST(strftime('%V', ${t(c, x)}) AS INTEGER)`;
    if (m !== 0) return c.unsupported('WEEK with a mode other than 0 or 3');
    return `((CAST(strftime('%j', ${t(c, x)}) AS INTEGER) - CAST(strftime('%w', ${t(c, x)}) AS INTEGER) + 6) / 7)`;
  }),
  EXTRACT_WEEK: arity(
    'WEEK',
    1,
    1,
    (c, _n, [x]) =>
      `((CAST(strftime('%j', ${t(c, x)}) AS INTEGER) - CAST(strftime('%w', ${t(c, x)}) AS INTEGER) + 6) / 7)`,
  ),
  MONTHNAME: arity('MONTHNAME', 1, 1, (c, _n, [x]) => sqliteMonthName(t(c, x))),
  DAYNAME: arity('DAYNAME', 1, 1, (c, _n, [x]) => sqliteDayName(t(c, x))),
  LAST_DAY: arity(
    'LAST_DAY',
    1,
    1,
    (c, _n, [x]) => `date(${t(c, x)}, 'start of month', '+1 month', '-1 day')`,
  ),
  DATEDIFF: arity(
    'DATEDIFF',
    2,
    2,
    (c, _n, [a, b]) => `CAST(julianday(date(${t(c, a)})) - julianday(date(${t(c, b)})) AS INTEGER)`,
  ),
  TIMESTAMPDIFF: arity('TIMESTAMPDIFF', 3, 3, (c, _n, [u, a, b]) => {
    const unit = wordOf(u).toUpperCase();
    const secs: Record<string, number> = { SECOND: 1, MINUTE: 60, HOUR: 3600, DAY: 86400, WEEK: 604800 };
    if (!secs[unit]) return c.unsupported(`TIMESTAMPDIFF unit ${unit}`);
    return `((unixepoch(${t(c, b)}) - unixepoch(${t(c, a)})) / ${secs[unit]})`;
  }),
  DATE_FORMAT: arity('DATE_FORMAT', 2, 2, (c, _n, [d, f]) => {
    if (f?.type !== 'string') return c.unsupported('DATE_FORMAT with a computed format');
    try {
      return sqliteDateFormat(t(c, d), String(f.value), (s) => c.lit(s));
    } catch (e) {
      return c.unsupported((e as Error).message);
    }
  }),
  STR_TO_DATE: drop('STR_TO_DATE'),
  UNIX_TIMESTAMP: arity('UNIX_TIMESTAMP', 0, 1, (c, _n, [d]) =>
    d ? `unixepoch(${t(c, d)})` : `unixepoch('now')`,
  ),
  FROM_UNIXTIME: arity('FROM_UNIXTIME', 1, 1, (c, _n, [x]) => `datetime(${c.num(x)}, 'unixepoch')`),
  JSON_UNQUOTE: jsonUnquoteFn((c, x) => `(${c.expr(x)} ->> '$')`),
  JSON_OBJECT: plain('json_object'),
  JSON_ARRAY: plain('json_array'),
  STD: drop('STD'),
  STDDEV: drop('STDDEV'),
  STDDEV_POP: drop('STDDEV_POP'),
  STDDEV_SAMP: drop('STDDEV_SAMP'),
  VARIANCE: drop('VARIANCE'),
  VAR_POP: drop('VAR_POP'),
  VAR_SAMP: drop('VAR_SAMP'),
  BIT_AND: drop('BIT_AND'),
  BIT_OR: drop('BIT_OR'),
  BIT_XOR: drop('BIT_XOR'),
  SUBSTRING_INDEX: drop('SUBSTRING_INDEX'),
  FIND_IN_SET: drop('FIND_IN_SET'),
  MD5: drop('MD5'),
  SHA2: drop('SHA2'),
  UUID: drop('UUID'),
  COT: drop('COT'),
  JSON_ARRAYAGG: plain('json_group_array', 1, 1),
  JSON_OBJECTAGG: plain('json_group_object', 2, 2),
};
