/**
 * MySQL functions in standard SQL, PostgreSQL-flavoured: the default map the base
 * compiler uses. Targets that say a function differently override entries (duckdb.ts,
 * sqlite.ts). A MySQL function missing from a target's map is refused by `canCompile`,
 * never passed through on the hope that it means the same thing.
 *
 * Several entries are factories taking the target's own names (char_length vs length,
 * strpos vs instr) so the MySQL semantics are written once.
 */
import { type Expr, type IntervalExpr, wordOf } from '../../ast/nodes.js';
import type { FunctionHandler, FunctionMap, SqlCompiler } from '../compiler.js';
import { formatHasTime, pgDateFormat, pgParseFormat } from './date-format.js';
import { getFormatFn } from './get-format.js';
import { jsonShapeFunctions } from './json-shape.js';
import { pgStrToDateNumeric } from './pg-safe-date.js';
import { regexpFunctions } from './regexp.js';
import { timeFunctions } from './time-value.js';

type C = SqlCompiler;

export function arity(name: string, min: number, max: number, h: FunctionHandler): FunctionHandler {
  return (c, node, args) => {
    if (args.length < min || args.length > max) {
      const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
      return c.unsupported(`${name} with ${args.length} arguments (MySQL takes ${want})`);
    }
    return h(c, node, args);
  };
}

/** name(args...) with every argument as a value. */
export function plain(sqlName: string, min = 0, max = Infinity): FunctionHandler {
  return arity(
    sqlName.toUpperCase(),
    min,
    max,
    (c, _n, args) => `${sqlName}(${args.map((a) => c.expr(a)).join(', ')})`,
  );
}

/** name(args...) with every argument cast to text. */
export function textual(sqlName: string, min = 1, max = Infinity): FunctionHandler {
  return arity(
    sqlName.toUpperCase(),
    min,
    max,
    (c, _n, args) => `${sqlName}(${args.map((a) => c.text(a)).join(', ')})`,
  );
}

/** name(args...) with every argument read as a number. */
export function numeric(sqlName: string, min = 1, max = Infinity): FunctionHandler {
  return arity(
    sqlName.toUpperCase(),
    min,
    max,
    (c, _n, args) => `${sqlName}(${args.map((a) => c.num(a)).join(', ')})`,
  );
}

/** A literal integer argument, or null. */
export function intLiteral(node: Expr | undefined): number | null {
  if (node?.type === 'number' && /^-?\d+$/.test(String(node.value))) return Number(node.value);
  if (node?.type === 'unary_expr' && node.operator === '-' && node.expr?.type === 'number') {
    const v = intLiteral(node.expr);
    return v === null ? null : -v;
  }
  return null;
}

/** MySQL treats a negative length as 0 (no characters). */
export function nonNegative(c: C, node: Expr): string {
  const v = intLiteral(node);
  if (v !== null) return String(Math.max(v, 0));
  const sql = c.expr(node);
  return `CASE WHEN ${sql} < 0 THEN 0 ELSE ${sql} END`;
}

/** SUBSTRING(s, pos[, len]) with MySQL's negative and zero positions. */
export function substringFn(substr: string, charLength: string): FunctionHandler {
  return arity('SUBSTRING', 2, 3, (c, _n, [s, pos, len]) => {
    const str = c.text(s);
    const l = len ? `, ${nonNegative(c, len)}` : '';
    const p = intLiteral(pos);
    if (p !== null) {
      if (p > 0) return `${substr}(${str}, ${p}${l})`;
      if (p === 0) return `CASE WHEN ${str} IS NULL THEN NULL ELSE '' END`;
      return `CASE WHEN ${charLength}(${str}) >= ${-p} THEN ${substr}(${str}, ${charLength}(${str}) - ${-p - 1}${l}) WHEN ${str} IS NULL THEN NULL ELSE '' END`;
    }
    const ps = c.expr(pos);
    return `CASE WHEN ${ps} > 0 THEN ${substr}(${str}, ${ps}${l}) WHEN ${ps} < 0 AND ${charLength}(${str}) >= -(${ps}) THEN ${substr}(${str}, ${charLength}(${str}) + ${ps} + 1${l}) WHEN ${str} IS NULL OR ${ps} IS NULL THEN NULL ELSE '' END`;
  });
}

/** LOCATE(sub, s[, pos]) / INSTR(s, sub) / POSITION(sub IN s): case-insensitive, 0 when absent. */
export function locateFn(strpos: (hay: string, needle: string) => string, substr: string): FunctionHandler {
  const core = (c: C, sub: Expr, s: Expr, pos?: Expr) => {
    const hay = `lower(${c.text(s)})`;
    const needle = `lower(${c.text(sub)})`;
    if (!pos) return strpos(hay, needle);
    const p = c.expr(pos);
    const found = strpos(`${substr}(${hay}, ${p})`, needle);
    return `CASE WHEN ${p} < 1 THEN 0 WHEN ${found} = 0 THEN 0 ELSE ${found} + ${p} - 1 END`;
  };
  return (c, node, args) => {
    const name = String(node.name);
    if (name === 'INSTR') {
      if (args.length !== 2) return c.unsupported('INSTR needs 2 arguments');
      return core(c, args[1], args[0]);
    }
    if (name === 'POSITION') {
      const a = args[0];
      if (args.length !== 1 || a?.type !== 'binary_expr' || String(a.operator).toUpperCase() !== 'IN') {
        return c.unsupported('POSITION without IN');
      }
      const hay = a.right?.type === 'expr_list' ? a.right.value?.[0] : a.right;
      return core(c, a.left, hay);
    }
    if (args.length < 2 || args.length > 3) return c.unsupported('LOCATE needs 2 or 3 arguments');
    return core(c, args[0], args[1], args[2]);
  };
}

export interface TrimParts {
  dir: 'BOTH' | 'LEADING' | 'TRAILING';
  chars: Expr | null;
  value: Expr;
}

