/**
 * MySQL DATE_FORMAT / STR_TO_DATE format strings, translated per target. A format is cut
 * into literal text and `%x` specifiers; each target renders a specifier either inside its
 * own format function (to_char / strftime) or, where that function has no equivalent, as a
 * separate SQL expression concatenated in. Unknown or untranslatable specifiers throw with
 * the specifier named, so the caller can refuse the pushdown.
 */
export type FormatPart = { lit: string } | { spec: string };

export function splitMysqlFormat(fmt: string): FormatPart[] {
  const parts: FormatPart[] = [];
  let lit = '';
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i];
    if (ch === '%' && i + 1 < fmt.length) {
      const s = fmt[++i];
      if (!/[A-Za-z]/.test(s)) {
        lit += s; // `%%` and `%<other>` print the character itself
        continue;
      }
      if (lit) parts.push({ lit });
      lit = '';
      parts.push({ spec: s });
    } else lit += ch;
  }
  if (lit) parts.push({ lit });
  return parts;
}

/** `to_char` patterns for PostgreSQL; `null` = needs an expression (see PG_EXPR). */
const PG_TO_CHAR: Record<string, string> = {
  a: 'Dy',
  b: 'Mon',
  c: 'FMMM',
  D: 'FMDDth',
  d: 'DD',
  e: 'FMDD',
  f: 'US',
  H: 'HH24',
  h: 'HH12',
  I: 'HH12',
  i: 'MI',
  j: 'DDD',
  k: 'FMHH24',
  l: 'FMHH12',
  M: 'FMMonth',
  m: 'MM',
  p: 'AM',
  r: 'HH12:MI:SS AM',
  S: 'SS',
  s: 'SS',
  T: 'HH24:MI:SS',
  v: 'IW',
  W: 'FMDay',
  x: 'IYYY',
  Y: 'YYYY',
  y: 'YY',
};

/**
 * %u: WEEK(t, 1), weeks from Monday numbered 0-53, week 1 being the first with four or more
 * days of the year: `jan1` is the ISO weekday (Monday 1) of January 1st of t's year.
 */
function mondayWeek(t: string, jan1: string, text: string): string {
  return `lpad(CAST(CAST(floor((EXTRACT(DOY FROM ${t}) + ${jan1} - 2) / 7) + CASE WHEN ${jan1} <= 4 THEN 1 ELSE 0 END AS INTEGER) AS ${text}), 2, '0')`;
}

/** Specifiers with no `to_char` pattern, as SQL over the timestamp expression `t`. */
const PG_EXPR: Record<string, (t: string) => string> = {
  w: (t) => `CAST(EXTRACT(DOW FROM ${t}) AS text)`,
  U: (t) => `lpad(CAST(floor((EXTRACT(DOY FROM ${t}) - EXTRACT(DOW FROM ${t}) + 6) / 7) AS text), 2, '0')`,
  u: (t) => mondayWeek(t, `EXTRACT(ISODOW FROM date_trunc('year', ${t}))`, 'text'),
};

