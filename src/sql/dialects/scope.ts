/**
 * Name resolution for the compilers: which FROM item a qualified column names, in the
 * scopes of nested selects, and the qualifier each item is emitted under (aliases made
 * unique, subqueries named). Also the CTE names in scope, and the state a grouped select
 * leaves for correlated subqueries to read.
 */
import type { Expr, FromItem } from '../ast/nodes.js';
import { flatFrom } from '../ast/walk.js';

/** A name that may be qualified: a column reference, or the parts of one. */
export type QualifiedName = { table?: string | null; db?: string | null; schema?: string | null };

export interface ScopeItem {
  /** Lower-cased name the statement uses for this item (alias, else table name). */
  key: string | null;
  db: string | null;
  schema: string | null;
  table: string | null;
  hasAlias: boolean;
  /** The qualifier emitted for it. */
  alias: string;
  cte: boolean;
}

/** How a grouped select groups: its keys (folded or not, as SQL) and whether it rolls up. */
export interface Grouping {
  keys: { node: Expr; folded: boolean; sql: string }[];
  rollup: boolean;
}

export interface Scope {
  items: ScopeItem[];
  byNode: Map<FromItem, ScopeItem>;
  aliases: Map<string, { name: string; expr: Expr }>;
  /** Select-list aliases named in HAVING / ORDER BY expressions become their expressions. */
  substitute: boolean;
  /** ORDER BY of a UNION: names refer to output columns, unqualified. */
  outputNames: boolean;
  /** This select's grouping while its select list / HAVING / ORDER BY compile (for correlated subqueries). */
  grouping: Grouping | null;
}

export class Scopes {
  private stack: Scope[] = [];
  /** CTE names visible at each WITH level (lower case). */
  readonly ctes: Set<string>[] = [];
  private generated = 0;

  reset(): void {
    this.stack = [];
    this.ctes.length = 0;
    this.generated = 0;
  }

  /** A scope for a select's FROM items (nested join groups flattened). */
  push(from: FromItem[] | null | undefined): Scope {
    const scope: Scope = {
      items: [],
      byNode: new Map(),
      aliases: new Map(),
      substitute: false,
      outputNames: false,
      grouping: null,
    };
    const used = new Set<string>();
    for (const f of flatFrom(from)) {
      if (!f || f.type === 'dual' || f.type === 'join_group') continue;
      let item: ScopeItem;
      if (f.expr) {
        const alias = f.as ? String(f.as) : this.fresh('_sq', used);
        item = {
          key: f.as ? String(f.as).toLowerCase() : null,
          db: null,
          schema: null,
          table: null,
          hasAlias: true,
          alias,
          cte: false,
        };
      } else {
        const table = String(f.table);
        const written = f.as ? String(f.as) : table;
        let alias = written;
        if (used.has(alias.toLowerCase())) alias = this.fresh(written, used);
        const cte = !f.db && !f.schema && this.isCte(table);
        item = {
          key: written.toLowerCase(),
          db: f.db ?? null,
          schema: f.schema ?? null,
          table,
          hasAlias: !!f.as,
          alias,
          cte,
        };
      }
      used.add(item.alias.toLowerCase());
      scope.items.push(item);
      scope.byNode.set(f, item);
    }
    this.stack.push(scope);
    return scope;
  }

  pop(): void {
    this.stack.pop();
  }

  current(): Scope | undefined {
    return this.stack[this.stack.length - 1];
  }

  /** The scope at `depth` (0 is the outermost). */
  at(depth: number): Scope | undefined {
    return this.stack[depth];
  }

  get depth(): number {
    return this.stack.length;
  }

  isCte(name: string): boolean {
    const top = this.ctes[this.ctes.length - 1];
    return !!top && top.has(name.toLowerCase());
  }

  resolve(ref: QualifiedName): ScopeItem | null {
    return this.resolveIn(ref)?.item ?? null;
  }

  /** The scope item a qualified column names, and the index of the scope holding it. */
  resolveIn(ref: QualifiedName): { item: ScopeItem; depth: number } | null {
    const table = ref.table ? String(ref.table).toLowerCase() : null;
    if (!table) return null;
    const db = ref.db ? String(ref.db).toLowerCase() : null;
    const schema = ref.schema ? String(ref.schema).toLowerCase() : null;
    for (let i = this.stack.length - 1; i >= 0; i--) {
      for (const item of this.stack[i].items) {
        if (db) {
          if (
            !item.hasAlias &&
            item.table?.toLowerCase() === table &&
            item.db?.toLowerCase() === db &&
            (schema === null || item.schema?.toLowerCase() === schema)
          )
            return { item, depth: i };
        } else if (item.key === table) return { item, depth: i };
      }
    }
    // `db.t.c` where the planner has already re-bound the table (its db cleared): match by name.
    if (db) return this.resolveIn({ ...ref, db: null, schema: null });
    return null;
  }

  private fresh(base: string, used: Set<string>): string {
    let name: string;
    do name = `${base}_${++this.generated}`;
    while (used.has(name.toLowerCase()));
    return name;
  }
}
