/**
 * MySQL's REGEXP_REPLACE / REGEXP_LIKE / REGEXP_SUBSTR for PostgreSQL and DuckDB, which
 * spell them differently (or, for DuckDB, not at all). Like MySQL's, matching ignores case
 * unless an operand has a case-sensitive collation or match_type says 'c'; REGEXP_REPLACE
 * replaces every match. Position and occurrence arguments beyond the defaults are refused.
 */
import type { Expr } from '../../ast/nodes.js';
import type { FunctionHandler, FunctionMap, SqlCompiler } from '../compiler.js';

type C = SqlCompiler;

// Own small helpers: common.ts spreads this map into its own, so importing from it would be a cycle.
function arity(name: string, min: number, max: number, h: FunctionHandler): FunctionHandler {
  return (c, node, args) =>
    args.length < min || args.length > max
      ? c.unsupported(`${name} with ${args.length} arguments (MySQL takes ${min} to ${max})`)
      : h(c, node, args);
}

function intLiteral(node: Expr | undefined): number | null {
  const v = (node as { type?: string; value?: unknown } | undefined)?.value;
  return node?.type === 'number' && Number.isInteger(Number(v)) ? Number(v) : null;
}

/** Whether matching ignores case: MySQL's collation, overridden by a literal match_type. */
function ignoreCase(c: C, args: Expr[], matchType: Expr | undefined): boolean {
  let ci = !args.some((a) => c.caseSensitive(a));
  if (matchType) {
    if (matchType.type !== 'string')
      return c.unsupported('a REGEXP function whose match_type is not a literal');
    const flags = String((matchType as { value?: unknown }).value ?? '');
    if (/[^ci]/.test(flags))
      return c.unsupported(`REGEXP match_type '${flags}' (only 'c' and 'i' are translated)`);
    for (const f of flags) ci = f === 'i';
  }
  return ci;
}

function defaultsOnly(
  c: C,
  name: string,
  pos: Expr | undefined,
  occurrence: Expr | undefined,
  occDefault: number,
) {
  if (pos && intLiteral(pos) !== 1) c.unsupported(`${name} with a position other than 1`);
  if (occurrence && intLiteral(occurrence) !== occDefault) c.unsupported(`${name} with an occurrence`);
}

export function regexpFunctions(target: 'postgres' | 'duckdb'): FunctionMap {
  return {
    REGEXP_REPLACE: arity('REGEXP_REPLACE', 3, 6, (c, _n, [s, p, r, pos, occ, mt]) => {
      defaultsOnly(c, 'REGEXP_REPLACE', pos, occ, 0);
      const flags = ignoreCase(c, [s, p], mt) ? 'gi' : 'g';
      return `regexp_replace(${c.text(s)}, ${c.text(p)}, ${c.text(r)}, '${flags}')`;
    }),
    REGEXP_LIKE: arity('REGEXP_LIKE', 2, 3, (c, _n, [s, p, mt]) => {
      const ci = ignoreCase(c, [s, p], mt);
      return target === 'duckdb'
        ? `regexp_matches(${c.text(s)}, ${c.text(p)}${ci ? ", 'i'" : ''})`
        : `(${c.text(s)} ${ci ? '~*' : '~'} ${c.text(p)})`;
    }),
    REGEXP_SUBSTR: arity('REGEXP_SUBSTR', 2, 5, (c, _n, [s, p, pos, occ, mt]) => {
      defaultsOnly(c, 'REGEXP_SUBSTR', pos, occ, 1);
      const ci = ignoreCase(c, [s, p], mt);
      const [ts, tp] = [c.text(s), c.text(p)];
      if (target === 'postgres') return `regexp_substr(${ts}, ${tp}, 1, 1, '${ci ? 'i' : 'c'}')`;
      // regexp_extract answers '' for no match; MySQL answers NULL.
      const opt = ci ? ", 'i'" : '';
      return `CASE WHEN regexp_matches(${ts}, ${tp}${opt}) THEN regexp_extract(${ts}, ${tp}, 0${opt}) END`;
    }),
  };
}
