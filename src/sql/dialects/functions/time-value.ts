/**
 * MySQL's TIME values and time zones where the targets have neither: TIMEDIFF, TIME_FORMAT
 * and CONVERT_TZ (Metabase's time-zone probe sends all three), and the functions of TIMEs,
 * seconds and periods (TIME_TO_SEC, SEC_TO_TIME, MAKETIME, MICROSECOND, ADDTIME, SUBTIME,
 * TO_SECONDS, PERIOD_ADD, PERIOD_DIFF). A MySQL TIME runs from
 * -838:59:59 to 838:59:59 while PostgreSQL's, DuckDB's and SQLite's stop at 24:00, so a
 * difference is computed as integer microseconds and written as MySQL's TIME text
 * (`-25:02:03`, a fraction only when there is one, six digits); the planner types such a
 * result column TIME (infer.ts resultTypes).
 *
 * CONVERT_TZ takes its zones as literals (after the wire face wrote `@@time_zone` in):
 * `SYSTEM` (UTC here, as `@@system_time_zone` says), an offset `+hh:mm` within MySQL 8's
 * -13:59..+14:00, or a zone name the time-zone database knows (as a MySQL server with its
 * time-zone tables loaded); anything else makes the result NULL, as MySQL's does. Like
 * MySQL, a value whose UTC time falls outside the TIMESTAMP range is returned unchanged.
 */
import type { Expr } from '../../ast/nodes.js';
import type { FunctionHandler, FunctionMap, SqlCompiler } from '../compiler.js';
import { splitMysqlFormat } from './date-format.js';

type C = SqlCompiler;

/** What differs per target: microsecond arithmetic and zone conversion. */
interface TimeDialect {
  /** a - b in integer microseconds, both datetimes. */
  diffMicros(c: C, a: Expr, b: Expr): string;
  /** A TIME value (or the time of day of a datetime, or TIME text) in signed microseconds. */
  timeMicros(c: C, x: Expr): string;
  least(a: string, b: string): string;
  /** Integer division of non-negative integers. */
  idiv(a: string, b: string): string;
  textType: string;
  /** The value as a timestamp the zone arithmetic below accepts. */
  ts(c: C, x: Expr): string;
  tsLiteral(s: string): string;
  shiftMinutes(ts: string, minutes: number): string;
  /** A timestamp moved by a signed number of microseconds (SQL). */
  shiftMicros(ts: string, micros: string): string;
  intType: string;
  /** Local time in `zone` → UTC and back; null where the target has no zone database. */
  zones: null | { toUtc(ts: string, zone: string): string; fromUtc(ts: string, zone: string): string };
}

const MAX_TIME_US = 3020399000000; // 838:59:59

// Own small helper: common.ts spreads this map into its own (as regexp.ts does).
function arity(name: string, min: number, max: number, h: FunctionHandler): FunctionHandler {
  return (c, node, args) =>
    args.length < min || args.length > max
      ? c.unsupported(
          `${name} with ${args.length} arguments (MySQL takes ${min === max ? min : `${min} to ${max}`})`,
        )
      : h(c, node, args);
}

type Temporal = 'time' | 'datetime' | null;

/** Whether MySQL reads an argument as a TIME or a DATETIME; null when it cannot be told. */
function temporalClass(c: C, x: Expr): Temporal {
  if (x?.type === 'string') {
    const s = String(x.value).trim();
    if (/^\d{2,4}-\d{1,2}-\d{1,2}/.test(s)) return 'datetime';
    if (/^-?\d+:\d{1,2}(:\d{1,2}(\.\d*)?)?$/.test(s)) return 'time';
    return null;
  }
  if (x?.type === 'function' && String(x.name).toUpperCase() === 'TIMEDIFF') return 'time';
  const k = c.kind(x);
  if (k === 'time') return 'time';
  if (k === 'date' || k === 'datetime') return 'datetime';
  return null;
}

