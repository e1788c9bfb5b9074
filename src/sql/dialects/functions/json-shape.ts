/**
 * MySQL's functions that describe a JSON document, for PostgreSQL (jsonb) and DuckDB (json):
 * JSON_TYPE, JSON_LENGTH, JSON_KEYS, JSON_CONTAINS, JSON_QUOTE, JSON_VALID. A path argument
 * is read as JSON_EXTRACT reads it (literal paths only); a path that finds nothing gives NULL,
 * as in MySQL. JSON_KEYS lists keys as MySQL stores them (shorter first, then by bytes), which
 * is jsonb's order; DuckDB keeps the document's order, so it is refused there.
 */
import type { Expr } from '../../ast/nodes.js';
import type { FunctionHandler, FunctionMap, SqlCompiler } from '../compiler.js';

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

const pg: FunctionMap = {
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
};

const duck: FunctionMap = {
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
};

export function jsonShapeFunctions(target: 'postgres' | 'duckdb'): FunctionMap {
  return target === 'postgres' ? pg : duck;
}
