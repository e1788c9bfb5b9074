/**
 * Statements that differ only in plain literals (`WHERE id = 17` vs `WHERE id = 18`) share
 * one parsed template: node-sql-parser is the dominant cost of a point lookup whose text
 * is new every time. A shape is parsed once with unique marker literals; it is only
 * cached when every marker lands exactly once, as the `value` of a normalized literal node
 * (normalize.ts) and nowhere else (not a type length, an alias, a date literal, a
 * rewritten or folded number...). Anything else, and any literal we cannot vouch for
 * (escapes, prefixes, decimals, big or zero-padded numbers), stays in the shape's text, so
 * it goes through a full parse. Labels are recomputed from the real text.
 */
import type { SqlStatement } from '../ast/nodes.js';
import { TtlLru } from '../plan/cache.js';
import { parseStatement, type Statement } from './index.js';
import { selectLabels } from './labels.js';
import { isKeyword, type Token, tokenize } from './lexer.js';

export type Path = (string | number)[];

export interface Template {
  ast: SqlStatement;
  /** Where each literal of the shape goes, in text order. */
  paths: Path[];
}

/** Integers the parser reads exactly and writes back as the same JS number. */
const PLAIN_INT = /^(0|[1-9]\d{0,14})$/;
/** Literal `i`, when a number, is parsed as `NUMBER_MARKER_BASE + i` in its template. */
export const NUMBER_MARKER_BASE = 987_654_320_000;
const STRING_MARKER = (i: number) => `tbq${i}m7x`;

/** Statement starts that are never one of our service statements (parse/service.ts). */
const SQL_STARTS = ['SELECT', 'WITH', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE'];

export interface Literal {
  token: Token;
  kind: 'n' | 's';
}

/** The literals of `tokens` that can become template slots. */
function literals(sql: string, tokens: Token[]): Literal[] {
  const out: Literal[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const prev = tokens[i - 1];
    const next = tokens[i + 1];
    if (t.kind === 'number') {
      if (!PLAIN_INT.test(t.value)) continue;
      if (prev && prev.end === t.start && prev.kind === 'punct' && prev.value === '.') continue;
      if (next && next.start === t.end && (next.kind !== 'punct' || next.value === '.')) continue;
      out.push({ token: t, kind: 'n' });
    } else if (t.kind === 'string') {
      if (sql[t.start] !== "'") continue;
      // Raw text equals value: no escapes, no doubled quotes to decode.
      if (sql.slice(t.start + 1, t.end - 1) !== t.value || t.value.includes('\\')) continue;
      // N'..', X'..', _utf8'..' and adjacent-string concatenation keep their text.
      if (prev && prev.end === t.start && prev.kind !== 'punct') continue;
      if (next && next.start === t.end && next.kind !== 'punct') continue;
      out.push({ token: t, kind: 's' });
    }
  }
  return out;
}

function literalValue(lit: Literal): number | string {
  return lit.kind === 'n' ? Number(lit.token.value) : lit.token.value;
}

function markerFor(kind: 'n' | 's', i: number): number | string {
  return kind === 'n' ? NUMBER_MARKER_BASE + i : STRING_MARKER(i);
}

function markerText(kind: 'n' | 's', i: number): string {
  return kind === 'n' ? String(NUMBER_MARKER_BASE + i) : `'${STRING_MARKER(i)}'`;
}

/** `sql` with the literals `marked` picks replaced by their markers (literal `i` gets marker `i`). */
export function markedText(sql: string, lits: Literal[], marked: (l: Literal) => boolean): string {
  let text = '';
  let at = 0;
  lits.forEach((l, i) => {
    if (!marked(l)) return;
    text += sql.slice(at, l.token.start) + markerText(l.kind, i);
    at = l.token.end;
  });
  return text + sql.slice(at);
}

/**
 * Where `marker` sits in `ast`: the one path to a literal node's value, or null when it
 * is missing, appears more than once, or appears anywhere else (even inside a string).
 */
function locate(ast: unknown, marker: number | string, type: 'number' | 'string'): Path | null {
  const text = String(marker);
  let found: Path | null = null;
  let count = 0;
  const walk = (
    v: unknown,
    path: Path,
    parent: { type?: unknown } | null,
    key: string | number | null,
  ): void => {
    if (typeof v === 'number') {
      if (v === marker) {
        count++;
        if (key === 'value' && parent?.type === type) found = [...path];
      }
      return;
    }
    if (typeof v === 'string') {
      if (v.includes(text)) {
        count++;
        if (v === marker && key === 'value' && parent?.type === type) found = [...path];
      }
      return;
    }
    if (typeof v === 'bigint') {
      if (String(v).includes(text)) count += 2;
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        walk(v[i], path, null, i);
        path.pop();
      }
      return;
    }
    for (const k of Object.keys(v)) {
      if (k.includes(text)) count += 2;
      path.push(k);
      walk((v as Record<string, unknown>)[k], path, v as { type?: unknown }, k);
      path.pop();
    }
  };
  walk(ast, [], null, null);
  return count === 1 ? found : null;
}