/** Clipped absolute microseconds and the parts of a MySQL TIME, as SQL over `d` (signed microseconds). */
function timeParts(t: TimeDialect, d: string) {
  const a = t.least(`abs(${d})`, String(MAX_TIME_US));
  const hours = t.idiv(a, '3600000000');
  const minutes = `(${t.idiv(a, '60000000')} % 60)`;
  const seconds = `(${t.idiv(a, '1000000')} % 60)`;
  const micros = `(${a} % 1000000)`;
  const text = (x: string) => `CAST(${x} AS ${t.textType})`;
  const pad2 = (x: string) => `(CASE WHEN ${x} < 10 THEN '0' ELSE '' END || ${text(x)})`;
  const frac6 = `substr(${text(`${micros} + 1000000`)}, 2)`;
  // NULL when d is: every use below concatenates with it.
  const sign = `(CASE WHEN ${d} < 0 THEN '-' WHEN ${d} >= 0 THEN '' END)`;
  const h12 = `(CASE WHEN ${hours} % 12 = 0 THEN 12 ELSE ${hours} % 12 END)`;
  const ampm = `(CASE WHEN ${hours} % 24 >= 12 THEN 'PM' ELSE 'AM' END)`;
  return { hours, minutes, seconds, micros, text, pad2, frac6, sign, h12, ampm };
}

/** Signed microseconds of TIMEDIFF(a, b), or null when MySQL answers NULL (a TIME against a DATETIME). */
function timediffMicros(t: TimeDialect, c: C, a: Expr, b: Expr): string | null {
  const ka = temporalClass(c, a);
  const kb = temporalClass(c, b);
  if (ka && kb && ka !== kb) return null;
  if ((ka ?? kb) === 'time') return `(${timeMicros(t, c, a)} - ${timeMicros(t, c, b)})`;
  return t.diffMicros(c, a, b);
}

/** A TIME literal ('-100:05:06.5') in microseconds, or null. */
function literalMicros(x: Expr): number | null {
  if (x?.type !== 'string') return null;
  const m = /^(-)?(\d+):(\d{1,2})(?::(\d{1,2})(?:\.(\d{0,6}))?)?$/.exec(String(x.value).trim());
  if (!m) return null;
  const us =
    ((Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4] ?? 0)) * 1e6 + Number((m[5] ?? '').padEnd(6, '0'));
  return m[1] ? -us : us;
}

function timeMicros(t: TimeDialect, c: C, x: Expr): string {
  const known = literalMicros(x);
  if (known !== null) return `(${known})`;
  if (x?.type === 'function' && String(x.name).toUpperCase() === 'TIMEDIFF') {
    const [a, b] = x.args?.value ?? [];
    if (!a || !b || (x.args?.value?.length ?? 0) !== 2) return c.unsupported('TIMEDIFF needs 2 arguments');
    return timediffMicros(t, c, a, b) ?? 'CAST(NULL AS BIGINT)';
  }
  return t.timeMicros(c, x);
}

/** MySQL's TIME text of signed microseconds `d` (clipped to +-838:59:59). */
function timeText(t: TimeDialect, d: string): string {
  const p = timeParts(t, d);
  return `(${p.sign} || ${p.pad2(p.hours)} || ':' || ${p.pad2(p.minutes)} || ':' || ${p.pad2(p.seconds)} || CASE WHEN ${p.micros} > 0 THEN '.' || ${p.frac6} ELSE '' END)`;
}

function timediff(t: TimeDialect): FunctionHandler {
  return arity('TIMEDIFF', 2, 2, (c, _n, [a, b]) => {
    const d = timediffMicros(t, c, a, b);
    if (d === null) return `CAST(NULL AS ${t.textType})`;
    return timeText(t, d);
  });
}

/** Whole microseconds of a number of seconds. */
const micros = (t: TimeDialect, c: C, n: Expr) => `CAST(round((${c.num(n)}) * 1000000.0) AS ${t.intType})`;

/** Whole seconds of signed microseconds, truncated toward zero. */
const wholeSeconds = (t: TimeDialect, us: string) =>
  `(CASE WHEN ${us} < 0 THEN -${t.idiv(`-(${us})`, '1000000')} ELSE ${t.idiv(us, '1000000')} END)`;

const EPOCH: Expr = { type: 'string', value: '1970-01-01 00:00:00' } as Expr;
/** Seconds from year 0 (TO_SECONDS) to 1970-01-01. */
const YEAR0_TO_EPOCH = 62167219200;

