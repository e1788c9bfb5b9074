/**
 * One pass over node-sql-parser's MySQL AST so later stages (planner, dialect compilers)
 * see plain values. The shape stays node-sql-parser's (its docs still apply) except:
 *
 * - Identifiers are plain strings: `db`, `table`, `column`, `as`, CTE names, USING lists,
 *   INSERT column lists. Backtick objects (`{type:'backticks_quote_string', value}`) are
 *   unwrapped and doubled backticks undone. A folded three-part name (`schema<SEP>table`,
 *   see prepass.ts) is split into `schema` and `table` on FROM items and column refs.
 * - String literals (single, double quoted, N'..') become `{type:'string', value}` where
 *   `value` is the real string: MySQL escapes (`\'`, `\\`, `\0`, `''`, ...) are decoded.
 *   `\%` and `\_` keep their backslash, as MySQL does, so LIKE patterns keep their meaning.
 * - Numbers are `{type:'number', value}`: a JS number for safe integers, else the exact
 *   literal text (decimals, exponents, big integers). node-sql-parser's `bigint` type and
 *   its misreading of `1e3` as a column are folded into this.
 * - Function names are upper-case strings (`name: 'DATE_FORMAT'`); aggregate names already are.
 *   `NOT(x)` becomes `{type:'unary_expr', operator:'NOT'}`, `EXISTS(subquery)` becomes
 *   `{type:'unary_expr', operator:'EXISTS'}` (like node-sql-parser's `NOT EXISTS`),
 *   `CONVERT(x, type)` becomes a `cast` node, and `SUM(DISTINCT(x))` sets `args.distinct`.
 * - Subqueries (in expressions and FROM) carry `type: 'subquery'` next to their `ast`.
 * - A UNION/INTERSECT/EXCEPT chain keeps `_next`/`set_op` (upper-cased: 'UNION ALL');
 *   an ORDER BY / LIMIT written after the last member (not inside its parentheses) is moved
 *   to the head's `_orderby` / `_limit`, which is what MySQL applies it to.
 * - LIMIT is always `{seperator: 'offset' | '', value: [count, offset?]}`: `LIMIT o, n` is
 *   rewritten to the OFFSET form. Use `limitOf()` rather than reading it by hand.
 * - GROUP BY is `{columns: Node[], modifiers: Node[]}` (modifiers without nulls).
 * - Interval units and EXTRACT fields are upper case.
 * - FROM is always a list; a parenthesized join group inside it is an item
 *   `{type: 'join_group', expr: [items...], join?, on?}`.
 */
import type { SqlStatement } from '../ast/nodes.js';
import { NATURAL_MARK, RANGE_MARK, SET_ALL_MARK } from './clause-gaps.js';
import { closing, isKeyword, isPunct, type Token, tokenize } from './lexer.js';
import { SCHEMA_SEP } from './prepass.js';

/**
 * A node of node-sql-parser's output, untyped: this file is the one boundary where the
 * parser's loose objects become the typed tree of ast/nodes.ts (biome.json lets `any` in
 * here and nowhere else in src/).
 */
type AstNode = { type?: string; [key: string]: any };

const QUOTED_IDENT = new Set([
  'backticks_quote_string',
  'default',
  'double_quote_string',
  'single_quote_string',
]);
const _STRING_TYPES = new Set(['single_quote_string', 'double_quote_string', 'natural_string']);
const EXPONENT = /^\d+(\.\d*)?[eE][+-]?\d+$/;

/** node-sql-parser's statement (or list of them) as the typed tree, mutated in place. Safe to call twice. */
export function normalizeAst(ast: unknown[]): SqlStatement[];
export function normalizeAst(ast: unknown): SqlStatement;
export function normalizeAst(ast: unknown): SqlStatement | SqlStatement[] {
  if (Array.isArray(ast)) {
    for (let i = 0; i < ast.length; i++) ast[i] = fix(ast[i]);
    return ast as SqlStatement[];
  }
  return fix(ast) as SqlStatement;
}

