import type { ColumnInfo } from '../../core/types.js';

/** A table of a statement as the compiler sees it: its qualifier, columns and their known spellings. */
export interface LookupTable {
  qualifier: string;
  /** The table's own name (for TableRefName callbacks), when it differs from nothing else. */
  table?: string;
  cols: ColumnInfo[];
  /** The pseudo-column of its rows' positions, when it is a base table that has one. */
  rowMarker?: string;
  /** Spellings the source's statistics know, by real column name (known-values.ts). */
  known?: Map<string, string[]>;
}

/** Resolves a column reference to the metadata of the bound table that owns it. */
export class ColumnLookup {
  constructor(private readonly tables: LookupTable[]) {}

  find(ref: { table: string | null; column: string }): ColumnInfo | undefined {
    return this.locate(ref)?.col;
  }

  /** Known spellings of a text column (statistics), when the planner fetched them. */
  knownValues(ref: { table: string | null; column: string }): string[] | undefined {
    const hit = this.locate(ref);
    return hit ? hit.table.known?.get(hit.col.name) : undefined;
  }

  /** The row-position pseudo-column of a table as the statement names it (ctid, rowid), if known. */
  rowMarker(ref: { table: string }): string | undefined {
    const name = ref.table.toLowerCase();
    const hits = this.tables.filter((t) => (t.table ?? t.qualifier).toLowerCase() === name);
    return hits.length > 0 && hits.every((t) => t.rowMarker && t.rowMarker === hits[0].rowMarker)
      ? hits[0].rowMarker
      : undefined;
  }

  private locate(ref: {
    table: string | null;
    column: string;
  }): { table: LookupTable; col: ColumnInfo } | undefined {
    const col = ref.column.toLowerCase();
    if (ref.table) {
      const q = ref.table.toLowerCase();
      const t = this.tables.find((x) => x.qualifier.toLowerCase() === q);
      const c = t?.cols.find((x) => x.name.toLowerCase() === col);
      return t && c ? { table: t, col: c } : undefined;
    }
    let hit: { table: LookupTable; col: ColumnInfo } | undefined;
    for (const t of this.tables) {
      const c = t.cols.find((x) => x.name.toLowerCase() === col);
      if (c) {
        // The same table in a subquery (`WHERE x > (SELECT AVG(x) FROM t)`) repeats the name
        // in another scope; the lookup is flat, so only a real disagreement stays unknown.
        if (hit && (hit.col.type !== c.type || hit.col.name !== c.name)) return undefined;
        hit ??= { table: t, col: c };
      }
    }
    return hit;
  }
}