/** TRIM([BOTH|LEADING|TRAILING] [remstr] FROM str) as node-sql-parser lists it. */
export function trimParts(c: C, args: Expr[]): TrimParts {
  const isKw = (a: Expr | undefined, ...w: string[]) =>
    a?.type === 'origin' && w.includes(String(a.value).toUpperCase());
  if (args.length === 1) return { dir: 'BOTH', chars: null, value: args[0] };
  let i = 0;
  let dir: TrimParts['dir'] = 'BOTH';
  if (isKw(args[0], 'BOTH', 'LEADING', 'TRAILING')) {
    dir = wordOf(args[0]).toUpperCase() as TrimParts['dir'];
    i++;
  }
  let chars: Expr | null = null;
  if (!isKw(args[i], 'FROM')) chars = args[i++];
  if (!isKw(args[i], 'FROM') || i + 2 !== args.length) return c.unsupported('this TRIM form');
  return { dir, chars, value: args[i + 1] };
}

/** The characters TRIM removes: MySQL removes a whole string; one character is the same as a set. */
export function trimChar(c: C, chars: Expr | null): string | null {
  if (!chars) return null;
  if (chars.type !== 'string' || [...String(chars.value)].length !== 1) {
    return c.unsupported('TRIM of a string longer than one character');
  }
  return c.lit(String(chars.value));
}

/**
 * TRIM of a literal string of several characters: MySQL removes repeats of the whole string
 * (case-sensitive), leading then trailing; said as anchored regular-expression replacements
 * (PostgreSQL's and DuckDB's regexp_replace). Null when the characters are not such a literal.
 */