function ident(v: unknown): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as AstNode;
    if (typeof o.value === 'string' && QUOTED_IDENT.has(o.type ?? '')) return unBacktick(o.value);
    if (o.expr && typeof o.expr === 'object' && typeof o.expr.value === 'string')
      return unBacktick(o.expr.value);
    return v;
  }
  return typeof v === 'string' ? unBacktick(v) : v;
}

function unBacktick(s: string): string {
  return s.includes('``') ? s.replace(/``/g, '`') : s;
}

/** Decodes what node-sql-parser leaves raw inside a MySQL string literal. */
export function unescapeMysqlString(raw: string, quote: "'" | '"'): string {
  if (!raw.includes('\\') && !raw.includes(quote + quote)) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch === '\\' && i + 1 < raw.length) {
      const n = raw[++i];
      if (n === '0') out += '\0';
      else if (n === 'Z') out += '\x1a';
      else if (n === '%' || n === '_') out += '\\' + n;
      else out += n;
    } else if (ch === quote && raw[i + 1] === quote) {
      out += quote;
      i++;
    } else out += ch;
  }
  return out;
}

function splitSchema(node: AstNode): void {
  if (typeof node.table === 'string' && node.table.includes(SCHEMA_SEP)) {
    const at = node.table.indexOf(SCHEMA_SEP);
    node.schema = node.table.slice(0, at);
    node.table = node.table.slice(at + 1);
  }
}

function fix(node: any): any {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) node[i] = fix(node[i]);
    return node;
  }
  const n = node as AstNode;

  // Subquery wrappers have no type of their own.
  if (n.type === undefined && n.ast && typeof n.ast === 'object' && !Array.isArray(n.ast)) {
    n.type = 'subquery';
  }

  if (n.window_specification && typeof n.window_specification === 'object') {
    fixChildren(n);
    rangeFrame(n.window_specification);
    return n;
  }

  switch (n.type) {
    case 'single_quote_string':
    case 'double_quote_string':
    case 'natural_string': {
      const value = unescapeMysqlString(String(n.value), n.type === 'double_quote_string' ? '"' : "'");
      const out: AstNode = { type: 'string', value };
      if (n.escape) out.escape = fix(n.escape);
      if (n.collate) out.collate = n.collate;
      // `'a' COLLATE utf8mb4_bin`: the grammar hangs a literal's COLLATE on a suffix.
      else if (n.suffix?.collate) out.collate = n.suffix.collate;
      return out;
    }
    case 'date':
    case 'time':
    case 'timestamp':
    case 'datetime':
      if (typeof n.value === 'string') n.value = unescapeMysqlString(n.value, "'");
      return n;
    case 'bigint':
      return { ...n, type: 'number', value: numberValue(n.value) };
    case 'number':
      if (typeof n.value === 'string' && /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(n.value)) {
        n.value = numberValue(n.value);
      }
      return n;
    case 'column_ref':
      return fixColumnRef(n);
    case 'function':
      return fixFunction(n);
    case 'aggr_func':
      return fixAggregate(n);
    case 'interval':
      if (typeof n.unit === 'string') n.unit = n.unit.toUpperCase();
      n.expr = fix(n.expr);
      return n;
    case 'extract':
      if (n.args && typeof n.args.field === 'string') n.args.field = n.args.field.toUpperCase();
      fixChildren(n);
      return n;
    case 'binary_expr':
      if (LOGICAL_RANK[String(n.operator).toUpperCase()] !== undefined && !n.parentheses) {
        const out = logicalPrecedence(n);
        if (out !== n) return fix(out);
      }
      fixChildren(n);
      return n;
    case 'select':
      return fixSelect(n);
    case 'insert':
    case 'replace':
      fixTables(n.table);
      if (Array.isArray(n.columns)) n.columns = n.columns.map((c: unknown) => ident(c));
      fixChildren(n, ['table', 'columns']);
      if (Array.isArray(n.set)) for (const s of n.set) s.column = ident(s.column);
      if (n.on_duplicate_update?.set) for (const s of n.on_duplicate_update.set) s.column = ident(s.column);
      return n;
    case 'update':
      fixTables(n.table);
      fixChildren(n, ['table']);
      for (const s of Array.isArray(n.set) ? n.set : []) {
        s.column = ident(s.column);
        s.table = ident(s.table);
      }
      fixLimit(n);
      return n;
    case 'delete':
      fixTables(n.table);
      n.from = fromList(n.from);
      fixTables(n.from);
      fixChildren(n, ['table', 'from']);
      fixLimit(n);
      return n;
    case 'create':
    case 'drop':
      fixTables(n.table);
      fixTables(n.name);
      fixChildren(n, ['table', 'name']);
      return n;
    default:
      fixChildren(n);
      return n;
  }
}

