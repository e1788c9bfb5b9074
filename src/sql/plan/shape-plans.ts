/**
 * Plans shared by statements that differ only in integers (`WHERE id = 17`, then `= 18`):
 * parsing, binding, planning and compiling are most of the engine's own cost of a point
 * lookup, and none of them depends on which integer it is once the compiled text is proven
 * to carry each one through unchanged. Pushdown plans and local (cross-source) plans alike:
 * a local plan's texts (each fragment's SQL and its filters as EXPLAIN shows them, and the
 * local statement) are cut at the markers, and everything else of it must be the same as
 * the normal path planned for the first statement. The plan of a shape is compiled once with
 * the template's marker integers in the slots and kept cut at the markers; a later call
 * pastes in its own digits. A shape is kept only when (plan/shape-slots.ts) every slot is
 * in a place where compilers do not look at values, each marker lands exactly once as a
 * number of its own, pasting the first call's values gives exactly the text that call
 * compiled to, and its labels do not include a slot. Value classes (0, 1, int, big) are
 * part of the key, so each is verified on its own. String literals are part of the key
 * as they are: dialects rewrite strings by value (dates, collation folding).
 */
import type { ColumnOrigin } from '../../core/types.js';
import type { Source } from '../../sources/types.js';
import { cloneTree } from '../ast/clone.js';
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
import type { BoundRef } from './bind.js';
import { TtlLru } from './cache.js';
import type { Plan } from './planner.js';
import { cutAtMarkers, fillableSlot, fillSlots, type SlottedSql, valueClass } from './shape-slots.js';

interface SharedPlan {
  /** The statement's column labels: the same for every statement of the shape. */
  labels: string[] | null;
  /** The plan's result columns of settled type (plan-types.ts). */
  retype?: ResultType[];
  /** The plan's result column origins (origins.ts). */
  origins?: (ColumnOrigin | null)[];
}

export interface PushdownShapePlan extends SharedPlan {
  kind: 'pushdown';
  source: Source;
  sql: SlottedSql;
}

type LocalPlan = Extract<Plan, { kind: 'local' }>;

export interface LocalShapePlan extends SharedPlan {
  kind: 'local';
  /** The plan as made with the markers in its slots (its texts hold them). */
  marked: LocalPlan;
  /** Its texts cut at the markers: each fragment's SQL and filters, and the local statement. */
  fragments: { sql: SlottedSql; filters: SlottedSql[] }[];
  localSql: SlottedSql;
  markers: Marker[];
}

export type ShapePlan = PushdownShapePlan | LocalShapePlan;

interface Marker {
  slot: number;
  text: string;
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

/** The SQL a shape's pushdown plan runs for one statement of that shape. */
export function shapeSql(plan: PushdownShapePlan, shape: Shape): string {
  return fillSlots(plan.sql, (slot) => slotText(shape, slot));
}

/** The sources a shape's plan reads (the engine checks each is still the catalog's). */
export function shapePlanSources(plan: ShapePlan): Source[] {
  return plan.kind === 'pushdown' ? [plan.source] : plan.marked.fragments.map((f) => f.source);
}

/** The plan a shape's shared plan runs for one statement of that shape. */
export function shapePlanFor(plan: ShapePlan, shape: Shape): Plan {
  const value = (slot: number) => slotText(shape, slot);
  if (plan.kind === 'pushdown')
    return {
      kind: 'pushdown',
      source: plan.source,
      sql: fillSlots(plan.sql, value),
      retype: plan.retype,
      origins: plan.origins,
    };
  const m = plan.marked;
  return {
    ...m,
    localSql: fillSlots(plan.localSql, value),
    fragments: m.fragments.map((f, i) => {
      const cut = plan.fragments[i];
      return {
        ...f,
        sql: fillSlots(cut.sql, value),
        filters: f.filters.map((x, j) => ({ ...x, text: fillSlots(cut.filters[j], value) })),
        // Compiled with the markers and the keys, then cut and filled as the fragment is;
        // null (no dynamic filter, never a wrong one) unless its slots are the fragment's.
        withKeys: (column: string, keys: unknown[]) => {
          const raw = f.withKeys(column, keys);
          const c = raw === null ? null : cutAtMarkers(raw, plan.markers, f.source.dialect === 'mysql', true);
          return c && sameSlots(c.slots, cut.sql.slots) ? fillSlots(c, value) : null;
        },
      };
    }),
  };
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
  if (template.ast?.type !== 'select' || template.ast.from == null) return null;
  const markers: Marker[] = [];
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i];
    if (s.kind === 'R' || (s.kind === 'L' && intListClasses(shape, s) === null)) return null;
    if (s.kind !== 'n' && s.kind !== 'L') continue;
    // A list's template holds one marker element where the list goes.
    const path = s.kind === 'L' ? [...template.paths[i], 0, 'value'] : template.paths[i];
    if (!fillableSlot(template.ast, path)) return null;
    markers.push({ slot: i, text: String(NUMBER_MARKER_BASE + i) });
  }
  const ast = cloneTree(template.ast);
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i];
    if (s.kind === 'd' || s.kind === 's' || s.kind === 'x')
      setAt(ast, template.paths[i], literalValue(sql, s));
  }
  const text = integerMarkedText(shape);
  if (!sameLabels(selectLabels(text, ast, tokenize(text)), input.labels)) return null;
  let marked: Plan;
  try {
    marked = await input.planAst(ast);
  } catch {
    return null;
  }
  if (plan.kind === 'local')
    return marked.kind === 'local' ? learnLocal(plan, marked, markers, shape, input.labels) : null;
  if (marked.kind !== 'pushdown' || marked.source !== plan.source) return null;
  const cut = cutAtMarkers(marked.sql, markers, marked.source.dialect === 'mysql');
  if (!cut || fillSlots(cut, (slot) => slotText(shape, slot)) !== plan.sql) return null;
  return {
    kind: 'pushdown',
    source: plan.source,
    sql: cut,
    labels: input.labels,
    retype: plan.retype,
    origins: plan.origins,
  };
}

