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

interface Hit {
  table: LookupTable;
  col: ColumnInfo;
}

/**
 * Resolves a column reference to the metadata of the bound table that owns it. Indexed
 * once by qualifier and column name: the compiler asks for every column it prints, and a
 * statement may bind hundreds of tables (a 300-branch UNION), so a lookup must not scan them.
 */
export class ColumnLookup {
  /** First table of each qualifier (lower case), and its columns by lower-case name. */
  private readonly byQualifier = new Map<string, { table: LookupTable; cols: Map<string, ColumnInfo> }>();
  /** An unqualified column's owner: undefined when tables disagree on its type or spelling. */
  private readonly unqualified = new Map<string, Hit | undefined>();
  /** Tables by the name the statement uses for them (lower case), for rowMarker. */
  private readonly byName = new Map<string, LookupTable[]>();

  constructor(tables: LookupTable[]) {
    for (const t of tables) {
      const cols = new Map<string, ColumnInfo>();
      for (const c of t.cols) {
        const name = c.name.toLowerCase();
        if (!cols.has(name)) cols.set(name, c);
      }
      const q = t.qualifier.toLowerCase();
      if (!this.byQualifier.has(q)) this.byQualifier.set(q, { table: t, cols });
      for (const [name, c] of cols) {
        // The same table in a subquery (`WHERE x > (SELECT AVG(x) FROM t)`) repeats the name
        // in another scope; the lookup is flat, so only a real disagreement stays unknown.
        if (!this.unqualified.has(name)) this.unqualified.set(name, { table: t, col: c });
        else {
          const hit = this.unqualified.get(name);
          if (hit && (hit.col.type !== c.type || hit.col.name !== c.name))
            this.unqualified.set(name, undefined);
        }
      }
      const n = (t.table ?? t.qualifier).toLowerCase();
      const list = this.byName.get(n);
      if (list) list.push(t);
      else this.byName.set(n, [t]);
    }
  }

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
    const hits = this.byName.get(ref.table.toLowerCase()) ?? [];
    return hits.length > 0 && hits.every((t) => t.rowMarker && t.rowMarker === hits[0].rowMarker)
      ? hits[0].rowMarker
      : undefined;
  }

  private locate(ref: { table: string | null; column: string }): Hit | undefined {
    const col = ref.column.toLowerCase();
    if (ref.table) {
      const t = this.byQualifier.get(ref.table.toLowerCase());
      const c = t?.cols.get(col);
      return t && c ? { table: t.table, col: c } : undefined;
    }
    return this.unqualified.get(col);
  }
}