/** MySQL's precedence among the logical operators, loosest first: OR (||), XOR, AND (&&). */
const LOGICAL_RANK: Record<string, number> = { OR: 0, '||': 0, XOR: 1, AND: 2, '&&': 2 };

/**
 * node-sql-parser builds a chain of AND/OR left to right, without precedence:
 * `a OR b AND c` comes out as `(a OR b) AND c` (in WHERE, ON, HAVING, CASE WHEN...), which
 * answers differently from MySQL's `a OR (b AND c)`. The chain is flattened (parenthesised
 * parts stay whole) and rebuilt with MySQL's precedence; already-right trees come back as
 * they are.
 */
function logicalPrecedence(root: AstNode): AstNode {
  const operands: AstNode[] = [];
  const ops: string[] = [];
  const flatten = (e: AstNode) => {
    const rank =
      e?.type === 'binary_expr' && !e.parentheses
        ? LOGICAL_RANK[String(e.operator).toUpperCase()]
        : undefined;
    if (rank === undefined) {
      operands.push(e);
      return;
    }
    flatten(e.left);
    ops.push(e.operator);
    flatten(e.right);
  };
  flatten(root);
  // Rebuild loosest-first: split on the loosest operator present, left-associative.
  const build = (lo: number, hi: number): AstNode => {
    if (lo === hi) return operands[lo];
    let loosest = Number.POSITIVE_INFINITY;
    for (let i = lo; i < hi; i++) loosest = Math.min(loosest, LOGICAL_RANK[ops[i].toUpperCase()]);
    let node: AstNode | null = null;
    let start = lo;
    for (let i = lo; i <= hi; i++) {
      if (i < hi && LOGICAL_RANK[ops[i].toUpperCase()] !== loosest) continue;
      const part = build(start, i);
      node =
        node === null ? part : { type: 'binary_expr', operator: ops[start - 1], left: node, right: part };
      start = i + 1;
    }
    return node!;
  };
  const rebuilt = build(0, operands.length - 1);
  if (root.collate) rebuilt.collate = root.collate;
  return sameShape(root, rebuilt) ? root : rebuilt;
}

function sameShape(a: AstNode, b: AstNode): boolean {
  if (a === b) return true;
  if (a?.type !== 'binary_expr' || b?.type !== 'binary_expr' || a.operator !== b.operator) return false;
  return sameShape(a.left, b.left) && sameShape(a.right, b.right);
}

function fixChildren(n: AstNode, skip: string[] = []): void {
  for (const k of Object.keys(n)) {
    if (skip.includes(k)) continue;
    const v = n[k];
    if (v && typeof v === 'object') n[k] = fix(v);
  }
}

function numberValue(v: unknown): number | string {
  if (typeof v === 'number') return v;
  const s = String(v);
  if (/^-?\d+$/.test(s)) {
    const num = Number(s);
    if (Number.isSafeInteger(num)) return num;
  }
  return s;
}

function fixColumnRef(n: AstNode): AstNode {
  n.db = ident(n.db) ?? null;
  n.table = ident(n.table) ?? null;
  n.column = ident(n.column);
  if (n.schema !== undefined) n.schema = ident(n.schema);
  splitSchema(n);
  if (!n.table && typeof n.column === 'string' && EXPONENT.test(n.column)) {
    return { type: 'number', value: n.column };
  }
  return n;
}

