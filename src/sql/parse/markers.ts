/**
 * Marker literals: a template is parsed with a unique marker in each slot (slots.ts), and
 * one walk over the parsed tree finds where each landed. A marker is usable only when it
 * lands exactly once, as the `value` of a literal node of its kind, and nowhere else (not
 * a type length, an alias, a date literal, inside another string, a rewritten or folded
 * number...). The walk visits each node once, so finding every marker costs one pass
 * whatever their number (searching the tree once per marker cost literals x tree size).
 * Pure: the parse worker runs it too.
 */
import type { LiteralKind } from './slots.js';

export type Path = (string | number)[];

/** Marker `i` is the number `NUMBER_MARKER_BASE + i` (`.5` after it for a decimal). */
export const NUMBER_MARKER_BASE = 987_654_320_000;
/** At most this many markers in one template. */
const MAX_MARKERS = 1_000_000;
const stringMarker = (i: number) => `tbq${i}m7x`;
/** A hex literal's marker: hex digits only, an even number of them. */
const hexMarker = (i: number) => `cafe${String(i).padStart(8, '0')}beef`;
/** Any marker's text, wherever it appears (numbers: the digits, with a decimal's `.5`). */
const MARKER_TEXT = /tbq(\d+)m7x|cafe(\d{8})beef|(98765\d{7})(\.5)?/gi;

/** What the parser reads at marker `i` of kind `kind`, as it appears in the template's text. */
export function markerText(kind: LiteralKind, i: number): string {
  if (kind === 's') return `'${stringMarker(i)}'`;
  if (kind === 'x') return `X'${hexMarker(i)}'`;
  return kind === 'd' ? `${NUMBER_MARKER_BASE + i}.5` : String(NUMBER_MARKER_BASE + i);
}

/** The value of the literal node a correctly placed marker `i` of kind `kind` becomes. */
export function markerValue(kind: LiteralKind, i: number): number | string {
  if (kind === 's') return stringMarker(i);
  if (kind === 'x') return hexMarker(i);
  return kind === 'd' ? `${NUMBER_MARKER_BASE + i}.5` : NUMBER_MARKER_BASE + i;
}

function markerIndex(n: number): number {
  const i = n - NUMBER_MARKER_BASE;
  return Number.isInteger(i) && i >= 0 && i < MAX_MARKERS ? i : -1;
}

/**
 * Where each marker of `kinds` (marker i has kind kinds[i]) sits in `ast`: the path to its
 * literal node's `value`, or null when it is missing, appears more than once, or appears
 * anywhere else (even inside a string). One walk.
 */
export function findMarkers(
  ast: unknown,
  kinds: readonly LiteralKind[],
  /** Counts the values visited (tests pin the walk's linearity with it). */
  stats?: { visited: number },
): (Path | null)[] {
  const count = new Array<number>(kinds.length).fill(0);
  const found: (Path | null)[] = new Array(kinds.length).fill(null);
  const seen = (i: number) => {
    if (i >= 0 && i < kinds.length) count[i]++;
  };
  const inText = (s: string) => {
    if (!s.includes('tbq') && !s.includes('98765') && !/cafe/i.test(s)) return;
    for (const m of s.matchAll(MARKER_TEXT))
      seen(m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? Number(m[2]) : markerIndex(Number(m[3])));
  };
  const path: Path = [];
  const walk = (v: unknown, parentType: unknown, key: string | number | null): void => {
    if (stats) stats.visited++;
    if (typeof v === 'number') {
      const i = markerIndex(v);
      if (i < 0 || i >= kinds.length) return;
      count[i]++;
      if (key === 'value' && parentType === 'number' && kinds[i] === 'n') found[i] = [...path];
      return;
    }
    if (typeof v === 'string') {
      inText(v);
      if (key !== 'value') return;
      // A whole-marker value of the right node type is the one good place.
      const m = /^(?:tbq(\d+)m7x|cafe(\d{8})beef|(98765\d{7})\.5)$/.exec(v);
      if (!m) return;
      const i =
        m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? Number(m[2]) : markerIndex(Number(m[3]));
      if (i < 0 || i >= kinds.length || v !== markerValue(kinds[i], i)) return;
      if (
        (kinds[i] === 's' && parentType === 'string') ||
        (kinds[i] === 'd' && parentType === 'number') ||
        (kinds[i] === 'x' && parentType === 'hex_string')
      )
        found[i] = [...path];
      return;
    }
    if (typeof v === 'bigint') {
      // The parser's own big integers: a marker there is never a good place.
      inText(String(v));
      inText(String(v));
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        walk(v[i], undefined, i);
        path.pop();
      }
      return;
    }
    const type = (v as { type?: unknown }).type;
    for (const k of Object.keys(v)) {
      inText(k);
      inText(k);
      path.push(k);
      walk((v as Record<string, unknown>)[k], type, k);
      path.pop();
    }
  };
  walk(ast, undefined, null);
  for (let i = 0; i < kinds.length; i++) if (count[i] !== 1) found[i] = null;
  return found;
}

/** Set the value at `path` in a tree (a template's literal slot). */
export function setAt(tree: unknown, path: Path, value: unknown): void {
  let o = tree as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) o = o[path[i]] as Record<string | number, unknown>;
  o[path[path.length - 1]] = value;
}

/** The value at `path` in a tree. */
export function getAt(tree: unknown, path: Path, upTo = path.length): unknown {
  let o = tree as Record<string | number, unknown>;
  for (let i = 0; i < upTo; i++) o = o?.[path[i]] as Record<string | number, unknown>;
  return o;
}
