/**
 * Which conjuncts of a SELECT block may filter which of its FROM items, decided once for
 * source fragments (fragments.ts), dynamic filters (dynamic-filters.ts) and knowledge-base
 * searches (kb-search.ts):
 *
 *  - a WHERE conjunct may filter any item on no outer join's null-supplying side;
 *  - an inner join's ON conjunct likewise;
 *  - a LEFT JOIN's own ON conjunct may filter only its (null-supplying) right side;
 *  - with a RIGHT or FULL join in the block every item is on a null side: no conjunct of
 *    WHERE or ON is offered to any item;
 *  - nested join groups and derived tables are offered nothing (their own blocks decide).
 */
import type { Expr, FromItem, SelectStmt } from '../ast/nodes.js';
import { andAll, columnRefs, conjuncts, nameOf } from '../ast/walk.js';
import type { LookupTable } from './column-lookup.js';

/** One conjunct that may filter an item, and how to remove it from the statement that runs. */
export interface Candidate {
  node: Expr;
  /** Remove it from the local statement (called once it is pushed exactly). */
  drop: () => void;
}

/** The items of a FROM list on an outer join's null-supplying side, and whether a RIGHT/FULL join is there. */
export function nullSideItems(from: FromItem[]): { nullSide: Set<FromItem>; rightOrFull: boolean } {
  const rightOrFull = from.some((n) => /RIGHT|FULL/i.test(String(n.join ?? '')));
  const nullSide = new Set<FromItem>();
  for (const n of from) if (/LEFT/i.test(String(n.join ?? ''))) nullSide.add(n);
  if (rightOrFull) for (const n of from) nullSide.add(n);
  return { nullSide, rightOrFull };
}

/** Whether `item` is a LEFT JOIN's right side (its own ON conditions may filter it). */
export function isLeftJoined(item: FromItem): boolean {
  return /LEFT/i.test(String(item.join ?? ''));
}

/**
 * The conjuncts that may filter each FROM item of `block`, by item node. `local` is the
 * block as it will run (a clone of the same shape, or `block` itself): a candidate's `drop`
 * removes the conjunct there.
 */
export function candidateConjuncts(block: SelectStmt, local: SelectStmt): Map<FromItem, Candidate[]> {
  const out = new Map<FromItem, Candidate[]>();
  if (!Array.isArray(block.from)) return out;
  const from: FromItem[] = block.from;
  const localFrom: FromItem[] = local.from ?? [];
  const { nullSide, rightOrFull } = nullSideItems(from);
  const add = (item: FromItem, c: Candidate) => {
    if (item.type === 'join_group' || item.expr) return;
    const list = out.get(item) ?? [];
    list.push(c);
    out.set(item, list);
  };
  const where = clauseConjuncts(block, local, 'where');
  for (const c of where) for (const item of from) if (!nullSide.has(item)) add(item, c);
  if (rightOrFull) return out;
  from.forEach((item, i) => {
    if (!item.on || !item.join) return;
    const on = clauseConjuncts(item, localFrom[i], 'on');
    if (isLeftJoined(item)) for (const c of on) add(item, c);
    else for (const c of on) for (const other of from) if (!nullSide.has(other)) add(other, c);
  });
  return out;
}

/**
 * Equalities of a FROM list that join two items, with the item they may narrow: null for
 * WHERE and inner ON conjuncts (either side off a null side), a LEFT JOIN's right side for
 * its own ON conjuncts.
 */
export function joinConjuncts(
  from: FromItem[],
  where: Expr | null | undefined,
): { eq: Expr; probeItem: FromItem | null }[] {
  const pairs: { eq: Expr; probeItem: FromItem | null }[] = [];
  for (const eq of conjuncts(where)) pairs.push({ eq, probeItem: null });
  for (const item of from) {
    if (!item.on || !item.join) continue;
    const left = isLeftJoined(item);
    for (const eq of conjuncts(item.on)) pairs.push({ eq, probeItem: left ? item : null });
  }
  return pairs;
}

/** Whether every column the conjunct reads belongs to `table` (unqualified ones to no other table). */
export function touchesOnly(cj: Expr, table: LookupTable, all: LookupTable[]): boolean {
  const q = table.qualifier.toLowerCase();
  const has = (t: LookupTable, col: string) => t.cols.some((c) => c.name.toLowerCase() === col);
  return columnRefs(cj).every((c) => {
    const t = nameOf(c.table)?.toLowerCase() ?? null;
    const col = (nameOf(c.column) ?? '').toLowerCase();
    if (t !== null) return t === q && has(table, col);
    return has(table, col) && !all.some((o) => o !== table && has(o, col));
  });
}

/** Conjuncts of `node[key]`, each able to remove its counterpart from `localNode[key]`. */
function clauseConjuncts(
  node: { where?: Expr | null; on?: Expr | null },
  localNode: { where?: Expr | null; on?: Expr | null },
  key: 'where' | 'on',
): Candidate[] {
  const list = conjuncts(node[key]);
  const localList = conjuncts(localNode[key]);
  if (list.length !== localList.length) return [];
  const keep = new Set(localList);
  return list.map((cj, i) => ({
    node: cj,
    drop: () => {
      keep.delete(localList[i]);
      localNode[key] = keep.size ? andAll([...keep]) : null;
    },
  }));
}