function fixFunction(n: AstNode): AstNode {
  if (n.name && typeof n.name === 'object') {
    const parts: any[] = Array.isArray(n.name.name) ? n.name.name : [];
    n.name = parts.map((p) => String(p?.value ?? p)).join('.');
  }
  if (typeof n.name === 'string') n.name = n.name.toUpperCase();
  fixChildren(n, ['name']);
  const args: AstNode[] = n.args?.value ?? [];
  if (n.name === 'NOT' && args.length === 1) {
    return { type: 'unary_expr', operator: 'NOT', expr: args[0] };
  }
  if (n.name === 'EXISTS' && args.length === 1) {
    return { type: 'unary_expr', operator: 'EXISTS', expr: args[0] };
  }
  // TIMESTAMPADD(unit, n, d) is DATE_ADD(d, INTERVAL n unit), which every target can say.
  if (n.name === 'TIMESTAMPADD' && args.length === 3 && args[0]?.type === 'origin') {
    const unit = String(args[0].value)
      .toUpperCase()
      .replace(/^SQL_TSI_/, '');
    return {
      type: 'function',
      name: 'DATE_ADD',
      args: { type: 'expr_list', value: [args[2], { type: 'interval', expr: args[1], unit }] },
      over: null,
    };
  }
  if (n.name === 'CONVERT' && args.length === 2 && args[1]?.type === 'datatype') {
    const { type: _t, ...target } = args[1];
    return { type: 'cast', keyword: 'cast', expr: args[0], symbol: 'as', target: [target] };
  }
  return n;
}

function fixAggregate(n: AstNode): AstNode {
  if (typeof n.name === 'string') n.name = n.name.toUpperCase();
  fixChildren(n);
  const e = n.args?.expr;
  // node-sql-parser only reads SUM(DISTINCT(x)); it arrives as a function named DISTINCT.
  if (e?.type === 'function' && e.name === 'DISTINCT' && e.args?.value?.length === 1 && !n.args.distinct) {
    n.args.distinct = 'DISTINCT';
    n.args.expr = e.args.value[0];
  }
  return n;
}

function fixTables(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const t of list) {
    if (!t || typeof t !== 'object') continue;
    if (t.db !== undefined) t.db = ident(t.db) ?? null;
    if (typeof t.table !== 'undefined' && typeof t.table !== 'object') t.table = ident(t.table);
    else if (t.table && typeof t.table === 'object' && QUOTED_IDENT.has(t.table.type))
      t.table = ident(t.table);
    if (t.as !== undefined && t.as !== null) t.as = ident(t.as);
    if (typeof t.table === 'string') splitSchema(t);
    if (Array.isArray(t.using)) t.using = t.using.map((u: unknown) => ident(u));
    if (Array.isArray(t.using) && t.using.length === 1 && t.using[0] === NATURAL_MARK) {
      // clause-gaps.ts: the planner fills the list once it knows both sides' columns.
      t.natural = true;
      t.using = null;
    }
    if (Array.isArray(t.expr)) {
      // A parenthesized join group: `LEFT JOIN (t2 JOIN t3 ON ...) ON ...`.
      t.type = 'join_group';
      fixTables(t.expr);
    } else if (t.expr && typeof t.expr === 'object') t.expr = fix(t.expr);
    if (t.on) t.on = fix(t.on);
  }
}

/** clause-gaps.ts wrote a RANGE frame as ROWS, marked by a first PARTITION BY item. */
function rangeFrame(ws: AstNode): void {
  const parts = ws.partitionby;
  const first = Array.isArray(parts) ? parts[0]?.expr : null;
  if (first?.type !== 'column_ref' || first.column !== RANGE_MARK) return;
  parts.shift();
  if (parts.length === 0) ws.partitionby = null;
  const f = ws.window_frame_clause;
  if (f?.type === 'binary_expr' && f.left?.type === 'origin') f.left.value = 'RANGE';
  else if (f && typeof f.type === 'string') f.type = 'RANGE';
}

/** `FROM (t1 JOIN t2 ON ...)` arrives as one object; the outer parentheses change nothing. */
function fromList(from: unknown): unknown {
  if (from && typeof from === 'object' && !Array.isArray(from) && Array.isArray((from as AstNode).expr)) {
    return (from as AstNode).expr;
  }
  return from;
}

function fixLimit(n: AstNode): void {
  for (const key of ['limit', '_limit']) {
    const l = n[key];
    if (!l || !Array.isArray(l.value)) continue;
    l.value = l.value.map((v: any) => fix(v));
    if (l.value.length === 0) {
      n[key] = null;
    } else if (l.seperator === ',' && l.value.length === 2) {
      n[key] = { seperator: 'offset', value: [l.value[1], l.value[0]] };
    } else if (l.value.length === 1) {
      n[key] = { seperator: '', value: [l.value[0]] };
    }
  }
}