/**
 * A local plan's shared form, or null: the marked plan must be the normal one in all but
 * its texts, each text must carry each marker at most once and give the normal text back
 * when the statement's own values are pasted in, and every marker must land somewhere.
 */
function learnLocal(
  plan: LocalPlan,
  marked: LocalPlan,
  markers: Marker[],
  shape: Shape,
  labels: string[] | null,
): LocalShapePlan | null {
  if (structureOf(marked) !== structureOf(plan)) return null;
  if (marked.fragments.some((f, i) => f.source !== plan.fragments[i].source)) return null;
  const value = (slot: number) => slotText(shape, slot);
  const landed = new Set<number>();
  const cut = (text: string, real: string, mysqlSyntax: boolean): SlottedSql | null => {
    const c = cutAtMarkers(text, markers, mysqlSyntax, true);
    if (!c || fillSlots(c, value) !== real) return null;
    for (const slot of c.slots) landed.add(slot);
    return c;
  };
  const fragments: LocalShapePlan['fragments'] = [];
  for (let i = 0; i < marked.fragments.length; i++) {
    const f = marked.fragments[i];
    const real = plan.fragments[i];
    const sql = cut(f.sql, real.sql, f.source.dialect === 'mysql');
    const filters = f.filters.map((x, j) => cut(x.text, real.filters[j].text, true));
    if (!sql || filters.some((x) => x === null)) return null;
    fragments.push({ sql, filters: filters as SlottedSql[] });
  }
  const localSql = cut(marked.localSql, plan.localSql, false);
  if (!localSql || landed.size !== markers.length) return null;
  return {
    kind: 'local',
    marked,
    fragments,
    localSql,
    markers,
    labels,
    retype: plan.retype,
    origins: plan.origins,
  };
}

/** Everything of a local plan but its texts and closures, as text (equal: the same plan). */
function structureOf(p: LocalPlan): string {
  const ref = (r: BoundRef) => [r.index, r.kind, r.source, r.schema, r.table, r.qualifier];
  return JSON.stringify({
    fragments: p.fragments.map((f) => [
      ref(f.ref),
      f.source.name,
      f.temp,
      f.columns,
      f.columnInfo,
      f.limit,
      f.filters.map((x) => [x.support, x.why ?? null]),
    ]),
    info: p.info.map(ref),
    kb: p.kb.map((k) => [ref(k.ref), k.temp, k.search, k.queries, k.k, k.pushed, k.columns, k.prefilter]),
    dynamic: p.dynamic,
    retype: p.retype ?? null,
  });
}

function sameSlots(a: number[], b: number[]): boolean {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
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
