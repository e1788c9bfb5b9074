/**
 * Window functions as MySQL writes them: OVER (...) or OVER name, named windows, PARTITION
 * BY and ORDER BY folded under the collation (text partitions and orders as MySQL's), and
 * ROWS / RANGE frames with their bounds checked rather than passed through.
 */
import type {
  AggrFunc,
  Expr,
  FrameBound,
  FrameClause,
  FunctionCall,
  NamedWindow,
  OrderItem,
  WindowSpec,
} from '../ast/nodes.js';
import type { Compiler } from './compiler-api.js';

export function windowClause(c: Compiler, defs: NamedWindow[]): string {
  return `WINDOW ${defs
    .map(
      (d) =>
        `${c.quoteIdent(String(d.name))} AS (${windowSpec(c, d.as_window_specification?.window_specification ?? {})})`,
    )
    .join(', ')}`;
}
/** `OVER (...)` when the call is a window function. */
export function over(c: Compiler, node: FunctionCall | AggrFunc): string {
  const o = node.over;
  if (!o) return '';
  const spec = o.as_window_specification;
  if (typeof spec === 'string') return ` OVER ${c.quoteIdent(spec)}`;
  return ` OVER (${windowSpec(c, spec?.window_specification ?? {})})`;
}

function windowSpec(c: Compiler, ws: WindowSpec): string {
  const parts: string[] = [];
  if (ws.name) parts.push(c.quoteIdent(String(ws.name)));
  if (ws.partitionby?.length) {
    parts.push(`PARTITION BY ${ws.partitionby.map((p) => c.distinctArg(p.expr, true)).join(', ')}`);
  }
  const order = c.sortItems(ws.orderby);
  if (order.length) parts.push(`ORDER BY ${order.map((o) => windowOrderItem(c, o)).join(', ')}`);
  if (ws.window_frame_clause) parts.push(frame(c, ws.window_frame_clause));
  return parts.join(' ');
}

function windowOrderItem(c: Compiler, o: OrderItem): string {
  const desc = String(o.type ?? '').toUpperCase() === 'DESC';
  const e = o.expr;
  const sql = c.emulate && c.kind(e) === 'string' && !c.caseSensitive(e) ? c.foldSql(e) : c.expr(e);
  return `${sql}${desc ? ' DESC' : ''}${c.nullsOrder(desc)}`;
}

function frame(c: Compiler, f: Expr | FrameClause): string {
  if (f.type === 'binary_expr') {
    if (String(f.operator).toUpperCase() !== 'BETWEEN') return c.unsupported('this window frame');
    const unit = String('value' in f.left ? f.left.value : '').toUpperCase();
    const [a, b] = f.right.type === 'expr_list' ? f.right.value : [];
    if ((unit !== 'ROWS' && unit !== 'RANGE') || !a || !b) return c.unsupported('this window frame');
    return `${unit} BETWEEN ${frameBound(c, a)} AND ${frameBound(c, b)}`;
  }
  const unit = String(f.type ?? '').toUpperCase();
  if ((unit !== 'ROWS' && unit !== 'RANGE') || !('expr' in f)) return c.unsupported('this window frame');
  return `${unit} ${frameBound(c, f.expr)}`;
}

function frameBound(c: Compiler, b: FrameBound | Expr | null | undefined): string {
  const text = String(b && 'value' in b ? b.value : '')
    .trim()
    .replace(/\s+/g, ' ')
    .toUpperCase();
  if (!/^(UNBOUNDED PRECEDING|UNBOUNDED FOLLOWING|CURRENT ROW|\d+ PRECEDING|\d+ FOLLOWING)$/.test(text)) {
    return c.unsupported(`window frame bound ${text}`);
  }
  return text;
}
