/**
 * MySQL's functions that describe a JSON document, for PostgreSQL (jsonb) and DuckDB (json):
 * JSON_TYPE, JSON_LENGTH, JSON_KEYS, JSON_CONTAINS, JSON_QUOTE, JSON_VALID; and those that
 * change one, for PostgreSQL: JSON_SET, JSON_INSERT, JSON_REPLACE, JSON_REMOVE,
 * JSON_ARRAY_APPEND (a value is stored as MySQL stores it: text as a JSON string, a number as
 * a number, a JSON value as itself, NULL as null). A path argument
 * is read as JSON_EXTRACT reads it (literal paths only); a path that finds nothing gives NULL,
 * as in MySQL. JSON_KEYS lists keys as MySQL stores them (shorter first, then by bytes), which
 * is jsonb's order; DuckDB keeps the document's order, so it is refused there.
 */
import type { Expr } from '../../ast/nodes.js';
import type { FunctionHandler, FunctionMap, SqlCompiler } from '../compiler.js';
import { parseJsonPath } from './json-path.js';

type C = SqlCompiler;

// Own small helper: common.ts spreads this map into its own (as regexp.ts does).
function arity(name: string, min: number, max: number, h: FunctionHandler): FunctionHandler {
  return (c, node, args) =>
    args.length < min || args.length > max
      ? c.unsupported(
          `${name} with ${args.length} arguments (MySQL takes ${min === max ? min : `${min} to ${max}`})`,
        )
      : h(c, node, args);
}

/** The document, or the part of it at `path`. */
function doc(c: C, j: Expr, path: Expr | undefined, cast: string): string {
  return path ? c.jsonExtract(j, path, false) : `CAST(${c.expr(j)} AS ${cast})`;
}

/** A literal JSON path as a PostgreSQL text[] (1235 for anything else, or for wildcards). */
function pgPath(c: C, path: Expr | undefined): string {
  if (path?.type !== 'string') return c.unsupported('a JSON path that is not a string literal');
  let steps: (string | number)[];
  try {
    steps = parseJsonPath(String(path.value));
  } catch (e) {
    return c.unsupported((e as Error).message);
  }
  return `ARRAY[${steps.map((x) => c.lit(String(x))).join(', ')}]::text[]`;
}

/** A value as MySQL stores it in a document. */
function pgValue(c: C, v: Expr): string {
  const k = c.kind(v);
  const sql =
    k === 'json'
      ? `CAST(${c.expr(v)} AS jsonb)`
      : k === 'number' || k === 'bool'
        ? `to_jsonb(${c.num(v)})`
        : `to_jsonb(CAST(${c.text(v)} AS text))`;
  return `COALESCE(${sql}, 'null'::jsonb)`;
}

/** JSON_SET / JSON_INSERT / JSON_REPLACE: each (path, value) pair in turn. */
function pgModify(
  name: string,
  step: (doc: string, path: string, value: string) => string,
  rootOk = false,
): FunctionHandler {
  return (c, _n, [j, ...pairs]) => {
    if (!j || pairs.length === 0 || pairs.length % 2 !== 0)
      return c.unsupported(
        `${name} with ${pairs.length + 1} arguments (MySQL takes a document and path, value pairs)`,
      );
    let doc = `CAST(${c.expr(j)} AS jsonb)`;
    for (let i = 0; i < pairs.length; i += 2) {
      const p = pgPath(c, pairs[i]);
      if (p === 'ARRAY[]::text[]' && !rootOk) return c.unsupported(`${name} of the whole document ('$')`);
      doc = step(doc, p, pgValue(c, pairs[i + 1]));
    }
    return doc;
  };
}

/** Functions PostgreSQL has and DuckDB and SQLite do not (refused there by name). */
export const PG_ONLY_JSON = ['JSON_SET', 'JSON_INSERT', 'JSON_REPLACE', 'JSON_REMOVE', 'JSON_ARRAY_APPEND'];

