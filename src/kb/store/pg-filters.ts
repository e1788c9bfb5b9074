import type { CanonicalValue } from '../../core/types.js';
import { ACCENTED, mysqlStringToNumber, UNACCENTED } from '../../sql/dialects/support.js';
import { dateKey, foldText, type ResolvedCondition, type ResolvedFilter } from '../filters.js';

/**
 * Conditions as one SQL condition over a chunk table aliased `c` (kb/store/pg.ts), with the
 * semantics of `predicate` in kb/filters.ts for each column's kind: numbers compare as
 * numbers, dates as dates (one comparable text, `YYYY-MM-DD HH:MM:SS.ffffff`), text under
 * MySQL's default collation (upper case, base letters, trailing spaces ignored; `<`/`>` by
 * code point of that key, as MySQL's weights order it); NULL matches no comparison; LIKE
 * folds case and accents, `\` escapes. Values and metadata keys are bound parameters, pushed
 * onto `params`: no value ever becomes SQL text.
 */
export function filterSql(filters: ResolvedCondition[], params: unknown[]): string {
  if (filters.length === 0) return 'TRUE';
  return filters.map((f) => `(${tree(f, params)})`).join(' AND ');
}

function tree(c: ResolvedCondition, params: unknown[]): string {
  if ('and' in c) return c.and.length ? c.and.map((x) => `(${tree(x, params)})`).join(' AND ') : 'TRUE';
  if ('or' in c) return c.or.length ? c.or.map((x) => `(${tree(x, params)})`).join(' OR ') : 'FALSE';
  return `COALESCE(${one(c, params)}, FALSE)`;
}

const bind = (params: unknown[], v: unknown) => {
  params.push(v);
  return `$${params.length}`;
};

const NUMBER_TEXT = `'^\\s*[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$'`;

interface Col {
  /** The value as text (NULL when absent). */
  text: string;
  /** As a number (NULL when it is not one). */
  num: string;
}

/** The column as text and as a number. */
function column(f: ResolvedFilter, params: unknown[]): Col {
  if (f.column === 'id' || f.column === 'chunk_id' || f.column === 'chunk_content') {
    const text = f.column === 'chunk_content' ? 'c.content' : `c.${f.column}`;
    return { text, num: `CASE WHEN ${text} ~ ${NUMBER_TEXT} THEN ${text}::float8 END` };
  }
  const key = bind(params, f.column);
  const j = `(c.metadata -> ${key}::text)`;
  return {
    text: `(c.metadata ->> ${key}::text)`,
    num: `CASE jsonb_typeof(${j}) WHEN 'number' THEN (${j} #>> '{}')::float8 WHEN 'boolean' THEN CASE WHEN (${j} #>> '{}') = 'true' THEN 1 ELSE 0 END::float8 WHEN 'string' THEN CASE WHEN (${j} #>> '{}') ~ ${NUMBER_TEXT} THEN (${j} #>> '{}')::float8 END END`,
  };
}

/** MySQL's collation key of a text expression, as `foldText` makes it in JS. */
const fold = (sql: string) =>
  `translate(upper(rtrim(${sql}, ' ')), '${ACCENTED}', '${UNACCENTED}') COLLATE "C"`;

/** A stored date or date-time as the comparable text `dateKey` makes (NULL when it is not one). */
const dateSql = (sql: string) =>
  `CASE WHEN ${sql} ~ '^\\d{4}-\\d{2}-\\d{2}$' THEN ${sql} || ' 00:00:00.000000' WHEN ${sql} ~ '^\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?Z?$' THEN rpad(replace(rtrim(substr(${sql}, 1, 19), 'Z'), 'T', ' ') || '.' || COALESCE(substring(${sql} from '\\.(\\d{1,6})'), ''), 26, '0') END COLLATE "C"`;

/** `col` and the literal as the column's kind compares them: [left SQL, right SQL]. */
function operands(f: ResolvedFilter, col: Col, v: CanonicalValue, params: unknown[]): [string, string] {
  const numeric =
    f.kind === 'number' || (f.kind === 'unknown' && (typeof v === 'number' || typeof v === 'boolean'));
  if (numeric) {
    const n = typeof v === 'boolean' ? Number(v) : typeof v === 'number' ? v : mysqlStringToNumber(String(v));
    return [col.num, `${bind(params, n)}::float8`];
  }
  if (f.kind === 'date') return [`(${dateSql(col.text)})`, `(${bind(params, dateKey(v))}::text COLLATE "C")`];
  return [`(${fold(col.text)})`, `(${bind(params, foldText(String(v)))}::text COLLATE "C")`];
}

const SQL_OP: Record<string, string> = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

function one(f: ResolvedFilter, params: unknown[]): string {
  const col = column(f, params);
  const list = Array.isArray(f.value) ? f.value : [f.value];
  switch (f.op) {
    case 'IS NULL':
      return `${col.text} IS NULL`;
    case 'IS NOT NULL':
      return `${col.text} IS NOT NULL`;
    case 'LIKE':
    case 'NOT LIKE': {
      // Case and accents fold on both sides; trailing spaces count, as in MySQL's LIKE.
      const folded = (sql: string) => `translate(upper(${sql}), '${ACCENTED}', '${UNACCENTED}')`;
      const pattern = folded(`${bind(params, String(list[0]))}::text`);
      return `${f.op === 'LIKE' ? '' : 'NOT '}(${folded(col.text)} LIKE ${pattern})`;
    }
    case 'BETWEEN':
    case 'NOT BETWEEN': {
      const [l1, lo] = operands(f, col, list[0], params);
      const [, hi] = operands(f, col, list[1], params);
      return `${l1} ${f.op === 'BETWEEN' ? 'BETWEEN' : 'NOT BETWEEN'} ${lo} AND ${hi}`;
    }
    case 'IN':
    case 'NOT IN': {
      const values = list.filter((x) => x !== null);
      if (values.length === 0) return f.op === 'IN' ? 'FALSE' : 'NULL';
      const parts = values.map((x) => {
        const [l, r] = operands(f, col, x, params);
        return `${l} = ${r}`;
      });
      const any = parts.map((p) => `(${p})`).join(' OR ');
      if (f.op === 'IN') return any;
      return list.some((x) => x === null) ? 'NULL' : `NOT (${any})`;
    }
    default: {
      const [l, r] = operands(f, col, list[0], params);
      return `${l} ${SQL_OP[f.op]} ${r}`;
    }
  }
}
