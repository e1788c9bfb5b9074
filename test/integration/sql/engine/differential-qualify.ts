/**
 * Puts the tables of a corpus query in named sources: `FROM customers c JOIN orders o`
 * becomes `FROM pg.customers c JOIN my.orders o`. The rewrite is token-level (only names in
 * table position after FROM, JOIN or a FROM-list comma change; strings, comments, aliases,
 * function arguments such as `EXTRACT(YEAR FROM x)` and CTE names do not) and is checked
 * against node-sql-parser's AST: the names found must be exactly the query's table items.
 */

import pkg from 'node-sql-parser/build/mysql.js';
import { cteNames, tableItems } from '../../../../src/sql/ast/walk.js';
import { rewriteSyntaxGaps } from '../../../../src/sql/parse/gaps.js';
import { isKeyword, isName, type Token, tokenize } from '../../../../src/sql/parse/lexer.js';
import { normalizeAst, rewriteParserGaps } from '../../../../src/sql/parse/normalize.js';

const { Parser } = pkg as unknown as { Parser: new () => { astify(sql: string, o: object): any } };
const parser = new Parser();

export type SourceName = 'pg' | 'my';

/** Keywords that end a FROM clause at the same parenthesis depth. */
const END_FROM = new Set([
  'WHERE',
  'GROUP',
  'HAVING',
  'ORDER',
  'LIMIT',
  'WINDOW',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'SELECT',
  'FOR',
]);

function parseOne(sql: string): any {
  // As the engine parses: the text node-sql-parser rejects is rewritten first (names untouched).
  // The same pre-passes as the engine's parser (parse/index.ts).
  const ast = normalizeAst(parser.astify(rewriteParserGaps(rewriteSyntaxGaps(sql)), { database: 'MySQL' }));
  return Array.isArray(ast) ? ast[0] : ast;
}

function isPunct(t: Token | undefined, v: string): boolean {
  return !!t && t.kind === 'punct' && t.value === v;
}

/** Unqualified names in table position, in text order (CTE references included). */
function tablePositionTokens(tokens: Token[]): Token[] {
  interface Frame {
    query: boolean;
    inFrom: boolean;
  }
  const frames: Frame[] = [{ query: true, inFrom: false }];
  const out: Token[] = [];
  let expectTable = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const frame = frames[frames.length - 1];
    if (isPunct(t, '(')) {
      const next = tokens[i + 1];
      // A parenthesis holds a query (subquery, set member, CTE body, nested join list) or an
      // expression (function arguments: `EXTRACT(YEAR FROM x)`, `TRIM(... FROM ...)`).
      const subquery = isKeyword(next, 'SELECT', 'WITH') || isPunct(next, '(');
      frames.push({ query: subquery || expectTable, inFrom: expectTable });
      // `FROM (a JOIN b)`: the first name inside is a table too.
      expectTable = expectTable && !subquery;
      continue;
    }
    if (isPunct(t, ')')) {
      if (frames.length > 1) frames.pop();
      expectTable = false;
      continue;
    }
    if (!frame.query) continue;
    if (expectTable) {
      expectTable = false;
      if (isName(t) && !isPunct(tokens[i + 1], '.') && !isKeyword(t, 'DUAL', 'LATERAL')) {
        out.push(t);
        continue;
      }
    }
    if (isKeyword(t, 'FROM')) {
      frame.inFrom = true;
      expectTable = true;
    } else if (isKeyword(t, 'JOIN', 'STRAIGHT_JOIN')) {
      expectTable = true;
    } else if (t.kind === 'ident' && END_FROM.has(t.value.toUpperCase())) {
      frame.inFrom = false;
    } else if (isPunct(t, ',') && frame.inFrom) {
      expectTable = true;
    }
  }
  return out;
}

export interface Qualified {
  sql: string;
  /** The source each table reference went to, in text order. */
  placed: { table: string; source: SourceName }[];
}

/** The query's real table references (CTE names excluded), in text order. */
export function tableRefs(sql: string): Token[] {
  const ast = parseOne(sql);
  const ctes = cteNames(ast);
  const items = tableItems(ast)
    .filter((n) => !n.db && !ctes.has(String(n.table).toLowerCase()))
    .map((n) => String(n.table).toLowerCase())
    .sort();
  const found = tablePositionTokens(tokenize(sql)).filter((t) => !ctes.has(t.value.toLowerCase()));
  const names = found.map((t) => t.value.toLowerCase()).sort();
  if (JSON.stringify(items) !== JSON.stringify(names)) {
    throw new Error(
      `table references disagree with the AST: tokens ${JSON.stringify(names)}, AST ${JSON.stringify(items)} in ${sql}`,
    );
  }
  return found;
}

