/**
 * GET_FORMAT(DATE|TIME|DATETIME|TIMESTAMP, locale): MySQL's fixed table of format strings.
 * The first argument is a keyword the parser reads as a column name; MySQL is sent the
 * keyword itself, and other targets the table's string (a CASE on a computed locale).
 */
import { type Expr, wordOf } from '../../ast/nodes.js';
import type { FunctionHandler, SqlCompiler } from '../compiler.js';

const DATE = { USA: '%m.%d.%Y', JIS: '%Y-%m-%d', ISO: '%Y-%m-%d', EUR: '%d.%m.%Y', INTERNAL: '%Y%m%d' };
const DATETIME = {
  USA: '%Y-%m-%d %H.%i.%s',
  JIS: '%Y-%m-%d %H:%i:%s',
  ISO: '%Y-%m-%d %H:%i:%s',
  EUR: '%Y-%m-%d %H.%i.%s',
  INTERNAL: '%Y%m%d%H%i%s',
};
const TIME = { USA: '%h:%i:%s %p', JIS: '%H:%i:%s', ISO: '%H:%i:%s', EUR: '%H.%i.%s', INTERNAL: '%H%i%s' };
const FORMATS: Record<string, Record<string, string>> = { DATE, DATETIME, TIMESTAMP: DATETIME, TIME };

function twoArgs(c: SqlCompiler, args: Expr[]): [Expr, Expr] {
  if (args.length !== 2) return c.unsupported(`GET_FORMAT with ${args.length} arguments (MySQL takes 2)`);
  return [args[0], args[1]];
}

function kindWord(c: SqlCompiler, a: Expr): string {
  const w = a?.type === 'column_ref' && !a.table ? wordOf(a).toUpperCase() : '';
  if (!FORMATS[w]) return c.unsupported('GET_FORMAT of other than DATE, TIME, DATETIME, TIMESTAMP');
  return w;
}

/** The format string, or NULL for a locale MySQL does not know. */
export const getFormatFn: FunctionHandler = (c, _n, args) => {
  const [k, locale] = twoArgs(c, args);
  const table = FORMATS[kindWord(c, k)];
  if (locale?.type === 'string') {
    const f = table[String(locale.value).toUpperCase()];
    return f === undefined ? 'NULL' : c.lit(f);
  }
  const l = `upper(${c.text(locale)})`;
  return `CASE ${l} ${Object.entries(table)
    .map(([name, f]) => `WHEN ${c.lit(name)} THEN ${c.lit(f)}`)
    .join(' ')} END`;
};

/** On MySQL: the type keyword as a word, not a quoted name. */
export const getFormatMysql: FunctionHandler = (c, _n, args) => {
  const [k, locale] = twoArgs(c, args);
  return `GET_FORMAT(${kindWord(c, k)}, ${c.expr(locale)})`;
};