function fixSelect(n: AstNode): AstNode {
  if (Array.isArray(n.with)) {
    for (const w of n.with) {
      w.name = ident(w.name);
      if (w.stmt) w.stmt = fix(w.stmt.ast ? w.stmt : { ast: w.stmt });
      if (Array.isArray(w.columns)) w.columns = w.columns.map((c: any) => ident(c?.column ?? c));
    }
  }
  if (Array.isArray(n.columns)) {
    for (const c of n.columns) {
      if (c && typeof c === 'object') {
        if (c.as !== undefined && c.as !== null) c.as = ident(c.as);
        c.expr = fix(c.expr);
      }
    }
  }
  n.from = fromList(n.from);
  fixTables(n.from);
  if (n.groupby) {
    if (Array.isArray(n.groupby)) n.groupby = { columns: n.groupby, modifiers: [] };
    n.groupby.columns = n.groupby.columns ? fix(n.groupby.columns) : null;
    n.groupby.modifiers = (n.groupby.modifiers ?? []).filter(Boolean);
  }
  for (const k of ['where', 'having', 'orderby', '_orderby', 'window']) if (n[k]) n[k] = fix(n[k]);
  fixLimit(n);
  if (typeof n.set_op === 'string') n.set_op = n.set_op.toUpperCase().replace(/\s+/g, ' ');
  const nextOptions = n._next?.options;
  if (Array.isArray(nextOptions) && nextOptions.includes(SET_ALL_MARK)) {
    // INTERSECT ALL / EXCEPT ALL, marked by clause-gaps.ts.
    n.set_op = `${n.set_op} ALL`;
    const rest = nextOptions.filter((o: unknown) => o !== SET_ALL_MARK);
    n._next.options = rest.length ? rest : null;
  }
  if (n._next) {
    n._next = fix(n._next);
    hoistSetOpTail(n);
  }
  return n;
}

/** `SELECT .. UNION SELECT .. ORDER BY x LIMIT n`: the parser puts ORDER/LIMIT on the last member. */
function hoistSetOpTail(head: AstNode): void {
  let last = head;
  while (last._next) last = last._next;
  if (last === head || last.parentheses_symbol) return;
  if (last.orderby && !head._orderby) {
    head._orderby = last.orderby;
    last.orderby = null;
  }
  if (last.limit && !head._limit) {
    head._limit = last.limit;
    last.limit = null;
  }
}

// ---------------------------------------------------------------------------------------
// Text the parser cannot read, said in a form it can (run before node-sql-parser).

const DISTINCT_AGGREGATES = new Set([
  'SUM',
  'AVG',
  'MIN',
  'MAX',
  'STD',
  'STDDEV',
  'STDDEV_POP',
  'STDDEV_SAMP',
  'VARIANCE',
  'VAR_POP',
  'VAR_SAMP',
  'BIT_AND',
  'BIT_OR',
  'BIT_XOR',
  'COUNT',
]);

/** `1e-5` without a decimal point: the grammar reads it as a column `1e` minus 5. */
const SIGNED_EXPONENT = /^\d+[eE][+-]\d+$/;

/** A number literal's text as the parser is given it (rewriteParserGaps): `1e-5` becomes `1.0e-5`. */
export function parserNumberText(text: string): string {
  if (!SIGNED_EXPONENT.test(text)) return text;
  const e = text.search(/[eE]/);
  return `${text.slice(0, e)}.0${text.slice(e)}`;
}

