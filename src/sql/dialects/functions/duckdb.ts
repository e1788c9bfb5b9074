/** DuckDB's spellings where they differ from the default (PostgreSQL-flavoured) map. */
import type { FunctionHandler, FunctionMap } from '../compiler.js';
import {
  aggregateFn,
  arity,
  commonFunctions,
  findInSetFn,
  insertFn,
  intLiteral,
  jsonUnquoteFn,
  locateFn,
  logBaseFn,
  numeric,
  plain,
  roundDouble,
  substringFn,
  substringIndexFn,
  temporal,
  textual,
  trimChar,
  trimParts,
  trimSeveral,
  weekDate,
} from './common.js';
import { duckDateFormat, duckParseFormat, formatHasTime } from './date-format.js';
import { jsonShapeFunctions } from './json-shape.js';
import { regexpFunctions } from './regexp.js';
import { timeFunctions } from './time-value.js';

const now = (_c: Parameters<FunctionHandler>[0], p: unknown) =>
  p ? 'current_localtimestamp()' : `date_trunc('second', current_localtimestamp())`;

const trim: FunctionHandler = (c, _n, args) => {
  const t = trimParts(c, args);
  const several = trimSeveral(c, t);
  if (several) return several;
  const ch = trimChar(c, t.chars);
  const fn = t.dir === 'LEADING' ? 'ltrim' : t.dir === 'TRAILING' ? 'rtrim' : 'trim';
  return `${fn}(${c.text(t.value)}${ch ? `, ${ch}` : ''})`;
};

const format: FunctionHandler = arity('FORMAT', 2, 3, (c, _n, [n, d]) => {
  const places = intLiteral(d);
  if (places === null || places < 0 || places > 30)
    return c.unsupported('FORMAT with a computed number of decimals');
  const v = c.isApproximate(n)
    ? roundDouble(c, n, d, (x) => `roundbankers(${x}, 0)`)
    : `CAST(round(CAST(${c.expr(n)} AS DECIMAL(38, 10)), ${places}) AS DOUBLE)`;
  return `printf(${c.lit(`%,.${places}f`)}, ${v})`;
});

const dateFormat: FunctionHandler = arity('DATE_FORMAT', 2, 2, (c, _n, [d, f]) => {
  if (f?.type !== 'string') return c.unsupported('DATE_FORMAT with a computed format');
  try {
    return duckDateFormat(temporal(c, d), String(f.value), (s) => c.lit(s));
  } catch (e) {
    return c.unsupported((e as Error).message);
  }
});

const strToDate: FunctionHandler = arity('STR_TO_DATE', 2, 2, (c, _n, [s, f]) => {
  if (f?.type !== 'string') return c.unsupported('STR_TO_DATE with a computed format');
  const byWeek = weekDate(c, s, String(f.value));
  if (byWeek) return byWeek;
  let pattern: string;
  try {
    pattern = duckParseFormat(String(f.value));
  } catch (e) {
    return c.unsupported((e as Error).message);
  }
  const parsed = `try_strptime(${c.text(s)}, ${c.lit(pattern)})`;
  return formatHasTime(String(f.value)) ? parsed : `CAST(${parsed} AS DATE)`;
});

const fromUnixtime: FunctionHandler = arity('FROM_UNIXTIME', 1, 2, (c, _n, [x, f]) => {
  const t = `make_timestamp(CAST(CAST(${c.num(x)} AS DOUBLE) * 1000000 AS BIGINT))`;
  if (!f) return t;
  if (f.type !== 'string') return c.unsupported('FROM_UNIXTIME with a computed format');
  try {
    return duckDateFormat(t, String(f.value), (s) => c.lit(s));
  } catch (e) {
    return c.unsupported((e as Error).message);
  }
});

