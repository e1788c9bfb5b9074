/**
 * Text to DATE / DATETIME on PostgreSQL the way MySQL reads it: an impossible or unreadable
 * date is NULL (MySQL warns), where PostgreSQL's CAST and to_date raise an error.
 *
 * The fields are cut out with a regular expression and the value is built by arithmetic
 * (`make_date(y, 1, 1) + make_interval(...)`), which cannot fail, behind a CASE that checks
 * the fields first. Nothing that can raise is ever evaluated: PostgreSQL folds constant
 * subexpressions while planning, even in a CASE branch that will not be taken, so
 * `CASE WHEN ok THEN CAST('2024-02-30' AS date) END` would still fail.
 */
import { splitMysqlFormat } from './date-format.js';

/** Which capture group of the pattern holds each field (1-based); absent fields are 0 / midnight. */
export interface DateGroups {
  year: number;
  /** The year has two digits: 70-99 are 19xx, 00-69 20xx, as MySQL reads %y. */
  shortYear?: boolean;
  month: number;
  day: number;
  hour?: number;
  minute?: number;
  second?: number;
  /** Digits of the fraction of a second, without the point. */
  fraction?: number;
}

/** `CASE WHEN <fields valid> THEN <date or timestamp> END` over `text` matched by `pattern`. */
export function pgSafeDate(
  text: string,
  pattern: string,
  g: DateGroups,
  withTime: boolean,
  lit: (s: string) => string,
): string {
  const match = `regexp_match(${text}, ${lit(pattern)})`;
  const field = (i: number | undefined) => (i ? `CAST((${match})[${i}] AS integer)` : '0');
  // A time the text leaves out is midnight; a date field it leaves out makes the value NULL.
  const clock = (i: number | undefined) => (i ? `COALESCE(${field(i)}, 0)` : '0');
  const rawYear = field(g.year);
  const y = g.shortYear ? `(CASE WHEN ${rawYear} < 70 THEN 2000 ELSE 1900 END + ${rawYear})` : rawYear;
  const m = field(g.month);
  const d = field(g.day);
  const first = `make_date(greatest(${y}, 1), 1, 1)`;
  const lastDay = `EXTRACT(DAY FROM ${first} + make_interval(months => ${m}) - interval '1 day')`;
  const checks = [`${m} BETWEEN 1 AND 12`, `${d} BETWEEN 1 AND ${lastDay}`, `${y} >= 1`];
  const date = `${first} + make_interval(months => ${m} - 1, days => ${d} - 1)`;
  if (!withTime) return `CASE WHEN ${checks.join(' AND ')} THEN CAST(${date} AS date) END`;
  const h = clock(g.hour);
  const mi = clock(g.minute);
  const s = clock(g.second);
  checks.push(`${h} <= 23`, `${mi} <= 59`, `${s} <= 59`);
  const frac = g.fraction
    ? ` + COALESCE(CAST(rpad((${match})[${g.fraction}], 6, '0') AS integer), 0) * interval '1 microsecond'`
    : '';
  const time = `make_interval(hours => ${h}, mins => ${mi}, secs => ${s})${frac}`;
  return `CASE WHEN ${checks.join(' AND ')} THEN CAST(${date} + ${time} AS timestamp) END`;
}

/** MySQL's own date and datetime text (`2024-02-29`, `2024/2/29 10:11:12.5`, `20240229`). */
export function pgCastDate(text: string, withTime: boolean, lit: (s: string) => string): string {
  // Separated form, or the 8/14-digit compact form; anything after what is read is ignored, as MySQL does with a warning.
  const sep =
    '^\\s*(\\d{4})[-/.](\\d{1,2})[-/.](\\d{1,2})(?:[ T](\\d{1,2}):(\\d{1,2})(?::(\\d{1,2})(?:\\.(\\d{1,6}))?)?)?';
  const compact = '^\\s*(\\d{4})(\\d{2})(\\d{2})(?:(\\d{2})(\\d{2})(\\d{2}))?(?:\\D|$)';
  const groups: DateGroups = { year: 1, month: 2, day: 3, hour: 4, minute: 5, second: 6, fraction: 7 };
  const compactGroups: DateGroups = { year: 1, month: 2, day: 3, hour: 4, minute: 5, second: 6 };
  const a = pgSafeDate(text, sep, groups, withTime, lit);
  const b = pgSafeDate(text, compact, compactGroups, withTime, lit);
  return `COALESCE(${a}, ${b})`;
}

const FIELD: Record<string, { re: string; field: keyof DateGroups | null }> = {
  Y: { re: '(\\d{4})', field: 'year' },
  y: { re: '(\\d{2})', field: 'year' },
  m: { re: '(\\d{1,2})', field: 'month' },
  c: { re: '(\\d{1,2})', field: 'month' },
  d: { re: '(\\d{1,2})', field: 'day' },
  e: { re: '(\\d{1,2})', field: 'day' },
  H: { re: '(\\d{1,2})', field: 'hour' },
  k: { re: '(\\d{1,2})', field: 'hour' },
  i: { re: '(\\d{1,2})', field: 'minute' },
  S: { re: '(\\d{1,2})', field: 'second' },
  s: { re: '(\\d{1,2})', field: 'second' },
  f: { re: '(\\d{1,6})', field: 'fraction' },
  '%': { re: '%', field: null },
};

/**
 * STR_TO_DATE(text, format) for a format of numeric fields only (%Y %y %m %c %d %e %H %k %i
 * %S %s %f %T and literal text), read as pgSafeDate reads; null for any other format (month
 * names, 12-hour clocks, day of year), which then takes to_date.
 */
export function pgStrToDateNumeric(
  text: string,
  format: string,
  withTime: boolean,
  lit: (s: string) => string,
): string | null {
  let re = '^\\s*';
  const g: Partial<DateGroups> = {};
  let n = 0;
  const take = (spec: string): boolean => {
    const f = FIELD[spec];
    if (!f) return false;
    re += f.re;
    if (f.field) {
      n++;
      if (g[f.field] !== undefined) return false;
      (g as Record<string, number | boolean>)[f.field] = n;
      if (spec === 'y') g.shortYear = true;
    }
    return true;
  };
  for (const p of splitMysqlFormat(format)) {
    if ('lit' in p) re += p.lit.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&').replace(/\s+/g, '\\s*');
    else if (p.spec === 'T') {
      if (!take('H')) return null;
      re += ':';
      if (!take('i')) return null;
      re += ':';
      if (!take('S')) return null;
    } else if (!take(p.spec)) return null;
  }
  if (!g.year || !g.month || !g.day) return null;
  return pgSafeDate(text, re, g as DateGroups, withTime, lit);
}