/** Set the value at `path` in a tree (a template's literal slot). */
export function setAt(tree: unknown, path: Path, value: unknown): void {
  let o = tree as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) o = o[path[i]] as Record<string | number, unknown>;
  o[path[path.length - 1]] = value;
}

/**
 * A statement's text cut at its literal slots: computed once per call and shared by the
 * parse (this file) and the pushdown plan cache (plan/shape-plans.ts), so the text is
 * tokenized once.
 */
export interface Shape {
  sql: string;
  tokens: Token[];
  lits: Literal[];
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
  const lits = literals(sql, tokens);
  if (lits.length === 0) return null;
  let key = `${scope}\u0000`;
  let at = 0;
  for (const l of lits) {
    key += `${sql.slice(at, l.token.start)}\u0000${l.kind}`;
    at = l.token.end;
  }
  key += sql.slice(at);
  return { sql, tokens, lits, key };
}

/**
 * A parser front with a shape cache. `scope` names what else the parse depends on (the
 * source list, for the three-part-name pre-pass); templates are never shared across scopes.
 */
export class StatementTemplates {
  /** null: a shape seen before that cannot be templated. */
  private readonly cache: TtlLru<Template | null>;

  constructor(max = 500, ttlMs = 10 * 60_000) {
    this.cache = new TtlLru(max, ttlMs);
  }

  /** `shape` is `shapeOf(sql, scope)` when the caller already has it. */
  parse(
    sql: string,
    isSource: (name: string) => boolean,
    scope = '',
    shape: Shape | null = shapeOf(sql, scope),
  ): Statement {
    if (!shape) return parseStatement(sql, isSource);
    const { lits, tokens } = shape;
    let tpl = this.cache.get(shape.key);
    if (tpl === undefined) {
      tpl = this.build(sql, lits, isSource);
      this.cache.set(shape.key, tpl);
    }
    if (tpl === null) return parseStatement(sql, isSource);
    const ast = structuredClone(tpl.ast);
    for (let i = 0; i < lits.length; i++) setAt(ast, tpl.paths[i], literalValue(lits[i]));
    const labels = ast?.type === 'select' ? selectLabels(sql, ast, tokens) : null;
    return { kind: 'sql', ast, text: sql, labels };
  }

  /**
   * The shape's template as parsed with markers (never to be changed: clone it), or
   * undefined when there is none (yet).
   */
  template(shape: Shape): Template | undefined {
    return this.cache.get(shape.key) ?? undefined;
  }

  private build(sql: string, lits: Literal[], isSource: (name: string) => boolean): Template | null {
    const text = markedText(sql, lits, () => true);
    let stmt: Statement;
    try {
      stmt = parseStatement(text, isSource);
    } catch {
      return null;
    }
    if (stmt.kind !== 'sql') return null;
    const paths: Path[] = [];
    for (let i = 0; i < lits.length; i++) {
      const k = lits[i].kind;
      const p = locate(stmt.ast, markerFor(k, i), k === 'n' ? 'number' : 'string');
      if (!p) return null;
      paths.push(p);
    }
    return { ast: stmt.ast, paths };
  }
}
