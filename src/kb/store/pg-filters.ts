import type { CanonicalValue } from '../../core/types.js';
import type { KbFilter } from '../../sql/kb-port.js';

/**
 * Filters as one SQL condition over a chunk table aliased `c` (kb/store/pg.ts), with the
 * semantics of `predicate` in kb/filters.ts: text compares case-insensitively, a number
 * compares numerically (a metadata value that is not a number matches nothing), NULL
 * matches no comparison, LIKE is case-insensitive with `\` as its escape. Values and
 * metadata keys are bound parameters, pushed onto `params`: no value ever becomes SQL text.
 * One difference remains: `<`/`>` on text order by the database's collation.
 */
export function filterSql(filters: KbFilter[], params: unknown[]): string {
  if (filters.length === 0) return 'TRUE';
  return filters.map((f) => `(${one(f, params)})`).join(' AND ');
}

const bind = (params: unknown[], v: unknown) => {
  params.push(v);
  return `$${params.length}`;
};

const NUMBER_TEXT = `'^\\s*[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$'`;

/** The column as text and as a number (NULL when it is not one). */
function column(f: KbFilter, params: unknown[]): { text: string; num: string } {
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

const SQL_OP: Record<string, string> = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/** `col op value` for one scalar value: numeric when the value is a number or boolean. */
function compare(
  col: { text: string; num: string },
  op: string,
  v: CanonicalValue,
  params: unknown[],
): string {
  if (v === null) return 'FALSE';
  if (typeof v === 'number' || typeof v === 'boolean')
    return `${col.num} ${op} ${bind(params, Number(v))}::float8`;
  return `lower(${col.text}) ${op} lower(${bind(params, String(v))}::text)`;
}

function one(f: KbFilter, params: unknown[]): string {
  const col = column(f, params);
  const list = Array.isArray(f.value) ? f.value : [f.value];
  switch (f.op) {
    case '=':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return `${col.text} IS NOT NULL AND ${compare(col, SQL_OP[f.op], list[0], params)}`;
    case 'IN':
    case 'NOT IN': {
      const strings = list.filter((x): x is string => typeof x === 'string');
      const parts: string[] = [];
      if (strings.length)
        parts.push(
          `lower(${col.text}) = ANY(${bind(
            params,
            strings.map((x) => x.toLowerCase()),
          )}::text[])`,
        );
      for (const x of list) if (typeof x !== 'string') parts.push(compare(col, '=', x, params));
      const any = parts.length ? parts.map((p) => `(${p})`).join(' OR ') : 'FALSE';
      return f.op === 'IN'
        ? `${col.text} IS NOT NULL AND (${any})`
        : `${col.text} IS NOT NULL AND NOT COALESCE(${any}, FALSE)`;
    }
    case 'LIKE':
    case 'NOT LIKE':
      return `${col.text} IS NOT NULL AND ${f.op === 'LIKE' ? '' : 'NOT '}(${col.text} ILIKE ${bind(params, String(list[0]))}::text)`;
    default:
      throw new Error(`knowledge base filter ${f.op} is not evaluated by the store`);
  }
}
