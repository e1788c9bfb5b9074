/**
 * Long UNION chains of one member shape (`SELECT .. WHERE id = 1 UNION ALL SELECT .. WHERE
 * id = 2 ...`, 300 times): node-sql-parser reads every member, which is most of a new
 * shape's cost, though the members differ only in their literals. So the template of such a
 * shape (templates.ts) is parsed from a shortened text: the run of identical members cut
 * to three, and the tree grown back to the full chain from copies of the middle one.
 *
 * A unit is the text from one UNION to the next at the same parenthesis depth (the
 * keyword, its ALL/DISTINCT, the member after it). A run is a sequence of adjacent units of
 * one chain whose texts are equal but for the values of their literal slots. The shortened
 * text keeps what comes before the run, its first three units and everything after it
 * (the chain's last member, ORDER BY/LIMIT...). The expansion is taken only when the parse
 * of that text says the units are plain links of one `_next` chain: each unit's slots sit
 * in its own member, at the same paths relative to it, and the first two members of the run
 * are the same tree but for those literals; otherwise the shape parses whole. The copies
 * carry their own marker values (marker i in slot i), as a whole parse would give them.
 */

import { cloneTree } from '../ast/clone.js';
import type { SqlStatement } from '../ast/nodes.js';
import { isKeyword, isPunct, type Token } from './lexer.js';
import { markerValue, type Path } from './markers.js';
import { isList, type Slot } from './slots.js';

/** Shorter runs gain too little to be worth growing. */
export const MIN_RUN_UNITS = 8;
/** Units kept of a run in the shortened text. */
export const KEPT_UNITS = 3;
const KEPT = KEPT_UNITS;

/** A run of identical units in a statement, as found in its tokens and slots. */
export interface UnionRun {
  /** Units in the run. */
  units: number;
  /** Slots before the run's first unit, and in each unit. */
  before: number;
  perUnit: number;
  /** Text offsets: where the run's first unit starts, where its fourth starts, where it ends. */
  start: number;
  cut: number;
  end: number;
}

interface Shaped {
  sql: string;
  tokens: Token[];
  slots: Slot[];
}

const slotStart = (s: Slot): number => (isList(s) ? s.start : s.token.start);
const slotEnd = (s: Slot): number => (isList(s) ? s.end : s.token.end);

/**
 * The longest run of at least MIN_RUN_UNITS identical units in `shape`, or null. Only for
 * shapes without VALUES rows (so marker i is slot i's) whose units each hold a slot.
 */
export function findUnionRun(shape: Shaped): UnionRun | null {
  const { sql, tokens, slots } = shape;
  if (!/union/i.test(sql) || slots.some((s) => s.kind === 'R')) return null;
  // UNION tokens chained at one depth: each with the index of the previous one of its chain.
  const unions: number[] = [];
  const prevOf: number[] = [];
  const lastAtDepth: number[] = [];
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (isPunct(t, '(')) depth++;
    else if (isPunct(t, ')')) {
      lastAtDepth.length = Math.max(0, depth);
      depth--;
    } else if (isKeyword(t, 'UNION') && depth >= 0) {
      prevOf.push(lastAtDepth[depth] ?? -1);
      lastAtDepth[depth] = unions.length;
      unions.push(i);
    }
  }
  if (unions.length < MIN_RUN_UNITS + 1) return null;
  // Each unit's key: its text with slots cut to their kinds (as a shape key is built).
  let si = 0;
  const keyOf = (from: number, to: number): { key: string; count: number; first: number } => {
    while (si < slots.length && slotStart(slots[si]) < from) si++;
    const first = si;
    let key = '';
    let at = from;
    for (; si < slots.length && slotEnd(slots[si]) <= to; si++) {
      const s = slots[si];
      key += `${sql.slice(at, slotStart(s))}\u0000${s.kind}`;
      at = slotEnd(s);
    }
    return { key: key + sql.slice(at, to), count: si - first, first };
  };
  let best: UnionRun | null = null;
  let run: { key: string; units: number; first: number; count: number; start: number } | null = null;
  for (let u = 1; u < unions.length; u++) {
    const linked = prevOf[u] === u - 1;
    const from = tokens[unions[u - 1]].start;
    const to = tokens[unions[u]].start;
    const k = linked ? keyOf(from, to) : null;
    if (k && run && k.key === run.key && k.count === run.count) run.units++;
    else
      run = k && k.count > 0 ? { key: k.key, units: 1, first: k.first, count: k.count, start: from } : null;
    if (run && run.units >= MIN_RUN_UNITS && (!best || run.units > best.units))
      best = {
        units: run.units,
        before: run.first,
        perUnit: run.count,
        start: run.start,
        cut: 0,
        end: to,
      };
  }
  if (!best) return null;
  // The start of the run's fourth unit: after the slots of its first three.
  const fourth = best.before + KEPT * best.perUnit;
  const u0 = unions.findIndex((i) => tokens[i].start === best.start);
  best.cut = tokens[unions[u0 + KEPT]].start;
  if (slotStart(slots[fourth]) < best.cut) return null;
  return best;
}

/** The shortened text: the run cut to its first three units. */
export function shortenedText(sql: string, run: UnionRun): string {
  return sql.slice(0, run.cut) + sql.slice(run.end);
}

/** Slot `i` of the shortened text as a slot of the full statement. */
export function fullSlot(run: UnionRun, i: number): number {
  const kept = run.before + KEPT * run.perUnit;
  return i < kept ? i : i + (run.units - KEPT) * run.perUnit;
}

const NEXT = '_next';