export const duckdbFunctions: FunctionMap = {
  ...commonFunctions,
  ...regexpFunctions('duckdb'),
  ...jsonShapeFunctions('duckdb'),
  JSON_KEYS: arity('JSON_KEYS', 1, 2, (c) =>
    c.unsupported("JSON_KEYS (DuckDB keeps a document's key order, MySQL sorts them)"),
  ),
  JSON_CONTAINS: arity('JSON_CONTAINS', 2, 3, (c) => c.unsupported('function JSON_CONTAINS')),
  ...timeFunctions('duckdb'),
  LENGTH: textual('strlen', 1, 1),
  OCTET_LENGTH: textual('strlen', 1, 1),
  CHAR_LENGTH: textual('length', 1, 1),
  INSERT: insertFn('length'),
  HEX: arity('HEX', 1, 1, (c, _n, [x]) => {
    const k = c.kind(x);
    if (k === 'number') return `upper(hex(CAST(round(${c.num(x)}) AS BIGINT)))`;
    if (k === 'string') return `upper(hex(${c.text(x)}))`;
    return c.unsupported('HEX of a value that is neither a number nor text');
  }),
  CHARACTER_LENGTH: textual('length', 1, 1),
  SUBSTRING: substringFn('substr', 'length'),
  SUBSTR: substringFn('substr', 'length'),
  MID: substringFn('substr', 'length'),
  LOCATE: locateFn((h, n) => `strpos(${h}, ${n})`, 'substr'),
  INSTR: locateFn((h, n) => `strpos(${h}, ${n})`, 'substr'),
  POSITION: locateFn((h, n) => `strpos(${h}, ${n})`, 'substr'),
  TRIM: trim,
  FORMAT: format,
  ROUND: arity('ROUND', 1, 2, (c, _n, [x, d]) => {
    if (c.isApproximate(x)) return roundDouble(c, x, d, (v) => `roundbankers(${v}, 0)`);
    return d ? `round(${c.num(x)}, ${c.expr(d)})` : `round(${c.num(x)})`;
  }),
  TRUNCATE: arity('TRUNCATE', 2, 2, (c, _n, [x, d]) => `trunc(${c.num(x)}, ${c.expr(d)})`),
  POW: numeric('pow', 2, 2),
  POWER: numeric('pow', 2, 2),
  LOG10: logBaseFn((x) => `log10(${x})`),
  LOG2: logBaseFn((x) => `log2(${x})`),
  NOW: arity('NOW', 0, 1, (c, _n, [p]) => now(c, p)),
  CURRENT_TIMESTAMP: arity('CURRENT_TIMESTAMP', 0, 1, (c, _n, [p]) => now(c, p)),
  LOCALTIMESTAMP: arity('LOCALTIMESTAMP', 0, 1, (c, _n, [p]) => now(c, p)),
  LOCALTIME: arity('LOCALTIME', 0, 1, (c, _n, [p]) => now(c, p)),
  SYSDATE: arity('SYSDATE', 0, 1, (c, _n, [p]) => now(c, p)),
  CURTIME: arity('CURTIME', 0, 1, (c, _n, [p]) => `CAST(${now(c, p)} AS TIME)`),
  CURRENT_TIME: arity('CURRENT_TIME', 0, 1, (c, _n, [p]) => `CAST(${now(c, p)} AS TIME)`),
  UTC_TIMESTAMP: arity(
    'UTC_TIMESTAMP',
    0,
    0,
    () => `date_trunc('second', timezone('UTC', current_timestamp))`,
  ),
  UTC_DATE: arity('UTC_DATE', 0, 0, () => `CAST(timezone('UTC', current_timestamp) AS DATE)`),
  UTC_TIME: arity(
    'UTC_TIME',
    0,
    0,
    () => `CAST(date_trunc('second', timezone('UTC', current_timestamp)) AS TIME)`,
  ),
  // A negative number is its 64-bit two's complement: 2^64 + n is 8^21 + (8^21 + n), one digit then 21.
  // (Both branches are computed: the low part stays in BIGINT for any n.)
  OCT: arity('OCT', 1, 1, (c, _n, [x]) => {
    const n = `CAST(trunc(${c.num(x)}) AS BIGINT)`;
    const low = `CAST((CAST(${n} AS HUGEINT) + 9223372036854775808) % 9223372036854775808 AS BIGINT)`;
    return `CASE WHEN ${n} >= 0 THEN to_base(${n}, 8) ELSE '1' || lpad(to_base(${low}, 8), 21, '0') END`;
  }),
  MONTHNAME: arity('MONTHNAME', 1, 1, (c, _n, [x]) => `monthname(${temporal(c, x)})`),
  DAYNAME: arity('DAYNAME', 1, 1, (c, _n, [x]) => `dayname(${temporal(c, x)})`),
  LAST_DAY: arity('LAST_DAY', 1, 1, (c, _n, [x]) => `last_day(${c.date(x)})`),
  DATE_FORMAT: dateFormat,
  STR_TO_DATE: strToDate,
  UNIX_TIMESTAMP: arity('UNIX_TIMESTAMP', 0, 1, (c, _n, [d]) =>
    d ? `CAST(trunc(epoch(${c.ts(d)})) AS BIGINT)` : 'CAST(trunc(epoch(current_timestamp)) AS BIGINT)',
  ),
  FROM_UNIXTIME: fromUnixtime,
  JSON_UNQUOTE: jsonUnquoteFn((c, x) => `json_extract_string(${c.expr(x)}, '$')`),
  JSON_OBJECT: plain('json_object'),
  JSON_ARRAY: plain('json_array'),
  ANY_VALUE: plain('any_value', 1, 1),
  JSON_ARRAYAGG: plain('json_group_array', 1, 1),
  JSON_OBJECTAGG: plain('json_group_object', 2, 2),
  BIT_XOR: aggregateFn('bit_xor'),
  SUBSTRING_INDEX: substringIndexFn(
    (parts, n) => (n > 0 ? `${parts}[1:${n}]` : `${parts}[${n}:]`),
    'string_split',
  ),
  FIND_IN_SET: findInSetFn((list, item) => `list_position(${list}, ${item})`, 'string_split'),
  SHA2: arity('SHA2', 2, 2, (c, _n, [x, bits]) => {
    const b = intLiteral(bits);
    if (b !== 0 && b !== 256) return c.unsupported('SHA2 with a bit length other than 256');
    return `sha256(${c.text(x)})`;
  }),
  UUID: arity('UUID', 0, 0, () => 'CAST(uuid() AS VARCHAR)'),
  BIN: arity('BIN', 1, 1, (c, _n, [x]) => `bin(CAST(${c.num(x)} AS BIGINT))`),
  BIT_COUNT: arity('BIT_COUNT', 1, 1, (c, _n, [x]) => `bit_count(CAST(${c.num(x)} AS BIGINT))`),
  SHA1: arity('SHA1', 1, 1, (c, _n, [s]) => `sha1(${c.text(s)})`),
  SHA: arity('SHA', 1, 1, (c, _n, [s]) => `sha1(${c.text(s)})`),
  BIT_LENGTH: arity('BIT_LENGTH', 1, 1, (c, _n, [s]) => `(8 * strlen(${c.text(s)}))`),
  TO_BASE64: arity('TO_BASE64', 1, 1, (c, _n, [s]) => `to_base64(encode(${c.text(s)}))`),
  ATAN: arity('ATAN', 1, 2, (c, _n, [a, b]) => (b ? `atan2(${c.num(a)}, ${c.num(b)})` : `atan(${c.num(a)})`)),
};
