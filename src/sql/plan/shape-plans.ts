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
import { markedText, NUMBER_MARKER_BASE, type Shape, setAt, type Template } from '../parse/templates.js';
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

  /** The cache key of a statement, or null when it has no integer slot. */
  key(shape: Shape, db: string | undefined): string | null {
    let sig = '';
    let numbers = false;
    for (const l of shape.lits) {
      if (l.kind === 'n') {
        numbers = true;
        sig += valueClass(l.token.value);
      } else sig += `\u0000${l.token.value}\u0000`;
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
  return fillSlots(plan.sql, (slot) => shape.lits[slot].token.value);
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
  const { lits, sql } = shape;
  if (plan.kind !== 'pushdown' || template.ast?.type !== 'select' || template.ast.from == null) return null;
  const markers: { slot: number; text: string }[] = [];
  for (let i = 0; i < lits.length; i++) {
    if (lits[i].kind !== 'n') continue;
    if (!fillableSlot(template.ast, template.paths[i])) return null;
    markers.push({ slot: i, text: String(NUMBER_MARKER_BASE + i) });
  }
  const ast = structuredClone(template.ast);
  for (let i = 0; i < lits.length; i++)
    if (lits[i].kind === 's') setAt(ast, template.paths[i], lits[i].token.value);
  const text = markedText(sql, lits, (l) => l.kind === 'n');
  if (!sameLabels(selectLabels(text, ast, tokenize(text)), input.labels)) return null;
  let marked: Plan;
  try {
    marked = await input.planAst(ast);
  } catch {
    return null;
  }
  if (marked.kind !== 'pushdown' || marked.source !== plan.source) return null;
  const cut = cutAtMarkers(marked.sql, markers, marked.source.dialect === 'mysql');
  if (!cut || fillSlots(cut, (slot) => lits[slot].token.value) !== plan.sql) return null;
  return { source: plan.source, sql: cut, labels: input.labels, retype: plan.retype };
}

function sameLabels(a: string[] | null, b: string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