/**
 * Rewrites MySQL that node-sql-parser 5.4 rejects into equivalent text it accepts:
 * `SUM(DISTINCT x)` (and AVG/MIN/MAX/...) → `SUM(DISTINCT(x))` (normalizeAst turns it back
 * into a DISTINCT aggregate); `SUM(ALL x)` → `SUM(x)`; `STD(x)` → `STDDEV_POP(x)`; `VARIANCE(x)` → `VAR_POP(x)`;
 * `SUBSTRING(s FROM a FOR b)` → `SUBSTRING(s, a, b)`; bare `LOCALTIME` / `LOCALTIMESTAMP`
 * → with `()`; `.5` → `0.5`; decimal literals of more than 15 digits → an exact
 * `CAST('...' AS DECIMAL(p, s))`, and `-<big integer>` → `-(<big integer>)`, because the
 * parser reads numbers through JS doubles. Strings, quoted names and comments are never touched.
 * Returns the text unchanged when it cannot be tokenized (the parser then reports the error).
 */
export function rewriteParserGaps(sql: string): string {
  let tokens: Token[];
  try {
    tokens = tokenize(sql);
  } catch {
    return sql;
  }
  const edits: { at: number; del: number; text: string }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const next = tokens[i + 1];
    if (t.kind === 'ident' && isPunct(next, '(') && next.start === t.end) {
      const name = t.value.toUpperCase();
      const inner = tokens[i + 2];
      if (DISTINCT_AGGREGATES.has(name) && isKeyword(inner, 'ALL')) {
        edits.push({ at: inner.start, del: inner.end - inner.start, text: '' });
      } else if (DISTINCT_AGGREGATES.has(name) && name !== 'COUNT' && isKeyword(inner, 'DISTINCT')) {
        const close = closing(tokens, i + 1);
        if (close > i + 3) {
          edits.push({ at: inner.end, del: 0, text: '(' });
          edits.push({ at: tokens[close].start, del: 0, text: ')' });
        }
      }
      if (name === 'STD') edits.push({ at: t.start, del: t.end - t.start, text: 'STDDEV_POP' });
      // VARIANCE is MySQL's VAR_POP; the grammar cannot read the name.
      if (name === 'VARIANCE') edits.push({ at: t.start, del: t.end - t.start, text: 'VAR_POP' });
      if (name === 'SUBSTRING' || name === 'SUBSTR' || name === 'MID') {
        const close = closing(tokens, i + 1);
        let depth = 0;
        for (let j = i + 1; j < close; j++) {
          if (isPunct(tokens[j], '(')) depth++;
          else if (isPunct(tokens[j], ')')) depth--;
          else if (depth === 1 && isKeyword(tokens[j], 'FROM', 'FOR')) {
            edits.push({ at: tokens[j].start, del: tokens[j].end - tokens[j].start, text: ',' });
          }
        }
      }
    }
    if (isKeyword(t, 'LOCALTIME', 'LOCALTIMESTAMP') && !isPunct(next, '(') && !isPunct(tokens[i - 1], '.')) {
      edits.push({ at: t.end, del: 0, text: '()' });
    }
    if (t.kind === 'number') {
      // The parser reads literals through JS numbers: keep long ones exact.
      const dec = /^(\d*)\.(\d+)$/.exec(t.value);
      if (
        dec &&
        dec[1].replace(/^0+/, '').length + dec[2].length > 15 &&
        dec[1].length + dec[2].length <= 65 &&
        dec[2].length <= 30
      ) {
        const p = Math.max(dec[1].length + dec[2].length, 1);
        edits.push({
          at: t.start,
          del: t.end - t.start,
          text: `CAST('${t.value}' AS DECIMAL(${p}, ${dec[2].length}))`,
        });
      } else if (/^\d{16,}$/.test(t.value) && isPunct(tokens[i - 1], '-')) {
        edits.push({ at: t.start, del: t.end - t.start, text: `(${t.value})` });
      } else if (SIGNED_EXPONENT.test(t.value)) {
        edits.push({ at: t.start, del: t.end - t.start, text: parserNumberText(t.value) });
      }
    }
    if (isPunct(t, '.') && next?.kind === 'number' && next.start === t.end) {
      const prev = tokens[i - 1];
      const qualifier =
        prev &&
        prev.end === t.start &&
        (prev.kind === 'ident' || prev.kind === 'quoted' || isPunct(prev, ')'));
      if (!qualifier) edits.push({ at: t.start, del: 0, text: '0' });
    }
  }
  if (edits.length === 0) return sql;
  edits.sort((a, b) => b.at - a.at);
  let out = sql;
  for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.at + e.del);
  return out;
}
