/**
 * Statements that differ only in literals (`WHERE id = 17` vs `WHERE id = 18`, or IN lists
 * and VALUES rows of any length) share one parsed template: node-sql-parser is the
 * dominant cost of a statement whose text is new every time, and for a long list it is
 * most of it. A shape (its text cut at its slots, slots.ts) is parsed once with unique
 * marker literals (markers.ts); it is only cached when every marker lands exactly once as
 * the `value` of a normalized literal node and nowhere else. A list's elements never reach
 * the parser: a later call fills in nodes made from its own tokens. Labels are recomputed
 * from the real text. Handling is linear in the statement: one tokenization (shapeOf), one
 * marker walk per new shape, one clone and one fill per call. A long UNION chain of one
 * member shape is parsed from three of its members and grown back (union-runs.ts).
 */
import { cloneTree } from '../ast/clone.js';
import type { SqlStatement } from '../ast/nodes.js';
import { MAX_ENTRY_KEY_CHARS, TtlLru } from '../plan/cache.js';
import type { Statement } from './index.js';
import { selectLabels } from './labels.js';
import { isKeyword, type Token, tokenize } from './lexer.js';
import { checkStatementSize } from './limits.js';
import { getAt, markerText, type Path } from './markers.js';
import { StatementParser } from './parse-pool.js';
import type { ParsedText } from './parse-text.js';
import { findSlots, isList, type LiteralKind, literalNode, literalValue, type Slot } from './slots.js';
import { findUnionRun, fullSlot, growRun, KEPT_UNITS, shortenedText, type UnionRun } from './union-runs.js';

export { NUMBER_MARKER_BASE, type Path, setAt } from './markers.js';
export type { ListSlot, LiteralSlot, Slot } from './slots.js';

export interface Template {
  ast: SqlStatement;
  /**
   * Per slot: a literal's path to its node's `value`; a list's path to the array that
   * holds its elements (IN) or its rows (VALUES).
   */
  paths: Path[];
}

/**
 * Calls `f` with the parent and key of each slot's path in `tree`. Each path is walked from
 * where it parts from the one before (kept objects of the shared prefix), not from the root:
 * a 300-member UNION chain nests each member under the one before, and a walk from the root
 * per slot would cost slots x depth lookups.
 */
function eachSlot(
  tree: unknown,
  paths: Path[],
  f: (parent: Record<string | number, unknown>, key: string | number, slot: number) => void,
): void {
  const objs: unknown[] = [tree];
  let prev: Path = [];
  for (let slot = 0; slot < paths.length; slot++) {
    const p = paths[slot];
    const last = p.length - 1;
    let d = 0;
    while (d < last && d < prev.length - 1 && p[d] === prev[d]) d++;
    let o = objs[d] as Record<string | number, unknown>;
    for (; d < last; d++) {
      o = o[p[d]] as Record<string | number, unknown>;
      objs[d + 1] = o;
    }
    f(o, p[last], slot);
    prev = p;
  }
}