/**
 * ADDTIME / SUBTIME (and TIMESTAMP(d, t)): a DATETIME moves by the TIME; a TIME gives a TIME.
 * MySQL answers NULL when the second argument is a DATETIME.
 */
function addTime(t: TimeDialect, name: string, sign: 1 | -1): FunctionHandler {
  return arity(name, 2, 2, (c, _n, [x, d]) => {
    if (temporalClass(c, d) === 'datetime') return `CAST(NULL AS ${t.textType})`;
    const us = timeMicros(t, c, d);
    const signed = sign === 1 ? us : `(-${us})`;
    const k = temporalClass(c, x);
    if (k === 'datetime') return t.shiftMicros(t.ts(c, x), signed);
    if (k === 'time') return timeText(t, `(${timeMicros(t, c, x)} + ${signed})`);
    return c.unsupported(`${name} of a value that is neither a DATETIME nor a TIME`);
  });
}

/** A period (YYMM or YYYYMM) as a count of months; YY below 70 is 20YY, as MySQL reads it. */
function periodMonths(t: TimeDialect, c: C, p: Expr): string {
  const v = `CAST(${c.num(p)} AS ${t.intType})`;
  const y0 = t.idiv(v, '100');
  const y = `(CASE WHEN ${y0} < 70 THEN ${y0} + 2000 WHEN ${y0} < 100 THEN ${y0} + 1900 ELSE ${y0} END)`;
  return `(${y} * 12 + (${v} % 100) - 1)`;
}

/** TIME_TO_SEC, SEC_TO_TIME, MAKETIME, MICROSECOND, ADDTIME, SUBTIME, TIMESTAMP(d, t), TO_SECONDS, PERIOD_ADD, PERIOD_DIFF. */
function moreTimeFunctions(t: TimeDialect): FunctionMap {
  return {
    TIME_TO_SEC: arity('TIME_TO_SEC', 1, 1, (c, _n, [x]) => wholeSeconds(t, timeMicros(t, c, x))),
    SEC_TO_TIME: arity('SEC_TO_TIME', 1, 1, (c, _n, [n]) => timeText(t, micros(t, c, n))),
    MAKETIME: arity('MAKETIME', 3, 3, (c, _n, [h, m, sec]) => {
      const hh = `CAST(${c.num(h)} AS ${t.intType})`;
      const mm = `CAST(${c.num(m)} AS ${t.intType})`;
      const ss = c.num(sec);
      const us = `((CASE WHEN ${hh} < 0 THEN -1 ELSE 1 END) * ((abs(${hh}) * 60 + ${mm}) * 60000000 + CAST(round(${ss} * 1000000) AS ${t.intType})))`;
      return `(CASE WHEN ${mm} < 0 OR ${mm} > 59 OR ${ss} < 0 OR ${ss} >= 60 THEN NULL ELSE ${timeText(t, us)} END)`;
    }),
    MICROSECOND: arity('MICROSECOND', 1, 1, (c, _n, [x]) => `(abs(${timeMicros(t, c, x)}) % 1000000)`),
    ADDTIME: addTime(t, 'ADDTIME', 1),
    SUBTIME: addTime(t, 'SUBTIME', -1),
    TO_SECONDS: arity(
      'TO_SECONDS',
      1,
      1,
      (c, _n, [x]) => `(${wholeSeconds(t, t.diffMicros(c, x, EPOCH))} + ${YEAR0_TO_EPOCH})`,
    ),
    PERIOD_ADD: arity('PERIOD_ADD', 2, 2, (c, _n, [p, n]) => {
      const total = `(${periodMonths(t, c, p)} + CAST(${c.num(n)} AS ${t.intType}))`;
      return `(${t.idiv(total, '12')} * 100 + ${total} % 12 + 1)`;
    }),
    PERIOD_DIFF: arity(
      'PERIOD_DIFF',
      2,
      2,
      (c, _n, [a, b]) => `(${periodMonths(t, c, a)} - ${periodMonths(t, c, b)})`,
    ),
  };
}

