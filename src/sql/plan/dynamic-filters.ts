/**
 * Dynamic filtering (Trino's dynamic filters, DataFusion's join-key pushdown): in a
 * cross-source equi-join where one side is filtered at its source and the other is not,
 * the filtered side is loaded first and its join keys are sent to the other source as
 * `key IN (...)`, so the big side streams only rows that can join. When the keys turn out
 * too many (more than `maxKeys`), the other side is read whole, as without the filter.
 *
 * Sound only where dropping rows of the probe side without a matching key cannot change
 * the answer: inner joins (ON or WHERE equalities between tables on no outer join's
 * null side), and a LEFT JOIN's own ON equality when the probe is its right side.
 */

import type { MysqlType } from '../../core/types.js';
import type { Expr, FromItem, SqlStatement } from '../ast/nodes.js';
import { nameOf } from '../ast/walk.js';
import { joinConjuncts, nullSideItems } from './conjuncts.js';
import type { DynamicFilter, Fragment } from './plan-types.js';

/** Keys sent as one IN list: beyond this the other side is read whole. */
export const MAX_DYNAMIC_KEYS = 5000;

const INTEGER: ReadonlySet<MysqlType> = new Set(['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'YEAR']);
const TEXT: ReadonlySet<MysqlType> = new Set(['CHAR', 'VARCHAR', 'TEXT', 'ENUM']);

function keyKind(t: MysqlType): 'int' | 'text' | null {
  return INTEGER.has(t) ? 'int' : TEXT.has(t) ? 'text' : null;
}

export function planDynamicFilters(ast: SqlStatement, fragments: Fragment[]): DynamicFilter[] {
  if (fragments.length < 2 || ast.type !== 'select' || ast._next || !Array.isArray(ast.from)) return [];
  const from: FromItem[] = ast.from;
  if (from.some((n) => /RIGHT|FULL/i.test(String(n.join ?? '')) || n.type === 'join_group')) return [];
  const { nullSide } = nullSideItems(from);
  // Equalities and the probe sides they may narrow (null: either side).
  const pairs = joinConjuncts(from, ast.where);
  const out: DynamicFilter[] = [];
  const probed = new Set<number>();
  for (const { eq, probeItem } of pairs) {
    if (eq?.type !== 'binary_expr' || eq.operator !== '=') continue;
    const a = side(eq.left, fragments);
    const b = side(eq.right, fragments);
    if (!a || !b || a.index === b.index) continue;
    for (const [build, probe] of [
      [a, b],
      [b, a],
    ]) {
      const bf = fragments[build.index];
      const pf = fragments[probe.index];
      if (
        probeItem
          ? pf.ref.node !== probeItem || nullSide.has(bf.ref.node)
          : nullSide.has(pf.ref.node) || nullSide.has(bf.ref.node)
      )
        continue;
      if (bf.filters.length === 0 || pf.filters.length > 0 || pf.limit !== null || probed.has(probe.index))
        continue;
      if (pf.source.capabilities.filters === 'none') continue;
      const kind = keyKind(build.type);
      if (!kind || kind !== keyKind(probe.type)) continue;
      probed.add(probe.index);
      out.push({
        build: build.index,
        buildColumn: build.column,
        probe: probe.index,
        probeColumn: probe.column,
        maxKeys: MAX_DYNAMIC_KEYS,
      });
    }
  }
  // A build side must not itself wait on its probe.
  return out.filter((d) => !out.some((o) => o.probe === d.build));
}

/** The fragment a plain column reference belongs to, with the column's real name and type. */
function side(node: Expr, fragments: Fragment[]): { index: number; column: string; type: MysqlType } | null {
  if (node?.type !== 'column_ref') return null;
  const col = (nameOf(node.column) ?? '').toLowerCase();
  const q = nameOf(node.table)?.toLowerCase() ?? null;
  let hit: { index: number; column: string; type: MysqlType } | null = null;
  for (let i = 0; i < fragments.length; i++) {
    const f = fragments[i];
    if (q !== null && f.ref.qualifier.toLowerCase() !== q) continue;
    const c = f.columnInfo.find((x) => x.name.toLowerCase() === col);
    if (!c) continue;
    if (hit) return null;
    hit = { index: i, column: c.name, type: c.type };
  }
  return hit;
}