/** Statement starts that are never one of our service statements (parse/service.ts). */
const SQL_STARTS = ['SELECT', 'WITH', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE'];

/**
 * A statement's text cut at its literal slots: computed once per call and shared by the
 * parse (this file) and the pushdown plan cache (plan/shape-plans.ts), so the text is
 * tokenized once.
 */
export interface Shape {
  sql: string;
  tokens: Token[];
  slots: Slot[];
  /** The text with every slot replaced by its kind, and the scope: equal keys, same template. */
  key: string;
}

/** The shape of `sql`, or null when it has no slots or is not a statement templates take. */
export function shapeOf(sql: string, scope = ''): Shape | null {
  if (sql.includes('\u0000')) return null;
  let tokens: Token[];
  try {
    tokens = tokenize(sql);
  } catch {
    return null;
  }
  const first = tokens[0];
  if (!first || !(isKeyword(first, ...SQL_STARTS) || (first.kind === 'punct' && first.value === '(')))
    return null;
  const slots = findSlots(sql, tokens);
  if (slots.length === 0) return null;
  let key = `${scope}\u0000`;
  let at = 0;
  for (const s of slots) {
    const [start, end] = isList(s) ? [s.start, s.end] : [s.token.start, s.token.end];
    key += `${sql.slice(at, start)}\u0000${s.kind}${s.kind === 'R' ? s.arity : ''}`;
    at = end;
  }
  key += sql.slice(at);
  return { sql, tokens, slots, key };
}

/** Tokens of `shape` outside its lists (what the parser would read). */
function parsedTokens(shape: Shape): number {
  let n = shape.tokens.length;
  for (const s of shape.slots) if (isList(s)) n -= s.elems.length * 2;
  return n;
}

/** The marked text of a shape and the kind of each marker in it; `markers[slot]` is its first marker. */
function marked(shape: Shape): { text: string; kinds: LiteralKind[]; first: number[] } {
  const { sql, slots } = shape;
  const kinds: LiteralKind[] = [];
  const first: number[] = [];
  let text = '';
  let at = 0;
  for (const s of slots) {
    first.push(kinds.length);
    if (s.kind === 'L') {
      text += sql.slice(at, s.start) + markerText('n', kinds.length);
      kinds.push('n');
      at = s.end;
    } else if (s.kind === 'R') {
      const row: string[] = [];
      for (let j = 0; j < s.arity; j++) {
        row.push(markerText('n', kinds.length));
        kinds.push('n');
      }
      text += `${sql.slice(at, s.start)}(${row.join(', ')})`;
      at = s.end;
    } else {
      text += sql.slice(at, s.token.start) + markerText(s.kind, kinds.length);
      kinds.push(s.kind);
      at = s.token.end;
    }
  }
  return { text: text + sql.slice(at), kinds, first };
}

/**
 * `sql` with its integer literals and IN lists replaced by their markers (plan/shape-plans.ts,
 * which takes no shape with VALUES rows, so marker `i` is slot `i`'s).
 */
export function integerMarkedText(shape: Shape): string {
  const { sql, slots } = shape;
  let text = '';
  let at = 0;
  slots.forEach((s, i) => {
    if (s.kind === 'n') {
      text += sql.slice(at, s.token.start) + markerText('n', i);
      at = s.token.end;
    } else if (s.kind === 'L') {
      text += sql.slice(at, s.start) + markerText('n', i);
      at = s.end;
    }
  });
  return text + sql.slice(at);
}

/** The template of a shape from its marked parse, or null when a marker is misplaced. */
function templateOf(parsed: ParsedText, shape: Shape, first: number[]): Template | null {
  const { stmt, markers } = parsed;
  if (stmt.kind !== 'sql' || !markers) return null;
  const ast = stmt.ast;
  const paths: Path[] = [];
  for (let i = 0; i < shape.slots.length; i++) {
    const s = shape.slots[i];
    const p = markers[first[i]];
    if (!p) return null;
    if (!isList(s)) {
      paths.push(p);
      continue;
    }
    // IN: [..list, 'value', 0, 'value']; VALUES: [..rows, 0, 'value', j, 'value'] for each j.
    const n = p.length;
    if (p[n - 1] !== 'value' || p[n - 2] !== 0 || p[n - 3] !== 'value') return null;
    if (s.kind === 'L') {
      const list = getAt(ast, p, n - 3) as { type?: string; value?: unknown[] } | undefined;
      if (list?.type !== 'expr_list' || list.value?.length !== 1) return null;
      paths.push(p.slice(0, n - 2));
      continue;
    }
    if (p[n - 4] !== 0) return null;
    const rowsPath = p.slice(0, n - 4);
    const rows = getAt(ast, rowsPath) as unknown[] | undefined;
    const row = rows?.[0] as { type?: string; value?: unknown[] } | undefined;
    if (
      !Array.isArray(rows) ||
      rows.length !== 1 ||
      row?.type !== 'expr_list' ||
      row.value?.length !== s.arity
    )
      return null;
    for (let j = 1; j < s.arity; j++) {
      const q = markers[first[i] + j];
      if (!q || q.join('\u0000') !== [...rowsPath, 0, 'value', j, 'value'].join('\u0000')) return null;
    }
    paths.push(rowsPath);
  }
  return { ast, paths };
}

/** A copy of `tpl`'s tree with the literals of `shape` in its slots. */
function fill(tpl: Template, shape: Shape): SqlStatement {
  const { sql, tokens, slots } = shape;
  const ast = cloneTree(tpl.ast);
  eachSlot(ast, tpl.paths, (parent, key, i) => {
    const s = slots[i];
    if (s.kind === 'L') parent[key] = s.elems.map((e) => literalNode(sql, tokens, e));
    else if (s.kind === 'R') {
      const proto = (parent[key] as object[])[0];
      const rows: object[] = [];
      for (let r = 0; r < s.elems.length; r += s.arity) {
        const value = [];
        for (let j = 0; j < s.arity; j++) value.push(literalNode(sql, tokens, s.elems[r + j]));
        rows.push({ ...proto, value });
      }
      parent[key] = rows;
    } else parent[key] = literalValue(sql, s);
  });
  return ast;
}

/** `f` of a value here or to come. */
function then<A, B>(x: A | Promise<A>, f: (a: A) => B | Promise<B>): B | Promise<B> {
  return x instanceof Promise ? x.then(f) : f(x);
}

/**
 * The shape of `shape`'s text with `run` cut to its first units, or null unless its slots
 * are the full shape's (of the same kinds) but for the units cut out.
 */
function shortShape(shape: Shape, run: UnionRun): Shape | null {
  const short = shapeOf(shortenedText(shape.sql, run));
  if (!short || short.slots.length !== shape.slots.length - (run.units - KEPT_UNITS) * run.perUnit)
    return null;
  for (let i = 0; i < short.slots.length; i++)
    if (short.slots[i].kind !== shape.slots[fullSlot(run, i)].kind) return null;
  return short;
}

/**
 * A parser front with a shape cache. `scope` names what else the parse depends on (the
 * source list, for the three-part-name pre-pass); templates are never shared across scopes.
 * A parse too big to run inline goes to `parser`'s worker: the answer is then a promise.
 */
export class StatementTemplates {
  /** null: a shape seen before that cannot be templated. */
  private readonly cache: TtlLru<Template | null>;

  constructor(
    max = 500,
    ttlMs = 10 * 60_000,
    private readonly parser: StatementParser = new StatementParser(),
  ) {
    this.cache = new TtlLru(max, ttlMs);
  }

  /**
   * `shape` is `shapeOf(sql, scope)` when the caller already has it; `sources` the names
   * `isSource` knows (a worker gets the list); `signal` stops a parse off the event loop.
   */
  parse(
    sql: string,
    isSource: (name: string) => boolean,
    scope = '',
    shape: Shape | null = shapeOf(sql, scope),
    sources: readonly string[] = [],
    signal?: AbortSignal,
  ): Statement | Promise<Statement> {
    if (!shape || shape.key.length > MAX_ENTRY_KEY_CHARS) {
      // Past the size the cache keeps, a template would be built for one use: parse plainly.
      if (shape) checkStatementSize(parsedTokens(shape));
      return this.parser.parse(sql, isSource, sources, signal);
    }
    const tpl = this.cache.get(shape.key);
    if (tpl === undefined) {
      checkStatementSize(parsedTokens(shape));
      return then(this.learn(shape, isSource, sources, signal), (t) => {
        this.cache.set(shape.key, t);
        return t ? this.instance(t, shape) : this.parser.parse(sql, isSource, sources, signal);
      });
    }
    if (tpl === null) return this.parser.parse(sql, isSource, sources, signal);
    return this.instance(tpl, shape);
  }

  /**
   * A new shape's template: from the text with its longest UNION run shortened when it has
   * one that grows back (union-runs.ts), else from the whole text; null when unsafe.
   */
  private learn(
    shape: Shape,
    isSource: (name: string) => boolean,
    sources: readonly string[],
    signal?: AbortSignal,
  ): Template | null | Promise<Template | null> {
    const run = findUnionRun(shape);
    const short = run && shortShape(shape, run);
    if (!run || !short) return this.whole(shape, isSource, sources, signal);
    const grown = then(this.whole(short, isSource, sources, signal), (t) => {
      const g =
        t &&
        growRun(
          t.ast,
          t.paths,
          run,
          shape.slots.map((s) => s.kind as 'n' | 'd' | 's' | 'x' | 'L'),
        );
      return g ? { ast: g.ast, paths: g.paths } : null;
    });
    return then(grown, (t) => t ?? this.whole(shape, isSource, sources, signal));
  }

  /** The template of `shape` from its whole marked text. */
  private whole(
    shape: Shape,
    isSource: (name: string) => boolean,
    sources: readonly string[],
    signal?: AbortSignal,
  ): Template | null | Promise<Template | null> {
    const m = marked(shape);
    const built = this.parser.parseMarked(m.text, isSource, sources, m.kinds, signal);
    return then(built, (p) => p && templateOf(p, shape, m.first));
  }

  private instance(tpl: Template, shape: Shape): Statement {
    const ast = fill(tpl, shape);
    const labels = ast?.type === 'select' ? selectLabels(shape.sql, ast, shape.tokens) : null;
    return { kind: 'sql', ast, text: shape.sql, labels };
  }

  /**
   * The shape's template as parsed with markers (never to be changed: clone it), or
   * undefined when there is none (yet).
   */
  template(shape: Shape): Template | undefined {
    return this.cache.get(shape.key) ?? undefined;
  }
}