const pg: FunctionMap = {
  JSON_SET: pgModify('JSON_SET', (d, p, v) => `jsonb_set(${d}, ${p}, ${v}, true)`),
  JSON_INSERT: pgModify(
    'JSON_INSERT',
    (d, p, v) => `(CASE WHEN ${d} #> ${p} IS NULL THEN jsonb_set(${d}, ${p}, ${v}, true) ELSE ${d} END)`,
  ),
  JSON_REPLACE: pgModify(
    'JSON_REPLACE',
    (d, p, v) => `(CASE WHEN ${d} #> ${p} IS NOT NULL THEN jsonb_set(${d}, ${p}, ${v}, false) ELSE ${d} END)`,
  ),
  JSON_REMOVE: (c, _n, [j, ...paths]) => {
    if (!j || paths.length === 0) return c.unsupported('JSON_REMOVE without a path');
    let doc = `CAST(${c.expr(j)} AS jsonb)`;
    for (const path of paths) {
      const p = pgPath(c, path);
      if (p === 'ARRAY[]::text[]') return c.unsupported("JSON_REMOVE of the whole document ('$')");
      doc = `(${doc} #- ${p})`;
    }
    return doc;
  },
  JSON_ARRAY_APPEND: pgModify(
    'JSON_ARRAY_APPEND',
    (d, p, v) => {
      const at = p === 'ARRAY[]::text[]' ? d : `(${d} #> ${p})`;
      const grown = `(CASE WHEN jsonb_typeof(${at}) = 'array' THEN ${at} || jsonb_build_array(${v}) ELSE jsonb_build_array(${at}, ${v}) END)`;
      return p === 'ARRAY[]::text[]'
        ? grown
        : `(CASE WHEN ${at} IS NULL THEN ${d} ELSE jsonb_set(${d}, ${p}, ${grown}, false) END)`;
    },
    true,
  ),
  JSON_TYPE: arity('JSON_TYPE', 1, 1, (c, _n, [j]) => {
    const d = doc(c, j, undefined, 'jsonb');
    return `(CASE jsonb_typeof(${d}) WHEN 'object' THEN 'OBJECT' WHEN 'array' THEN 'ARRAY' WHEN 'string' THEN 'STRING' WHEN 'boolean' THEN 'BOOLEAN' WHEN 'null' THEN 'NULL' WHEN 'number' THEN CASE WHEN CAST(${d} AS text) ~ '^-?[0-9]+$' THEN 'INTEGER' ELSE 'DOUBLE' END END)`;
  }),
  JSON_LENGTH: arity('JSON_LENGTH', 1, 2, (c, _n, [j, path]) => {
    const d = doc(c, j, path, 'jsonb');
    return `(CASE WHEN ${d} IS NULL THEN NULL WHEN jsonb_typeof(${d}) = 'array' THEN jsonb_array_length(${d}) WHEN jsonb_typeof(${d}) = 'object' THEN (SELECT CAST(count(*) AS integer) FROM jsonb_object_keys(${d})) ELSE 1 END)`;
  }),
  JSON_KEYS: arity('JSON_KEYS', 1, 2, (c, _n, [j, path]) => {
    const d = doc(c, j, path, 'jsonb');
    return `(CASE WHEN jsonb_typeof(${d}) = 'object' THEN COALESCE((SELECT jsonb_agg(k) FROM jsonb_object_keys(${d}) AS k), '[]'::jsonb) END)`;
  }),
  JSON_CONTAINS: arity(
    'JSON_CONTAINS',
    2,
    3,
    (c, _n, [j, v, path]) => `(${doc(c, j, path, 'jsonb')} @> CAST(${c.expr(v)} AS jsonb))`,
  ),
  JSON_QUOTE: arity('JSON_QUOTE', 1, 1, (c, _n, [s]) => `CAST(to_jsonb(CAST(${c.text(s)} AS text)) AS text)`),
  // JSON_VALUE(j, path): the scalar at path as text; NULL for an object, an array, JSON null, or nothing there.
  JSON_VALUE: arity('JSON_VALUE', 2, 2, (c, _n, [j, path]) => {
    const d = `CAST(${doc(c, j, path, 'jsonb')} AS jsonb)`;
    return `(CASE WHEN jsonb_typeof(${d}) IN ('object', 'array', 'null') THEN NULL ELSE ${d} #>> '{}' END)`;
  }),
};

const duck: FunctionMap = {
  ...Object.fromEntries(
    PG_ONLY_JSON.map((name): [string, FunctionHandler] => [name, (c) => c.unsupported(`function ${name}`)]),
  ),
  JSON_TYPE: arity('JSON_TYPE', 1, 1, (c, _n, [j]) => {
    const t = `json_type(${doc(c, j, undefined, 'JSON')})`;
    return `(CASE ${t} WHEN 'VARCHAR' THEN 'STRING' WHEN 'BIGINT' THEN 'INTEGER' WHEN 'UBIGINT' THEN 'INTEGER' ELSE ${t} END)`;
  }),
  JSON_LENGTH: arity('JSON_LENGTH', 1, 2, (c, _n, [j, path]) => {
    const d = doc(c, j, path, 'JSON');
    return `(CASE WHEN ${d} IS NULL THEN NULL WHEN json_type(${d}) = 'ARRAY' THEN CAST(json_array_length(${d}) AS BIGINT) WHEN json_type(${d}) = 'OBJECT' THEN CAST(len(json_keys(${d})) AS BIGINT) ELSE 1 END)`;
  }),
  JSON_QUOTE: arity('JSON_QUOTE', 1, 1, (c, _n, [s]) => `CAST(to_json(${c.text(s)}) AS VARCHAR)`),
  JSON_VALID: arity('JSON_VALID', 1, 1, (c, _n, [s]) => `CAST(json_valid(${c.text(s)}) AS INTEGER)`),
  JSON_VALUE: arity('JSON_VALUE', 2, 2, (c, _n, [j, path]) => {
    const d = doc(c, j, path, 'JSON');
    return `(CASE WHEN json_type(${d}) IN ('OBJECT', 'ARRAY', 'NULL') THEN NULL ELSE json_extract_string(${d}, '$') END)`;
  }),
};

export function jsonShapeFunctions(target: 'postgres' | 'duckdb'): FunctionMap {
  return target === 'postgres' ? pg : duck;
}