/** Where a table goes first; its next occurrence in the same query goes to the other source. */
const PREFERRED: Record<string, SourceName> = {
  customers: 'pg',
  orders: 'my',
  products: 'my',
  order_items: 'pg',
};

const other = (s: SourceName): SourceName => (s === 'pg' ? 'my' : 'pg');

/**
 * Qualify every table reference. Without `placement`, customers→pg, orders→my,
 * products→my, order_items→pg, a repeated table alternates, and if everything still lands
 * in one source the last reference moves to the other, so the query always spans both.
 */
export function qualifyTables(sql: string, placement?: SourceName[]): Qualified {
  const refs = tableRefs(sql);
  let sources: SourceName[];
  if (placement) {
    if (placement.length !== refs.length)
      throw new Error(`placement names ${placement.length} sources for ${refs.length} tables in ${sql}`);
    sources = placement;
  } else {
    const seen = new Map<string, number>();
    sources = refs.map((t, i) => {
      const name = t.value.toLowerCase();
      const k = seen.get(name) ?? 0;
      seen.set(name, k + 1);
      const first = PREFERRED[name] ?? (i % 2 === 0 ? 'pg' : 'my');
      return k % 2 === 0 ? first : other(first);
    });
    if (sources.length > 1 && new Set(sources).size === 1)
      sources[sources.length - 1] = other(sources[sources.length - 1]);
  }
  let out = '';
  let pos = 0;
  refs.forEach((t, i) => {
    out += `${sql.slice(pos, t.start)}${sources[i]}.${sql.slice(t.start, t.end)}`;
    pos = t.end;
  });
  out += sql.slice(pos);
  // The rewrite must leave exactly the same table items, now each in its source.
  const ast = parseOne(out);
  const ctes = cteNames(ast);
  const unplaced = tableItems(ast).filter((n) => !n.db && !ctes.has(String(n.table).toLowerCase()));
  if (unplaced.length) throw new Error(`rewrite left ${unplaced.length} table(s) unqualified: ${out}`);
  return { sql: out, placed: refs.map((t, i) => ({ table: t.value, source: sources[i] })) };
}

/**
 * A one-table query made cross-source without changing its answer: the table goes to
 * `source` and its SELECT gains the always-true conjunct `EXISTS (SELECT 1 FROM
 * <other source>.products)` (TRUE AND x is x for every x, NULL included), so the engine
 * loads a fragment from each source and runs the whole statement in the local DuckDB.
 */
export function guardSingleTable(sql: string, source: SourceName): Qualified {
  const refs = tableRefs(sql);
  if (refs.length !== 1) throw new Error(`expected one table reference in ${sql}`);
  const table = refs[0];
  const guard = `EXISTS (SELECT 1 FROM ${other(source)}.products)`;
  const tokens = tokenize(sql);
  let k = tokens.findIndex((t) => t.start === table.start);
  let depth = 0;
  let insert: { at: number; text: string } | null = null;
  for (k++; k < tokens.length && !insert; k++) {
    const t = tokens[k];
    if (isPunct(t, '(')) depth++;
    else if (isPunct(t, ')')) {
      if (depth === 0) insert = { at: t.start, text: ` WHERE ${guard} ` };
      else depth--;
    } else if (depth === 0 && isKeyword(t, 'WHERE')) insert = { at: t.end, text: ` ${guard} AND` };
    else if (depth === 0 && t.kind === 'ident' && END_FROM.has(t.value.toUpperCase()))
      insert = { at: t.start, text: `WHERE ${guard} ` };
  }
  insert ??= { at: sql.length, text: ` WHERE ${guard}` };
  const out =
    sql.slice(0, table.start) +
    `${source}.${sql.slice(table.start, insert.at)}${insert.text}${sql.slice(insert.at)}`;
  const ast = parseOne(out);
  const ctes = cteNames(ast);
  const items = tableItems(ast).filter((n) => !ctes.has(String(n.table).toLowerCase()));
  if (items.length !== 2 || items.some((n) => !n.db))
    throw new Error(`guard rewrite did not give two qualified tables: ${out}`);
  return { sql: out, placed: [{ table: table.value, source }] };
}