/** TIME_FORMAT's specifiers: the hour ones do not wrap at 24 (%H of 100:00:00 is 100). */
function timeFormat(t: TimeDialect): FunctionHandler {
  return arity('TIME_FORMAT', 2, 2, (c, _n, [x, f]) => {
    if (f?.type !== 'string') return c.unsupported('TIME_FORMAT with a computed format');
    const parts = splitMysqlFormat(String(f.value));
    const d = timeMicros(t, c, x);
    const p = timeParts(t, d);
    const hms = `${p.pad2(p.hours)} || ':' || ${p.pad2(p.minutes)} || ':' || ${p.pad2(p.seconds)}`;
    const spec: Record<string, string> = {
      H: p.pad2(p.hours),
      k: p.text(p.hours),
      h: p.pad2(p.h12),
      I: p.pad2(p.h12),
      l: p.text(p.h12),
      i: p.pad2(p.minutes),
      S: p.pad2(p.seconds),
      s: p.pad2(p.seconds),
      f: p.frac6,
      p: p.ampm,
      T: hms,
      r: `${p.pad2(p.h12)} || ':' || ${p.pad2(p.minutes)} || ':' || ${p.pad2(p.seconds)} || ' ' || ${p.ampm}`,
    };
    const out: string[] = [p.sign];
    for (const part of parts) {
      if ('lit' in part) out.push(c.lit(part.lit));
      else if (spec[part.spec]) out.push(spec[part.spec]);
      // A date specifier in a TIME's format: MySQL (MariaDB) answers NULL.
      else return `CAST(NULL AS ${t.textType})`;
    }
    // Typed text even when it folds to NULL (DuckDB types a NULL-folded `||` chain INTEGER).
    return `CAST((${out.join(' || ')}) AS ${t.textType})`;
  });
}

type Zone = { offset: number } | { name: string };

/** A CONVERT_TZ zone as MySQL reads it, or null (MySQL then answers NULL). */
export function parseZone(text: string): Zone | null {
  if (/^system$/i.test(text)) return { offset: 0 };
  const m = /^([+-])(\d{1,2}):(\d{2})$/.exec(text);
  if (m) {
    const minutes = Number(m[2]) * 60 + Number(m[3]);
    const signed = m[1] === '-' ? -minutes : minutes;
    if (Number(m[3]) > 59 || signed < -(13 * 60 + 59) || signed > 14 * 60) return null;
    return { offset: signed };
  }
  if (!/^[A-Za-z][\w+/-]*$/.test(text)) return null;
  try {
    return { name: new Intl.DateTimeFormat('en-US', { timeZone: text }).resolvedOptions().timeZone };
  } catch {
    return null;
  }
}

function convertTz(t: TimeDialect): FunctionHandler {
  return arity('CONVERT_TZ', 3, 3, (c, _n, [x, from, to]) => {
    if (from?.type !== 'string' || to?.type !== 'string')
      return c.unsupported('CONVERT_TZ with a time zone that is not a literal');
    const zf = parseZone(String(from.value));
    const zt = parseZone(String(to.value));
    const ts = t.ts(c, x);
    if (!zf || !zt) return `CAST(NULL AS ${c.timestampType})`;
    if ('offset' in zf && 'offset' in zt && zf.offset === zt.offset) return ts;
    const zones = t.zones;
    if (('name' in zf || 'name' in zt) && !zones) return c.unsupported('CONVERT_TZ with a named time zone');
    const utc = 'offset' in zf ? t.shiftMinutes(ts, -zf.offset) : zones!.toUtc(ts, c.lit(zf.name));
    const out = 'offset' in zt ? t.shiftMinutes(utc, zt.offset) : zones!.fromUtc(utc, c.lit(zt.name));
    // MySQL converts only within the TIMESTAMP range (UTC 1970-01-01 00:00:01 .. 2038-01-19 03:14:07.999999).
    return `CASE WHEN ${utc} >= ${t.tsLiteral('1970-01-01 00:00:01')} AND ${utc} < ${t.tsLiteral('2038-01-19 03:14:08')} THEN ${out} ELSE ${ts} END`;
  });
}