export function pgDateFormat(t: string, fmt: string, lit: (s: string) => string): string {
  const out: string[] = [];
  let pattern = '';
  const flush = () => {
    if (pattern) out.push(`to_char(${t}, ${lit(pattern)})`);
    pattern = '';
  };
  for (const p of splitMysqlFormat(fmt)) {
    if ('lit' in p) {
      if (/["\\]/.test(p.lit)) {
        flush();
        out.push(lit(p.lit));
      } else pattern += `"${p.lit}"`;
      continue;
    }
    const pat = PG_TO_CHAR[p.spec];
    if (pat !== undefined) {
      pattern += pat;
      continue;
    }
    const expr = PG_EXPR[p.spec];
    if (!expr) throw new Error(`DATE_FORMAT specifier %${p.spec}`);
    flush();
    out.push(expr(t));
  }
  flush();
  return joinParts(out, t, lit);
}

/** C-style strftime specifiers as DuckDB has them. */
const DUCK_STRFTIME: Record<string, string> = {
  a: '%a',
  b: '%b',
  c: '%-m',
  d: '%d',
  e: '%-d',
  f: '%f',
  H: '%H',
  h: '%I',
  I: '%I',
  i: '%M',
  j: '%j',
  k: '%-H',
  l: '%-I',
  M: '%B',
  m: '%m',
  p: '%p',
  r: '%I:%M:%S %p',
  S: '%S',
  s: '%S',
  T: '%H:%M:%S',
  U: '%U',
  v: '%V',
  W: '%A',
  w: '%w',
  x: '%G',
  Y: '%Y',
  y: '%y',
};

/** English ordinal day (1st, 2nd, 23rd, 11th) from a day-of-month SQL expression. */
function ordinalDay(day: string, text: string): string {
  return `(CAST(${day} AS ${text}) || CASE WHEN ${day} % 100 IN (11, 12, 13) THEN 'th' WHEN ${day} % 10 = 1 THEN 'st' WHEN ${day} % 10 = 2 THEN 'nd' WHEN ${day} % 10 = 3 THEN 'rd' ELSE 'th' END)`;
}

const DUCK_EXPR: Record<string, (t: string) => string> = {
  D: (t) => ordinalDay(`day(${t})`, 'VARCHAR'),
  u: (t) => mondayWeek(t, `isodow(date_trunc('year', ${t}))`, 'VARCHAR'),
};

export function duckDateFormat(t: string, fmt: string, lit: (s: string) => string): string {
  const out: string[] = [];
  let pattern = '';
  const flush = () => {
    if (pattern) out.push(`strftime(${t}, ${lit(pattern)})`);
    pattern = '';
  };
  for (const p of splitMysqlFormat(fmt)) {
    if ('lit' in p) {
      pattern += p.lit.replace(/%/g, '%%');
      continue;
    }
    const s = DUCK_STRFTIME[p.spec];
    if (s !== undefined) {
      pattern += s;
      continue;
    }
    const expr = DUCK_EXPR[p.spec];
    if (!expr) throw new Error(`DATE_FORMAT specifier %${p.spec}`);
    flush();
    out.push(expr(t));
  }
  flush();
  return joinParts(out, t, lit);
}

/** SQLite strftime(format, time): only the specifiers it prints the way MySQL does. */
const SQLITE_STRFTIME: Record<string, string> = {
  d: '%d',
  H: '%H',
  h: '%I',
  I: '%I',
  i: '%M',
  j: '%j',
  M: '%B',
  m: '%m',
  p: '%p',
  S: '%S',
  s: '%S',
  T: '%H:%M:%S',
  w: '%w',
  Y: '%Y',
};

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Month / weekday names for SQLite, whose strftime prints none. */
export function sqliteMonthName(t: string, abbrev = false): string {
  const arms = MONTHS.map((m, i) => `WHEN ${i + 1} THEN '${abbrev ? m.slice(0, 3) : m}'`).join(' ');
  return `CASE CAST(strftime('%m', ${t}) AS INTEGER) ${arms} END`;
}

export function sqliteDayName(t: string, abbrev = false): string {
  const arms = DAYS.map((d, i) => `WHEN ${i} THEN '${abbrev ? d.slice(0, 3) : d}'`).join(' ');
  return `CASE CAST(strftime('%w', ${t}) AS INTEGER) ${arms} END`;
}

const SQLITE_EXPR: Record<string, (t: string) => string> = {
  c: (t) => `CAST(CAST(strftime('%m', ${t}) AS INTEGER) AS TEXT)`,
  e: (t) => `CAST(CAST(strftime('%d', ${t}) AS INTEGER) AS TEXT)`,
  k: (t) => `CAST(CAST(strftime('%H', ${t}) AS INTEGER) AS TEXT)`,
  M: (t) => sqliteMonthName(t),
  b: (t) => sqliteMonthName(t, true),
  W: (t) => sqliteDayName(t),
  a: (t) => sqliteDayName(t, true),
  y: (t) => `substr(strftime('%Y', ${t}), 3, 2)`,
};

export function sqliteDateFormat(t: string, fmt: string, lit: (s: string) => string): string {
  const out: string[] = [];
  let pattern = '';
  const flush = () => {
    if (pattern) out.push(`strftime(${lit(pattern)}, ${t})`);
    pattern = '';
  };
  for (const p of splitMysqlFormat(fmt)) {
    if ('lit' in p) {
      pattern += p.lit.replace(/%/g, '%%');
      continue;
    }
    const s = SQLITE_STRFTIME[p.spec];
    if (s !== undefined) {
      pattern += s;
      continue;
    }
    const expr = SQLITE_EXPR[p.spec];
    if (!expr) throw new Error(`DATE_FORMAT specifier %${p.spec}`);
    flush();
    out.push(expr(t));
  }
  flush();
  return joinParts(out, t, lit);
}

function joinParts(out: string[], t: string, lit: (s: string) => string): string {
  if (out.length === 0) return `CASE WHEN ${t} IS NULL THEN NULL ELSE ${lit('')} END`;
  return out.length === 1 ? out[0] : `(${out.join(' || ')})`;
}

/** Does the format carry a time of day (STR_TO_DATE then returns DATETIME, else DATE)? */
export function formatHasTime(fmt: string): boolean {
  return splitMysqlFormat(fmt).some((p) => 'spec' in p && /[HhIiklSsTrpf]/.test(p.spec));
}

const PG_PARSE: Record<string, string> = {
  Y: 'YYYY',
  y: 'YY',
  m: 'MM',
  c: 'MM',
  d: 'DD',
  e: 'DD',
  H: 'HH24',
  k: 'HH24',
  h: 'HH12',
  I: 'HH12',
  l: 'HH12',
  i: 'MI',
  S: 'SS',
  s: 'SS',
  f: 'US',
  p: 'AM',
  b: 'Mon',
  M: 'Month',
  T: 'HH24:MI:SS',
  j: 'DDD',
};

export function pgParseFormat(fmt: string): string {
  let out = '';
  for (const p of splitMysqlFormat(fmt)) {
    if ('lit' in p) {
      if (/["\\]/.test(p.lit)) throw new Error('STR_TO_DATE format with quotes or backslashes');
      out += `"${p.lit}"`;
    } else {
      const s = PG_PARSE[p.spec];
      if (!s) throw new Error(`STR_TO_DATE specifier %${p.spec}`);
      out += s;
    }
  }
  return out;
}

const DUCK_PARSE: Record<string, string> = {
  Y: '%Y',
  y: '%y',
  m: '%m',
  c: '%m',
  d: '%d',
  e: '%d',
  H: '%H',
  k: '%H',
  h: '%I',
  I: '%I',
  l: '%I',
  i: '%M',
  S: '%S',
  s: '%S',
  f: '%f',
  p: '%p',
  b: '%b',
  M: '%B',
  T: '%H:%M:%S',
  j: '%j',
  a: '%a',
  W: '%A',
};

export function duckParseFormat(fmt: string): string {
  let out = '';
  for (const p of splitMysqlFormat(fmt)) {
    if ('lit' in p) out += p.lit.replace(/%/g, '%%');
    else {
      const s = DUCK_PARSE[p.spec];
      if (!s) throw new Error(`STR_TO_DATE specifier %${p.spec}`);
      out += s;
    }
  }
  return out;
}
