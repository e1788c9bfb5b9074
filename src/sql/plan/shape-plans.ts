/**
 * Pushdown plans shared by statements that differ only in integers (`WHERE id = 17`, then
 * `= 18`): parsing, binding, planning and compiling are most of the engine's own cost of a
 * point lookup, and none of them depends on which integer it is once the compiled text is
 * proven to carry each one through unchanged. The plan of a shape is compiled once with
 * the template's marker integers in the slots and kept cut at the markers; a later call
 * pastes in its own digits. A shape is kept only when (plan/shape-slots.ts) every slot is
 * in a place where compilers do not look at values, each marker lands exactly once as a
 * number of its own, pasting the first call's values gives exactly the text that call
 * compiled to, and its labels do not include a slot. Value classes (0, 1, int, big) are
 * part of the key, so each is verified on its own. String literals are part of the key
 * as they are: dialects rewrite strings by value (dates, collation folding).
 */
import type { Source } from '../../sources/types.js';
import type { SqlStatement } from '../ast/nodes.js';
import type { ResultType } from '../dialects/infer.js';
import { selectLabels } from '../parse/labels.js';
import { tokenize } from '../parse/lexer.js';
import { type InListSlot, literalValue, PLAIN_INT } from '../parse/slots.js';
import {
  integerMarkedText,
  NUMBER_MARKER_BASE,
  type Shape,
  setAt,
  type Template,
} from '../parse/templates.js';
import { TtlLru } from './cache.js';
import type { Plan } from './planner.js';
import { cutAtMarkers, fillableSlot, fillSlots, type SlottedSql, valueClass } from './shape-slots.js';

export interface ShapePlan {
  source: Source;
  sql: SlottedSql;
  /** The statement's column labels: the same for every statement of the shape. */
  labels: string[] | null;
  /** The plan's result columns of settled type (plan-types.ts). */
  retype?: ResultType[];
}

/** The longest shape (its text with each slot cut to a mark) whose plan is shared. */
const MAX_SHARED_SHAPE_CHARS = 4096;

export class ShapePlans {
  /** null: a shape seen before whose plan cannot be shared. */
  private readonly cache: TtlLru<ShapePlan | null>;
  private gen = 0;

  constructor(max: number, ttlMs: number) {
    this.cache = new TtlLru(max, ttlMs);
  }

  /** Bumped by clear(): a plan made before then must not be stored after it. */
  get generation(): number {
    return this.gen;
  }

  /**
   * The cache key of a statement, or null when it has no integer slot, or has a list that
   * is not all plain integers (VALUES rows, strings, NULL...). An IN list of integers is
   * keyed by the classes of its values and whether it has one value or more.
   */
  key(shape: Shape, db: string | undefined): string | null {
    // Learning a shape plans its template once more: it pays for statements sent again and
    // again (lookups), not for a 300-branch UNION. A list counts once, whatever its length.
    if (shape.key.length > MAX_SHARED_SHAPE_CHARS) return null;
    let sig = '';
    let numbers = false;
    for (const l of shape.slots) {
      if (l.kind === 'R') return null;
      if (l.kind === 'L') {
        const classes = intListClasses(shape, l);
        if (classes === null) return null;
        numbers = true;
        sig += `[${classes}${l.elems.length === 1 ? '1' : '+'}]`;
      } else if (l.kind === 'n') {
        numbers = true;
        sig += valueClass(l.token.value);
      } else sig += `\u0000${shape.sql.slice(l.token.start, l.token.end)}\u0000`;
    }
    return numbers ? `${db ?? ''}\u0001${shape.key}\u0001${sig}` : null;
  }

  get(key: string): ShapePlan | null | undefined {
    return this.cache.get(key);
  }

  set(key: string, plan: ShapePlan | null, generation: number): void {
    if (generation === this.gen) this.cache.set(key, plan);
  }

  clear(): void {
    this.gen++;
    this.cache.clear();
  }
}

/** The SQL a shape's plan runs for one statement of that shape. */
export function shapeSql(plan: ShapePlan, shape: Shape): string {
  return fillSlots(plan.sql, (slot) => slotText(shape, slot));
}

export interface LearnInput {
  shape: Shape;
  /** The shape's parse template (markers in every slot). */
  template: Template;
  /** What the normal path planned for this very statement, and its labels. */
  plan: Plan;
  labels: string[] | null;
  /** Plans an AST as the normal path does (it may change the AST). */
  planAst: (ast: SqlStatement) => Promise<Plan>;
}

/** The shared plan of a statement's shape, or null when it cannot be shared. */
export async function learnShapePlan(input: LearnInput): Promise<ShapePlan | null> {
  const { shape, template, plan } = input;
  const { slots, sql } = shape;
  if (plan.kind !== 'pushdown' || template.ast?.type !== 'select' || template.ast.from == null) return null;
  const markers: { slot: number; text: string }[] = [];
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i];
    if (s.kind === 'R' || (s.kind === 'L' && intListClasses(shape, s) === null)) return null;
    if (s.kind !== 'n' && s.kind !== 'L') continue;
    // A list's template holds one marker element where the list goes.
    const path = s.kind === 'L' ? [...template.paths[i], 0, 'value'] : template.paths[i];
    if (!fillableSlot(template.ast, path)) return null;
    markers.push({ slot: i, text: String(NUMBER_MARKER_BASE + i) });
  }
  const ast = structuredClone(template.ast);
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i];
    if (s.kind === 'd' || s.kind === 's') setAt(ast, template.paths[i], literalValue(sql, s));
  }
  const text = integerMarkedText(shape);
  if (!sameLabels(selectLabels(text, ast, tokenize(text)), input.labels)) return null;
  let marked: Plan;
  try {
    marked = await input.planAst(ast);
  } catch {
    return null;
  }
  if (marked.kind !== 'pushdown' || marked.source !== plan.source) return null;
  const cut = cutAtMarkers(marked.sql, markers, marked.source.dialect === 'mysql');
  if (!cut || fillSlots(cut, (slot) => slotText(shape, slot)) !== plan.sql) return null;
  return { source: plan.source, sql: cut, labels: input.labels, retype: plan.retype };
}

/**
 * The text of slot `slot` in a shape plan's SQL: an integer's digits, an IN list's digits
 * joined as the compilers join them (learnShapePlan proves it on the first statement).
 */
function slotText(shape: Shape, slot: number): string {
  const s = shape.slots[slot];
  if (s.kind === 'n') return s.token.value;
  if (s.kind !== 'L') throw new Error(`shape plan slot ${slot} is not an integer or an IN list`);
  const t = shape.tokens;
  let out = t[s.elems[0]].value;
  for (let i = 1; i < s.elems.length; i++) out += `, ${t[s.elems[i]].value}`;
  return out;
}

/** The value classes of an IN list of plain integers (shape-slots.ts valueClass), or null when it holds anything else. */
function intListClasses(shape: Shape, s: InListSlot): string | null {
  const classes = new Set<string>();
  for (const e of s.elems) {
    const t = shape.tokens[e];
    if (t.kind !== 'number' || !PLAIN_INT.test(t.value)) return null;
    classes.add(valueClass(t.value));
  }
  return [...classes].sort().join('');
}

function sameLabels(a: string[] | null, b: string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