const pg: TimeDialect = {
  diffMicros: (c, a, b) => `CAST(round(EXTRACT(EPOCH FROM (${c.ts(a)} - ${c.ts(b)})) * 1000000) AS bigint)`,
  timeMicros: (c, x) => {
    const k = temporalClass(c, x);
    const v = k === 'datetime' ? `CAST(${c.ts(x)} AS time)` : k === 'time' ? c.expr(x) : c.text(x);
    return `CAST(round(EXTRACT(EPOCH FROM CAST(${v} AS interval)) * 1000000) AS bigint)`;
  },
  least: (a, b) => `least(${a}, ${b})`,
  idiv: (a, b) => `(${a} / ${b})`,
  textType: 'text',
  ts: (c, x) => c.ts(x),
  tsLiteral: (s) => `TIMESTAMP '${s}'`,
  shiftMinutes: (ts, m) => `(${ts} + INTERVAL '${m} minutes')`,
  shiftMicros: (ts, us) => `(${ts} + (${us}) * INTERVAL '1 microsecond')`,
  intType: 'bigint',
  zones: {
    toUtc: (ts, zone) => `((${ts}) AT TIME ZONE ${zone} AT TIME ZONE 'UTC')`,
    fromUtc: (ts, zone) => `((${ts}) AT TIME ZONE 'UTC' AT TIME ZONE ${zone})`,
  },
};

const duck: TimeDialect = {
  diffMicros: (c, a, b) => `(epoch_us(${c.ts(a)}) - epoch_us(${c.ts(b)}))`,
  timeMicros: (c, x) => {
    const k = temporalClass(c, x);
    const v =
      k === 'datetime'
        ? `epoch(CAST(${c.ts(x)} AS TIME))`
        : k === 'time' && x?.type !== 'string'
          ? `epoch(${c.expr(x)})`
          : `epoch(CAST(${c.text(x)} AS INTERVAL))`;
    return `CAST(round(${v} * 1000000) AS BIGINT)`;
  },
  least: (a, b) => `least(${a}, ${b})`,
  idiv: (a, b) => `(${a} // ${b})`,
  textType: 'VARCHAR',
  ts: (c, x) => c.ts(x),
  tsLiteral: (s) => `TIMESTAMP '${s}'`,
  shiftMinutes: (ts, m) => `(${ts} + INTERVAL '${m} minutes')`,
  shiftMicros: (ts, us) => `(${ts} + to_microseconds(${us}))`,
  intType: 'BIGINT',
  zones: {
    toUtc: (ts, zone) => `timezone('UTC', timezone(${zone}, ${ts}))`,
    fromUtc: (ts, zone) => `timezone(${zone}, timezone('UTC', ${ts}))`,
  },
};

/** SQLite: milliseconds (julianday), times within a day, offsets only. */
const lite: TimeDialect = {
  diffMicros: (c, a, b) =>
    `(CAST(round((julianday(${c.expr(a)}) - julianday(${c.expr(b)})) * 86400000) AS INTEGER) * 1000)`,
  timeMicros: (c, x) =>
    `(CAST(round((julianday(time(${c.expr(x)})) - julianday('00:00:00')) * 86400000) AS INTEGER) * 1000)`,
  least: (a, b) => `min(${a}, ${b})`,
  idiv: (a, b) => `(${a} / ${b})`,
  textType: 'TEXT',
  ts: (c, x) => `datetime(${c.expr(x)})`,
  tsLiteral: (s) => `'${s}'`,
  shiftMinutes: (ts, m) => `datetime(${ts}, '${m} minutes')`,
  shiftMicros: (ts, us) => `datetime(${ts}, printf('%+d seconds', (${us}) / 1000000))`,
  intType: 'INTEGER',
  zones: null,
};

export function timeFunctions(target: 'postgres' | 'duckdb' | 'sqlite'): FunctionMap {
  const t = target === 'postgres' ? pg : target === 'duckdb' ? duck : lite;
  return {
    TIMEDIFF: timediff(t),
    TIME_FORMAT: timeFormat(t),
    CONVERT_TZ: convertTz(t),
    ...moreTimeFunctions(t),
  };
}