export function trimSeveral(c: C, t: TrimParts): string | null {
  const chars = t.chars;
  if (chars?.type !== 'string' || [...String(chars.value)].length < 2) return null;
  const re = String(chars.value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let sql = c.text(t.value);
  if (t.dir !== 'TRAILING') sql = `regexp_replace(${sql}, ${c.lit(`^(?:${re})+`)}, '')`;
  if (t.dir !== 'LEADING') sql = `regexp_replace(${sql}, ${c.lit(`(?:${re})+$`)}, '')`;
  return sql;
}

const pgTrim: FunctionHandler = (c, _n, args) => {
  const t = trimParts(c, args);
  const several = trimSeveral(c, t);
  if (several) return several;
  const ch = trimChar(c, t.chars);
  return `trim(${t.dir} ${ch ? `${ch} ` : ''}FROM ${c.text(t.value)})`;
};

/**
 * GREATEST / LEAST are NULL when any argument is NULL in MySQL. Strings compare as MySQL's
 * collation compares them (LEAST('a', 'B') is 'a'): the first argument with the greatest
 * (least) fold.
 */
export function nullStrict(sqlName: string): FunctionHandler {
  return arity(sqlName.toUpperCase(), 2, Infinity, (c, _n, args) => {
    const vals = args.map((a) => c.expr(a));
    const anyNull = vals.map((v) => `${v} IS NULL`).join(' OR ');
    if (args.every((a) => c.folds(a))) {
      if (args.length > 4) return c.unsupported(`${sqlName.toUpperCase()} of more than 4 strings`);
      const cmp = sqlName === 'greatest' ? '>' : '<';
      let cur = vals[0];
      for (const v of vals.slice(1))
        cur = `CASE WHEN ${c.foldColumnSql(v)} ${cmp} ${c.foldColumnSql(cur)} THEN ${v} ELSE ${cur} END`;
      return `CASE WHEN ${anyNull} THEN NULL ELSE ${cur} END`;
    }
    return `CASE WHEN ${anyNull} THEN NULL ELSE ${sqlName}(${vals.join(', ')}) END`;
  });
}

const ifFn: FunctionHandler = arity('IF', 3, 3, (c, _n, [cond, a, b]) => {
  const [x, y] = c.unify([a, b]);
  return `CASE WHEN ${c.expr(cond, 'bool')} THEN ${x} ELSE ${y} END`;
});

const coalesce: FunctionHandler = arity(
  'COALESCE',
  1,
  Infinity,
  (c, _n, args) => `COALESCE(${c.unify(args).join(', ')})`,
);

const nullif: FunctionHandler = arity('NULLIF', 2, 2, (c, _n, [a, b]) => {
  if (c.foldStrings(a, b)) return `CASE WHEN ${c.compare('=', a, b)} THEN NULL ELSE ${c.expr(a)} END`;
  return `NULLIF(${c.expr(a)}, ${c.expr(b)})`;
});

const field: FunctionHandler = arity('FIELD', 2, Infinity, (c, _n, [x, ...list]) => {
  return `CASE ${list.map((v, i) => `WHEN ${c.compare('=', x, v)} THEN ${i + 1}`).join(' ')} ELSE 0 END`;
});

const elt: FunctionHandler = arity('ELT', 2, Infinity, (c, _n, [n, ...list]) => {
  const vals = c.unify(list);
  return `CASE ${c.expr(n)} ${vals.map((v, i) => `WHEN ${i + 1} THEN ${v}`).join(' ')} END`;
});

const strcmp: FunctionHandler = arity('STRCMP', 2, 2, (c, _n, [a, b]) => {
  const x = c.foldSql(a);
  const y = c.foldSql(b);
  return `CASE WHEN ${x} < ${y} THEN -1 WHEN ${x} > ${y} THEN 1 WHEN ${x} = ${y} THEN 0 END`;
});

/**
 * ASCII(s): MySQL's is the first byte of the string (195 for 'é'), 0 for ''. `codePoint` is
 * the target's code point of the first character; its first UTF-8 byte follows from it.
 */
export function asciiFn(codePoint: (s: string) => string): FunctionHandler {
  return arity('ASCII', 1, 1, (c, _n, [s]) => {
    const p = codePoint(c.text(s));
    return `CASE WHEN ${p} < 128 THEN ${p} WHEN ${p} < 2048 THEN 192 | (${p} >> 6) WHEN ${p} < 65536 THEN 224 | (${p} >> 12) ELSE 240 | (${p} >> 18) END`;
  });
}

/**
 * ORD(s): the bytes of the first character's UTF-8 as one number (50089 for 'é'), from its
 * code point, as BIGINT (a four-byte character passes 2^31).
 */
export function ordFn(codePoint: (s: string) => string, bigint: string): FunctionHandler {
  return arity('ORD', 1, 1, (c, _n, [s]) => {
    const p = `CAST(${codePoint(c.text(s))} AS ${bigint})`;
    const cont = (shift: number) => `(128 | ((${p} >> ${shift}) & 63))`;
    return `CASE WHEN ${p} < 128 THEN ${p} WHEN ${p} < 2048 THEN (192 | (${p} >> 6)) * 256 + ${cont(0)} WHEN ${p} < 65536 THEN (224 | (${p} >> 12)) * 65536 + ${cont(6)} * 256 + ${cont(0)} ELSE (240 | (${p} >> 18)) * 16777216 + ${cont(12)} * 65536 + ${cont(6)} * 256 + ${cont(0)} END`;
  });
}

/** FORMAT(n, d): rounded as ROUND rounds (a DOUBLE half to even), with thousands separators. */
const pgFormat: FunctionHandler = arity('FORMAT', 2, 3, (c, _n, [n, d]) => {
  const places = intLiteral(d);
  if (places === null || places < 0 || places > 30)
    return c.unsupported('FORMAT with a computed number of decimals');
  const pattern = `FM${'999,'.repeat(12)}990${places > 0 ? `.${'0'.repeat(places)}` : ''}`;
  const v = c.isApproximate(n) ? roundDouble(c, n, d, (x) => `round(${x})`) : c.expr(n);
  return `to_char(CAST(${v} AS numeric), ${c.lit(pattern)})`;
});

const sqrtFn: FunctionHandler = arity('SQRT', 1, 1, (c, _n, [x]) => {
  const v = c.num(x);
  return `CASE WHEN ${v} < 0 THEN NULL ELSE sqrt(${v}) END`;
});

/** LN / LOG: MySQL returns NULL outside the domain where the targets raise an error. */
export function lnFn(ln: string): FunctionHandler {
  return (c, node, args) => {
    if (String(node.name) === 'LOG' && args.length === 2) {
      const b = c.num(args[0]);
      const x = c.num(args[1]);
      return `CASE WHEN ${b} <= 0 OR ${b} = 1 OR ${x} <= 0 THEN NULL ELSE ${ln}(${x}) / ${ln}(${b}) END`;
    }
    if (args.length !== 1) return c.unsupported(`${String(node.name)} with ${args.length} arguments`);
    const x = c.num(args[0]);
    return `CASE WHEN ${x} <= 0 THEN NULL ELSE ${ln}(${x}) END`;
  };
}

export function logBaseFn(expr: (x: string) => string): FunctionHandler {
  return arity('LOG', 1, 1, (c, _n, [x]) => {
    const v = c.num(x);
    return `CASE WHEN ${v} <= 0 THEN NULL ELSE ${expr(v)} END`;
  });
}

/**
 * MySQL's ROUND of a DOUBLE (my_double_round): rint(x * 10^d) / 10^d, rint(x / 10^-d) * 10^-d
 * for negative d: half to even on the scaled value. `rint` is the target's half-to-even
 * rounding of a double (PostgreSQL's round(float8), DuckDB's roundbankers).
 */
export function roundDouble(c: C, x: Expr, d: Expr | undefined, rint: (v: string) => string): string {
  const v = `CAST(${c.num(x)} AS ${c.doubleType})`;
  const places = d ? intLiteral(d) : 0;
  if (places !== null) {
    if (places === 0) return rint(v);
    const p = `CAST(1e${Math.abs(places)} AS ${c.doubleType})`;
    return places > 0 ? `(${rint(`${v} * ${p}`)} / ${p})` : `(${rint(`${v} / ${p}`)} * ${p})`;
  }
  const n = c.expr(d as Expr);
  const p = `power(CAST(10 AS ${c.doubleType}), abs(${n}))`;
  return `CASE WHEN ${n} >= 0 THEN ${rint(`${v} * ${p}`)} / ${p} ELSE ${rint(`${v} / ${p}`)} * ${p} END`;
}

const roundPg: FunctionHandler = arity('ROUND', 1, 2, (c, _n, [x, d]) => {
  if (c.isApproximate(x)) return roundDouble(c, x, d, (v) => `round(${v})`);
  if (!d) return `round(${c.num(x)})`;
  return `round(CAST(${c.expr(x)} AS numeric), ${c.expr(d)})`;
});

const truncatePg: FunctionHandler = arity(
  'TRUNCATE',
  2,
  2,
  (c, _n, [x, d]) => `trunc(CAST(${c.expr(x)} AS numeric), ${c.expr(d)})`,
);

const modFn: FunctionHandler = arity('MOD', 2, 2, (c, _n, [a, b]) => c.mod(a, b));

// --- dates and times

/** The argument as something EXTRACT accepts (dates and times as they are, text cast). */
export function temporal(c: C, x: Expr): string {
  const k = c.kind(x);
  if (k === 'date' || k === 'datetime' || k === 'time') return c.expr(x);
  return `CAST(${c.expr(x)} AS ${c.timestampType})`;
}

/**
 * For HOUR / MINUTE / SECOND: a DATE is its midnight (PostgreSQL has no clock fields on a
 * date), and a string literal shaped as a time ('10:05:03') is a TIME, as MySQL reads it.
 */
function clockTemporal(c: C, x: Expr): string {
  if (x?.type === 'string' && /^\s*\d{1,2}:\d{1,2}(:\d{1,2}(\.\d*)?)?\s*$/.test(String(x.value)))
    return `CAST(${c.expr(x)} AS TIME)`;
  return c.kind(x) === 'date' ? `CAST(${c.expr(x)} AS ${c.timestampType})` : temporal(c, x);
}

function pgPart(field: string): FunctionHandler {
  const arg = field === 'HOUR' || field === 'MINUTE' ? clockTemporal : temporal;
  return arity(field, 1, 1, (c, _n, [x]) => `CAST(EXTRACT(${field} FROM ${arg(c, x)}) AS integer)`);
}

const pgWeek: FunctionHandler = arity('WEEK', 1, 2, (c, _n, [x, mode]) => {
  const m = mode ? intLiteral(mode) : 0;
  const t = temporal(c, x);
  if (m === 0) return `CAST(floor((EXTRACT(DOY FROM ${t}) - EXTRACT(DOW FROM ${t}) + 6) / 7) AS integer)`;
  if (m === 3) return `CAST(EXTRACT(WEEK FROM ${t}) AS integer)`;
  if (m === null || m < 0 || m > 7) return c.unsupported('WEEK with a computed mode');
  return mysqlWeek(c, x, m);
});

/**
 * WEEK(d, mode) for any mode, as MySQL's calc_week counts: the first day of the week (Sunday
 * or Monday), whether week 1 is the first with 4 days of the year or the first that starts in
 * it, and whether days before week 1 are week 0 or the last week of the year before (where
 * the last days of December may be week 1 of the next year).
 */
function mysqlWeek(c: C, x: Expr, mode: number): string {
  let b = mode & 7;
  if (!(b & 1)) b ^= 4;
  const mondayFirst = (b & 1) !== 0;
  const weekYear = (b & 2) !== 0;
  const firstWeekday = (b & 4) !== 0;
  const d = c.date(x);
  const year = `CAST(EXTRACT(YEAR FROM ${d}) AS integer)`;
  const jan1 = (y: string) => `make_date(${y}, 1, 1)`;
  const weekday = (day: string) =>
    mondayFirst
      ? `(CAST(EXTRACT(ISODOW FROM ${day}) AS integer) - 1)`
      : `CAST(EXTRACT(DOW FROM ${day}) AS integer)`;
  const days = (a: string, z: string) => `CAST((${a}) - (${z}) AS integer)`;
  const starts = (wd: string) => (firstWeekday ? `${wd} <> 0` : `${wd} >= 4`);
  /** The week of d counted in the year starting at `y1` (weekday `wd`, `n` days before d). */
  const counted = (y: string) => {
    const y1 = jan1(y);
    const wd = weekday(y1);
    const n = days(d, y1);
    const since = `(CASE WHEN ${starts(wd)} THEN ${n} - (7 - ${wd}) ELSE ${n} + ${wd} END)`;
    const week = `(CAST(floor(${since} / 7.0) AS integer) + 1)`;
    if (!weekYear) return week;
    const next = `CAST(EXTRACT(${mondayFirst ? 'ISODOW' : 'DOW'} FROM ${jan1(`${y} + 1`)}) AS integer)`;
    const nextWd = mondayFirst ? `(${next} - 1)` : next;
    const nextStarts = firstWeekday ? `${nextWd} = 0` : `${nextWd} < 4`;
    return `(CASE WHEN ${since} >= 364 AND ${nextStarts} THEN 1 ELSE ${week} END)`;
  };
  const wd = weekday(jan1(year));
  const early = `${days(d, jan1(year))} < 7 - ${wd}`;
  if (!weekYear) return `(CASE WHEN ${early} AND ${starts(wd)} THEN 0 ELSE ${counted(year)} END)`;
  return `(CASE WHEN ${d} IS NULL THEN NULL WHEN ${early} THEN ${counted(`${year} - 1`)} ELSE ${counted(year)} END)`;
}

/**
 * YEARWEEK(d[, mode]): mode 0 (MySQL's default) counts weeks from Sunday, a week belonging
 * to the year of its Sunday (the first week of a year is the one with its first Sunday);
 * modes 1 and 3 are ISO weeks.
 */
const yearWeek: FunctionHandler = arity('YEARWEEK', 1, 2, (c, _n, [x, mode]) => {
  const m = mode ? intLiteral(mode) : 0;
  const d = c.date(x);
  if (m === 0) {
    const sunday = `CAST(${d} - CAST(EXTRACT(DOW FROM ${d}) AS integer) AS DATE)`;
    return `(CAST(EXTRACT(YEAR FROM ${sunday}) AS integer) * 100 + CAST(floor((EXTRACT(DOY FROM ${sunday}) - 1) / 7) AS integer) + 1)`;
  }
  if (m === 1 || m === 3)
    return `(CAST(EXTRACT(ISOYEAR FROM ${d}) AS integer) * 100 + CAST(EXTRACT(WEEK FROM ${d}) AS integer))`;
  return c.unsupported('YEARWEEK with a mode other than 0, 1 or 3');
});

/** INSERT(str, pos, len, newstr): pos outside the string leaves it whole; a negative or long len replaces the rest. */
export function insertFn(charLength: string): FunctionHandler {
  return arity('INSERT', 4, 4, (c, _n, [s, p, l, r]) => {
    const str = c.text(s);
    const pos = `CAST(${c.num(p)} AS integer)`;
    const len = `CAST(${c.num(l)} AS integer)`;
    const rep = c.text(r);
    const head = `substr(${str}, 1, ${pos} - 1) || ${rep}`;
    return `CASE WHEN ${rep} IS NULL OR ${len} IS NULL THEN NULL WHEN ${pos} < 1 OR ${pos} > ${charLength}(${str}) THEN ${str} WHEN ${len} < 0 OR ${pos} + ${len} > ${charLength}(${str}) THEN ${head} ELSE ${head} || substr(${str}, ${pos} + ${len}) END`;
  });
}

/** QUOTE(s): a MySQL string literal of s (backslash, quote and Ctrl-Z escaped), the word NULL for NULL. */
const quoteFn: FunctionHandler = arity('QUOTE', 1, 1, (c, _n, [s]) => {
  const esc = `replace(replace(replace(${c.text(s)}, ${c.lit('\\')}, ${c.lit('\\\\')}), ${c.lit("'")}, ${c.lit("\\'")}), chr(26), ${c.lit('\\Z')})`;
  return `COALESCE(${c.lit("'")} || ${esc} || ${c.lit("'")}, 'NULL')`;
});

/** A call of a MySQL function, compiled through the target's own map by `c.expr`. */
export function call(name: string, args: Expr[]): Expr {
  return { type: 'function', name, args: { type: 'expr_list', value: args } } as Expr;
}

/** TIMESTAMP(x) as the target says it; TIMESTAMP(d, t) is ADDTIME(TIMESTAMP(d), t). */
export function timestampFn(one: (c: C, x: Expr) => string): FunctionHandler {
  return arity('TIMESTAMP', 1, 2, (c, _n, [x, t]) =>
    t ? c.expr(call('ADDTIME', [call('TIMESTAMP', [x]), t])) : one(c, x),
  );
}

/** DATE_ADD(d, INTERVAL n unit) / ADDDATE(d, n) and the SUB forms. */
export function dateAddFn(sign: 1 | -1): FunctionHandler {
  return arity('DATE_ADD', 2, 2, (c, _n, [d, iv]) => {
    const interval: IntervalExpr = iv?.type === 'interval' ? iv : { type: 'interval', expr: iv, unit: 'DAY' };
    return c.dateArith(d, interval, sign);
  });
}

const pgDateFormatFn: FunctionHandler = arity('DATE_FORMAT', 2, 2, (c, _n, [d, f]) => {
  if (f?.type !== 'string') return c.unsupported('DATE_FORMAT with a computed format');
  try {
    return pgDateFormat(temporal(c, d), String(f.value), (s) => c.lit(s));
  } catch (e) {
    return c.unsupported((e as Error).message);
  }
});

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/**
 * STR_TO_DATE(s, '%X%V %W') and '%x%v %W': the named day of a numbered week, the form
 * Metabase groups by week with (`STR_TO_DATE(CONCAT(YEARWEEK(d), ' Sunday'), '%X%V %W')`).
 * %X%V count weeks from Sunday, week 1 holding the year's first Sunday; %x%v are ISO weeks
 * (from Monday, week 1 holding January 4th). Null for any other format.
 */
export function weekDate(c: C, s: Expr, format: string): string | null {
  const m = /^%([Xx])%([Vv]) %W$/.exec(format);
  if (!m || (m[1] === 'X') !== (m[2] === 'V')) return null;
  const sunday = m[1] === 'X';
  const t = c.text(s);
  const year = `CAST(substr(${t}, 1, 4) AS integer)`;
  const week = `CAST(substr(${t}, 5, 2) AS integer)`;
  const name = `lower(ltrim(substr(${t}, 7)))`;
  const order = sunday ? ['sunday', ...WEEKDAYS.slice(0, 6)] : WEEKDAYS;
  const day = `(CASE ${name} ${order.map((d, i) => `WHEN '${d}' THEN ${i}`).join(' ')} END)`;
  const start = sunday
    ? `make_date(${year}, 1, 1) + (7 - CAST(EXTRACT(DOW FROM make_date(${year}, 1, 1)) AS integer)) % 7`
    : `make_date(${year}, 1, 4) - (CAST(EXTRACT(ISODOW FROM make_date(${year}, 1, 4)) AS integer) - 1)`;
  return `CAST(${start} + (${week} - 1) * 7 + ${day} AS DATE)`;
}

const pgStrToDate: FunctionHandler = arity('STR_TO_DATE', 2, 2, (c, _n, [s, f]) => {
  if (f?.type !== 'string') return c.unsupported('STR_TO_DATE with a computed format');
  const byWeek = weekDate(c, s, String(f.value));
  if (byWeek) return byWeek;
  const numeric = pgStrToDateNumeric(c.text(s), String(f.value), formatHasTime(String(f.value)), (v) =>
    c.lit(v),
  );
  if (numeric) return numeric;
  let pattern: string;
  try {
    pattern = pgParseFormat(String(f.value));
  } catch (e) {
    return c.unsupported((e as Error).message);
  }
  if (formatHasTime(String(f.value)))
    return `CAST(to_timestamp(${c.text(s)}, ${c.lit(pattern)}) AS timestamp)`;
  return `to_date(${c.text(s)}, ${c.lit(pattern)})`;
});

const pgTimestampDiff: FunctionHandler = arity('TIMESTAMPDIFF', 3, 3, (c, _n, [u, a, b]) => {
  const unit = wordOf(u).toUpperCase();
  const ta = c.ts(a);
  const tb = c.ts(b);
  const secs: Record<string, number> = { SECOND: 1, MINUTE: 60, HOUR: 3600, DAY: 86400, WEEK: 604800 };
  if (unit === 'MICROSECOND') return `CAST(trunc(EXTRACT(EPOCH FROM (${tb} - ${ta})) * 1000000) AS bigint)`;
  if (secs[unit]) return `CAST(trunc(EXTRACT(EPOCH FROM (${tb} - ${ta})) / ${secs[unit]}) AS bigint)`;
  const months: Record<string, number> = { MONTH: 1, QUARTER: 3, YEAR: 12 };
  if (months[unit]) {
    const age = `age(${tb}, ${ta})`;
    const m = `(EXTRACT(YEAR FROM ${age}) * 12 + EXTRACT(MONTH FROM ${age}))`;
    return `CAST(trunc(${m} / ${months[unit]}) AS bigint)`;
  }
  return c.unsupported(`TIMESTAMPDIFF unit ${unit}`);
});

const pgUnixTimestamp: FunctionHandler = arity('UNIX_TIMESTAMP', 0, 1, (c, _n, [d]) => {
  if (!d) return 'CAST(trunc(EXTRACT(EPOCH FROM now())) AS bigint)';
  return `CAST(trunc(EXTRACT(EPOCH FROM ${c.ts(d)})) AS bigint)`;
});

const pgFromUnixtime: FunctionHandler = arity('FROM_UNIXTIME', 1, 2, (c, n, [x, f]) => {
  const t = `CAST(to_timestamp(${c.num(x)}) AT TIME ZONE 'UTC' AS timestamp(0))`;
  if (!f) return t;
  if (f.type !== 'string') return c.unsupported('FROM_UNIXTIME with a computed format');
  try {
    return pgDateFormat(t, String(f.value), (s) => c.lit(s));
  } catch (e) {
    void n;
    return c.unsupported((e as Error).message);
  }
});

// --- JSON

export const jsonExtractFn: FunctionHandler = arity('JSON_EXTRACT', 2, 2, (c, _n, [j, p]) =>
  c.jsonExtract(j, p, false),
);

export function jsonUnquoteFn(fallback: (c: C, x: Expr) => string): FunctionHandler {
  return arity('JSON_UNQUOTE', 1, 1, (c, _n, [x]) => {
    if (x?.type === 'function' && x.name === 'JSON_EXTRACT' && x.args?.value?.length === 2) {
      return c.jsonExtract(x.args.value[0], x.args.value[1], true);
    }
    if (x?.type === 'binary_expr' && (x.operator === '->' || x.operator === '->>')) {
      return c.jsonExtract(x.left, x.right, true);
    }
    return fallback(c, x);
  });
}

// --- aggregates that node-sql-parser reads as plain functions, and window functions

export function aggregateFn(sqlName: string, min = 1, max = 1): FunctionHandler {
  return arity(
    sqlName.toUpperCase(),
    min,
    max,
    (c, _n, args) => `${sqlName}(${args.map((a) => c.num(a)).join(', ')})`,
  );
}

/** ASIN / ACOS: NULL outside [-1, 1], as MySQL answers (PostgreSQL and DuckDB raise an error). */
function inUnitRange(sqlName: string): FunctionHandler {
  return arity(sqlName.toUpperCase(), 1, 1, (c, _n, [x]) => {
    const v = c.num(x);
    return `CASE WHEN ${v} BETWEEN -1 AND 1 THEN ${sqlName}(${v}) END`;
  });
}

const windowFns: FunctionMap = {
  ROW_NUMBER: plain('row_number', 0, 0),
  RANK: plain('rank', 0, 0),
  DENSE_RANK: plain('dense_rank', 0, 0),
  PERCENT_RANK: plain('percent_rank', 0, 0),
  CUME_DIST: plain('cume_dist', 0, 0),
  NTILE: plain('ntile', 1, 1),
  LAG: plain('lag', 1, 3),
  LEAD: plain('lead', 1, 3),
  FIRST_VALUE: plain('first_value', 1, 1),
  LAST_VALUE: plain('last_value', 1, 1),
  NTH_VALUE: plain('nth_value', 2, 2),
};

/** SUBSTRING_INDEX(s, delim, n): the part before the n-th delimiter (after the -n-th from the end). */
export function substringIndexFn(
  slice: (parts: string, n: number) => string,
  split: string,
): FunctionHandler {
  return arity('SUBSTRING_INDEX', 3, 3, (c, _n, [s, d, count]) => {
    const n = intLiteral(count);
    if (n === null) return c.unsupported('SUBSTRING_INDEX with a computed count');
    const delim = c.text(d);
    if (n === 0) return `CASE WHEN ${c.text(s)} IS NULL OR ${delim} IS NULL THEN NULL ELSE '' END`;
    return `array_to_string(${slice(`${split}(${c.text(s)}, ${delim})`, n)}, ${delim})`;
  });
}

/** FIND_IN_SET(s, list): 1-based position in a comma list, compared case-insensitively; 0 when absent. */
export function findInSetFn(
  position: (list: string, item: string) => string,
  split: string,
): FunctionHandler {
  return arity('FIND_IN_SET', 2, 2, (c, _n, [x, list]) => {
    const item = c.text(x);
    const l = c.text(list);
    return `CASE WHEN ${item} IS NULL OR ${l} IS NULL THEN NULL ELSE COALESCE(${position(`${split}(lower(${l}), ',')`, `lower(${item})`)}, 0) END`;
  });
}

const pgSha2: FunctionHandler = arity('SHA2', 2, 2, (c, _n, [x, bits]) => {
  const b = intLiteral(bits);
  const fn =
    b === 0 || b === 256
      ? 'sha256'
      : b === 224
        ? 'sha224'
        : b === 384
          ? 'sha384'
          : b === 512
            ? 'sha512'
            : null;
  if (!fn) return c.unsupported('SHA2 with a computed or unknown bit length');
  return `encode(${fn}(convert_to(${c.text(x)}, 'UTF8')), 'hex')`;
});

/** CONVERT(x USING charset): text is already Unicode on the targets. */
const convertUsing: FunctionHandler = arity('CONVERT', 1, 1, (c, _n, [x]) => {
  if (typeof x?.suffix !== 'string' || !/^USING /i.test(x.suffix)) return c.unsupported('this CONVERT form');
  const { suffix: _s, ...plainNode } = x;
  return c.text(plainNode);
});

const concat: FunctionHandler = arity('CONCAT', 1, Infinity, (c, _n, args) =>
  args.length === 1 ? c.text(args[0]) : `(${args.map((a) => c.text(a)).join(' || ')})`,
);

export const commonFunctions: FunctionMap = {
  ...windowFns,
  GET_FORMAT: getFormatFn,
  // strings
  CONCAT: concat,
  CONCAT_WS: textual('concat_ws', 2),
  UPPER: textual('upper', 1, 1),
  UCASE: textual('upper', 1, 1),
  LOWER: textual('lower', 1, 1),
  LCASE: textual('lower', 1, 1),
  LENGTH: textual('octet_length', 1, 1),
  OCTET_LENGTH: textual('octet_length', 1, 1),
  CHAR_LENGTH: textual('char_length', 1, 1),
  INSERT: insertFn('char_length'),
  QUOTE: quoteFn,
  HEX: arity('HEX', 1, 1, (c, _n, [x]) => {
    const k = c.kind(x);
    if (k === 'number') return `upper(to_hex(CAST(round(${c.num(x)}) AS bigint)))`;
    if (k === 'string') return `upper(encode(convert_to(${c.text(x)}, 'UTF8'), 'hex'))`;
    return c.unsupported('HEX of a value that is neither a number nor text');
  }),
  CHARACTER_LENGTH: textual('char_length', 1, 1),
  SUBSTRING: substringFn('substr', 'char_length'),
  SUBSTR: substringFn('substr', 'char_length'),
  MID: substringFn('substr', 'char_length'),
  LEFT: arity('LEFT', 2, 2, (c, _n, [s, n]) => `left(${c.text(s)}, ${nonNegative(c, n)})`),
  RIGHT: arity('RIGHT', 2, 2, (c, _n, [s, n]) => `right(${c.text(s)}, ${nonNegative(c, n)})`),
  LOCATE: locateFn((h, n) => `strpos(${h}, ${n})`, 'substr'),
  INSTR: locateFn((h, n) => `strpos(${h}, ${n})`, 'substr'),
  POSITION: locateFn((h, n) => `strpos(${h}, ${n})`, 'substr'),
  LPAD: arity('LPAD', 3, 3, (c, _n, [s, n, p]) => `lpad(${c.text(s)}, ${c.expr(n)}, ${c.text(p)})`),
  RPAD: arity('RPAD', 3, 3, (c, _n, [s, n, p]) => `rpad(${c.text(s)}, ${c.expr(n)}, ${c.text(p)})`),
  REPLACE: textual('replace', 3, 3),
  ...regexpFunctions('postgres'),
  ...jsonShapeFunctions('postgres'),
  TRIM: pgTrim,
  LTRIM: textual('ltrim', 1, 1),
  RTRIM: textual('rtrim', 1, 1),
  REVERSE: textual('reverse', 1, 1),
  REPEAT: arity('REPEAT', 2, 2, (c, _n, [s, n]) => `repeat(${c.text(s)}, ${c.expr(n)})`),
  SPACE: arity('SPACE', 1, 1, (c, _n, [n]) => `repeat(' ', ${c.expr(n)})`),
  ASCII: asciiFn((s) => `ascii(${s})`),
  ORD: ordFn((s) => `ascii(${s})`, 'bigint'),
  FIELD: field,
  ELT: elt,
  STRCMP: strcmp,
  FORMAT: pgFormat,
  SUBSTRING_INDEX: substringIndexFn(
    (parts, n) => (n > 0 ? `(${parts})[1:${n}]` : `(${parts})[cardinality(${parts}) - ${-n - 1}:]`),
    'string_to_array',
  ),
  FIND_IN_SET: findInSetFn((list, item) => `array_position(${list}, ${item})`, 'string_to_array'),
  MD5: textual('md5', 1, 1),
  // The 64 bits of a BIGINT, as MySQL counts and prints them (a negative number is two's complement).
  BIN: arity(
    'BIN',
    1,
    1,
    (c, _n, [x]) =>
      `COALESCE(NULLIF(ltrim(CAST(CAST(CAST(${c.num(x)} AS bigint) AS bit(64)) AS text), '0'), ''), CASE WHEN ${c.num(x)} IS NOT NULL THEN '0' END)`,
  ),
  BIT_COUNT: arity(
    'BIT_COUNT',
    1,
    1,
    (c, _n, [x]) => `bit_count(CAST(CAST(${c.num(x)} AS bigint) AS bit(64)))`,
  ),
  BIT_LENGTH: arity('BIT_LENGTH', 1, 1, (c, _n, [s]) => `(8 * octet_length(${c.text(s)}))`),
  TO_BASE64: arity('TO_BASE64', 1, 1, (c, _n, [s]) => `encode(convert_to(${c.text(s)}, 'UTF8'), 'base64')`),
  SHA2: pgSha2,
  UUID: arity('UUID', 0, 0, () => 'CAST(gen_random_uuid() AS text)'),
  CONVERT: convertUsing,
  // numbers
  RADIANS: numeric('radians', 1, 1),
  DEGREES: numeric('degrees', 1, 1),
  SIN: numeric('sin', 1, 1),
  COS: numeric('cos', 1, 1),
  TAN: numeric('tan', 1, 1),
  COT: numeric('cot', 1, 1),
  ASIN: inUnitRange('asin'),
  ACOS: inUnitRange('acos'),
  ATAN: arity('ATAN', 1, 2, (c, _n, [a, b]) => (b ? `atan2(${c.num(a)}, ${c.num(b)})` : `atan(${c.num(a)})`)),
  ATAN2: numeric('atan2', 2, 2),
  ABS: numeric('abs', 1, 1),
  CEIL: numeric('ceil', 1, 1),
  CEILING: numeric('ceil', 1, 1),
  FLOOR: numeric('floor', 1, 1),
  SIGN: numeric('sign', 1, 1),
  EXP: numeric('exp', 1, 1),
  PI: plain('pi', 0, 0),
  RAND: arity('RAND', 0, 0, () => 'random()'),
  ROUND: roundPg,
  TRUNCATE: truncatePg,
  MOD: modFn,
  POW: numeric('power', 2, 2),
  POWER: numeric('power', 2, 2),
  SQRT: sqrtFn,
  LN: lnFn('ln'),
  LOG: lnFn('ln'),
  LOG10: logBaseFn((x) => `log(${x})`),
  LOG2: logBaseFn((x) => `log(2, CAST(${x} AS numeric))`),
  GREATEST: nullStrict('greatest'),
  LEAST: nullStrict('least'),
  // control flow and NULLs
  IF: ifFn,
  IFNULL: arity('IFNULL', 2, 2, coalesce),
  COALESCE: coalesce,
  NULLIF: nullif,
  ISNULL: arity('ISNULL', 1, 1, (c, _n, [x]) => `${c.operand(x)} IS NULL`),
  // dates and times
  NOW: arity('NOW', 0, 1, (c, _n, [p]) => `LOCALTIMESTAMP(${p ? c.expr(p) : 0})`),
  CURRENT_TIMESTAMP: arity('CURRENT_TIMESTAMP', 0, 1, (c, _n, [p]) => `LOCALTIMESTAMP(${p ? c.expr(p) : 0})`),
  LOCALTIMESTAMP: arity('LOCALTIMESTAMP', 0, 1, (c, _n, [p]) => `LOCALTIMESTAMP(${p ? c.expr(p) : 0})`),
  LOCALTIME: arity('LOCALTIME', 0, 1, (c, _n, [p]) => `LOCALTIMESTAMP(${p ? c.expr(p) : 0})`),
  SYSDATE: arity(
    'SYSDATE',
    0,
    1,
    (c, _n, [p]) => `CAST(clock_timestamp() AS timestamp(${p ? c.expr(p) : 0}))`,
  ),
  CURDATE: arity('CURDATE', 0, 0, () => 'CURRENT_DATE'),
  CURRENT_DATE: arity('CURRENT_DATE', 0, 0, () => 'CURRENT_DATE'),
  CURTIME: arity('CURTIME', 0, 1, (c, _n, [p]) => `LOCALTIME(${p ? c.expr(p) : 0})`),
  CURRENT_TIME: arity('CURRENT_TIME', 0, 1, (c, _n, [p]) => `LOCALTIME(${p ? c.expr(p) : 0})`),
  UTC_TIMESTAMP: arity('UTC_TIMESTAMP', 0, 0, () => `CAST(now() AT TIME ZONE 'UTC' AS timestamp(0))`),
  UTC_DATE: arity('UTC_DATE', 0, 0, () => `CAST(now() AT TIME ZONE 'UTC' AS date)`),
  UTC_TIME: arity('UTC_TIME', 0, 0, () => `CAST(date_trunc('second', now() AT TIME ZONE 'UTC') AS time)`),
  DATE: arity('DATE', 1, 1, (c, _n, [x]) => c.date(x)),
  TIME: arity('TIME', 1, 1, (c, _n, [x]) => `CAST(${c.expr(x)} AS TIME)`),
  TIMESTAMP: timestampFn((c, x) => c.ts(x)),
  WEEKOFYEAR: arity('WEEKOFYEAR', 1, 1, (c, _n, [x]) =>
    c.expr(call('WEEK', [x, { type: 'number', value: 3 }])),
  ),
  YEAR: pgPart('YEAR'),
  MONTH: pgPart('MONTH'),
  DAY: pgPart('DAY'),
  DAYOFMONTH: pgPart('DAY'),
  HOUR: pgPart('HOUR'),
  MINUTE: pgPart('MINUTE'),
  SECOND: arity(
    'SECOND',
    1,
    1,
    (c, _n, [x]) => `CAST(floor(EXTRACT(SECOND FROM ${clockTemporal(c, x)})) AS integer)`,
  ),
  QUARTER: pgPart('QUARTER'),
  DAYOFYEAR: pgPart('DOY'),
  DAYOFWEEK: arity(
    'DAYOFWEEK',
    1,
    1,
    (c, _n, [x]) => `(CAST(EXTRACT(DOW FROM ${temporal(c, x)}) AS integer) + 1)`,
  ),
  WEEKDAY: arity(
    'WEEKDAY',
    1,
    1,
    (c, _n, [x]) => `(CAST(EXTRACT(ISODOW FROM ${temporal(c, x)}) AS integer) - 1)`,
  ),
  WEEK: pgWeek,
  EXTRACT_WEEK: pgWeek,
  YEARWEEK: yearWeek,
  // Days since year 0, as MySQL counts them (TO_DAYS('0001-01-01') is 366).
  TO_DAYS: arity('TO_DAYS', 1, 1, (c, _n, [x]) => `(${c.date(x)} - DATE '0001-01-01' + 366)`),
  FROM_DAYS: arity(
    'FROM_DAYS',
    1,
    1,
    (c, _n, [x]) => `CAST(DATE '0001-01-01' + (CAST(${c.num(x)} AS integer) - 366) AS DATE)`,
  ),
  MAKEDATE: arity(
    'MAKEDATE',
    2,
    2,
    (c, _n, [y, d]) =>
      `CASE WHEN ${c.num(d)} > 0 THEN CAST(make_date(CAST(${c.num(y)} AS integer), 1, 1) + (CAST(${c.num(d)} AS integer) - 1) AS DATE) END`,
  ),
  MONTHNAME: arity('MONTHNAME', 1, 1, (c, _n, [x]) => `to_char(${temporal(c, x)}, 'FMMonth')`),
  DAYNAME: arity('DAYNAME', 1, 1, (c, _n, [x]) => `to_char(${temporal(c, x)}, 'FMDay')`),
  LAST_DAY: arity(
    'LAST_DAY',
    1,
    1,
    (c, _n, [x]) =>
      `CAST(date_trunc('month', ${temporal(c, x)}) + INTERVAL '1 month' - INTERVAL '1 day' AS DATE)`,
  ),
  DATEDIFF: arity('DATEDIFF', 2, 2, (c, _n, [a, b]) => `(${c.date(a)} - ${c.date(b)})`),
  TIMESTAMPDIFF: pgTimestampDiff,
  DATE_ADD: dateAddFn(1),
  ADDDATE: dateAddFn(1),
  DATE_SUB: dateAddFn(-1),
  SUBDATE: dateAddFn(-1),
  DATE_FORMAT: pgDateFormatFn,
  STR_TO_DATE: pgStrToDate,
  UNIX_TIMESTAMP: pgUnixTimestamp,
  FROM_UNIXTIME: pgFromUnixtime,
  ...timeFunctions('postgres'),
  // JSON
  JSON_EXTRACT: jsonExtractFn,
  JSON_UNQUOTE: jsonUnquoteFn((c, x) => `(CAST(${c.expr(x)} AS jsonb) #>> '{}')`),
  JSON_OBJECT: plain('jsonb_build_object'),
  JSON_ARRAY: plain('jsonb_build_array'),
  // aggregates read as functions
  STD: aggregateFn('stddev_pop'),
  STDDEV: aggregateFn('stddev_pop'),
  STDDEV_POP: aggregateFn('stddev_pop'),
  STDDEV_SAMP: aggregateFn('stddev_samp'),
  VARIANCE: aggregateFn('var_pop'),
  VAR_POP: aggregateFn('var_pop'),
  VAR_SAMP: aggregateFn('var_samp'),
  BIT_AND: aggregateFn('bit_and'),
  BIT_OR: aggregateFn('bit_or'),
  BIT_XOR: aggregateFn('bit_xor'),
  ANY_VALUE: plain('min', 1, 1),
  JSON_ARRAYAGG: plain('jsonb_agg', 1, 1),
  JSON_OBJECTAGG: plain('jsonb_object_agg', 2, 2),
};