/**
 * The full statement's tree and slot paths from the shortened text's template (its tree is
 * taken over), or null when the parse does not show a plain chain of identical members.
 * `kinds` are the full statement's marker kinds (marker i in slot i).
 */
export function growRun(
  ast: SqlStatement,
  paths: Path[],
  run: UnionRun,
  kinds: readonly ('n' | 'd' | 's' | 'x' | 'L')[],
): { ast: SqlStatement; paths: Path[] } | null {
  const { before: a, perUnit: u, units: m } = run;
  const p1 = paths[a];
  const p2 = paths[a + u];
  // The run's first member sits at `at` (p1 = at + rel, p2 = at + _next + rel).
  let x = -1;
  for (let i = 0; i < p1.length && x < 0; i++)
    if (
      p1[i] !== NEXT &&
      p2.length === p1.length + 1 &&
      p2[i] === NEXT &&
      startsWith(p2, p1, i) &&
      tailEq(p2, i + 1, p1, i)
    )
      x = i;
  if (x < 0) return null;
  const at = p1.slice(0, x);
  const rel: Path[] = [];
  for (let j = 0; j < u; j++) {
    const p = paths[a + j];
    if (p.length <= x || !startsWith(p, at, x) || p[x] === NEXT) return null;
    rel.push(p.slice(x));
    for (let k = 1; k < KEPT; k++) {
      const q = paths[a + k * u + j];
      if (q.length !== p.length + k || !startsWith(q, at, x) || !tailEq(q, x + k, p, x)) return null;
      for (let n = 0; n < k; n++) if (q[x + n] !== NEXT) return null;
    }
  }
  // No slot outside the run may sit in its first two members.
  for (let i = 0; i < paths.length; i++) {
    if (i >= a && i < a + KEPT * u) continue;
    const p = paths[i];
    if (p.length > x && startsWith(p, at, x) && !(p[x] === NEXT && p[x + 1] === NEXT)) return null;
  }
  const first = getAt(ast, at) as Member | undefined;
  const second = first?.[NEXT];
  const third = second?.[NEXT];
  if (first?.type !== 'select' || second?.type !== 'select' || third?.type !== 'select') return null;
  if (canonical(first, rel) !== canonical(second, rel)) return null;
  // Copies of the second member, each with the markers of its own slots.
  const proto = cloneTree({ ...second, [NEXT]: null }) as Member;
  let link: Member = second;
  for (let c = 0; c < m - KEPT; c++) {
    const copy = cloneTree(proto);
    const slot0 = a + (c + 2) * u;
    for (let j = 0; j < u; j++) setMarker(copy, rel[j], kinds, slot0 + j);
    link[NEXT] = copy;
    link = copy;
  }
  link[NEXT] = third;
  // Paths: unchanged before the third unit, the copies' own, and the rest moved down the chain.
  const extra = m - KEPT;
  const out: Path[] = paths.slice(0, a + 2 * u);
  let chain: Path = [...at, NEXT, NEXT];
  for (let c = 0; c < extra; c++) {
    for (let j = 0; j < u; j++) out.push([...chain, ...rel[j]]);
    chain = [...chain, NEXT];
  }
  for (let i = a + 2 * u; i < paths.length; i++) {
    const p = paths[i];
    const moved = p.length > x + 1 && startsWith(p, at, x) && p[x] === NEXT && p[x + 1] === NEXT;
    const q = moved ? [...at, ...new Array<string>(extra + 2).fill(NEXT), ...p.slice(x + 2)] : p;
    out.push(q);
    // Marker numbers are slot numbers: those after the copies move up by their count.
    if (extra > 0) setMarker(ast, q, kinds, out.length - 1);
  }
  return { ast, paths: out };
}

type Member = { type?: unknown; [NEXT]?: Member | null } & Record<string, unknown>;

/** Whether `p` starts with the first `n` entries of `prefix`. */
function startsWith(p: Path, prefix: Path, n: number): boolean {
  if (p.length < n) return false;
  for (let i = 0; i < n; i++) if (p[i] !== prefix[i]) return false;
  return true;
}

/** Whether `a` from `aFrom` on equals `b` from `bFrom` on. */
function tailEq(a: Path, aFrom: number, b: Path, bFrom: number): boolean {
  if (a.length - aFrom !== b.length - bFrom) return false;
  for (let i = 0; aFrom + i < a.length; i++) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}

/** A member as text without its link and with its slots' values blanked. */
function canonical(member: Member, rel: Path[]): string {
  const copy = cloneTree({ ...member, [NEXT]: null }) as Member;
  for (const p of rel) {
    const parent = getAt(copy, p, p.length - 1) as Record<string | number, unknown> | undefined;
    if (!parent || typeof parent !== 'object') return '\u0000missing';
    parent[p[p.length - 1]] = '\u0000slot';
  }
  return JSON.stringify(copy, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** Put marker `slot` (of kind `kinds[slot]`) at its path in `tree`, as the marked parse would. */
function setMarker(tree: unknown, path: Path, kinds: readonly string[], slot: number): void {
  const parent = getAt(tree, path, path.length - 1) as Record<string | number, unknown>;
  const key = path[path.length - 1];
  const kind = kinds[slot];
  if (kind === 'L') {
    const list = parent[key] as { value?: unknown }[];
    list[0].value = markerValue('n', slot);
  } else parent[key] = markerValue(kind as 'n' | 'd' | 's' | 'x', slot);
}

function getAt(tree: unknown, path: Path, upTo = path.length): unknown {
  let o = tree as Record<string | number, unknown> | undefined;
  for (let i = 0; i < upTo && o; i++) o = o[path[i]] as Record<string | number, unknown> | undefined;
  return o;
}
