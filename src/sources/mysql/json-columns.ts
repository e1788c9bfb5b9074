import type { MysqlField } from './types.js';
import { T } from './types.js';

/** How long a table's JSON columns are trusted before they are looked up again. */
const TTL_MS = 60_000;
const LONGTEXT_LENGTH = 4294967295;

const CHECKS_SQL = `
SELECT TABLE_NAME AS t, CHECK_CLAUSE AS clause FROM information_schema.CHECK_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME IN (?) AND CHECK_CLAUSE LIKE 'json_valid(%'`;

/** `json_valid(\`col\`)` → col. */
export function jsonColumnOfCheck(clause: string): string | null {
  const m = /^json_valid\(`((?:[^`]|``)+)`\)$/i.exec(clause.trim());
  return m ? m[1].replace(/``/g, '`') : null;
}

type Side = <T>(sql: string, values: unknown[]) => Promise<T[]>;

/**
 * MariaDB's JSON is LONGTEXT with a json_valid() check, and result metadata does not say
 * JSON. For result columns read straight from a table's LONGTEXT column, this finds the
 * checks (on a side connection: the query's own is busy) and remembers them a while.
 */
export class JsonColumns {
  private readonly cache = new Map<string, { cols: Set<string>; at: number }>();

  constructor(private readonly side: Side) {}

  private static candidate(
    f: MysqlField & { schema?: string; orgTable?: string; orgName?: string; columnLength?: number },
  ) {
    return (
      f.columnType === T.BLOB &&
      f.characterSet !== 63 &&
      f.columnLength === LONGTEXT_LENGTH &&
      !!f.orgTable &&
      !!f.orgName &&
      !!f.schema
    );
  }

  /** Indexes of the fields that are JSON columns. */
  async find(fields: MysqlField[]): Promise<Set<number>> {
    const out = new Set<number>();
    const cand = fields
      .map((f, i) => ({ f: f as MysqlField & { schema: string; orgTable: string; orgName: string }, i }))
      .filter(({ f }) => JsonColumns.candidate(f));
    if (cand.length === 0) return out;
    const now = Date.now();
    const missing = new Map<string, Set<string>>();
    for (const { f } of cand) {
      const hit = this.cache.get(`${f.schema}\0${f.orgTable}`);
      if (!hit || now - hit.at > TTL_MS) {
        if (!missing.has(f.schema)) missing.set(f.schema, new Set());
        missing.get(f.schema)!.add(f.orgTable);
      }
    }
    for (const [schema, tables] of missing) {
      const found = new Map<string, Set<string>>([...tables].map((t) => [t, new Set<string>()]));
      // MySQL has no TABLE_NAME there (its JSON type is reported as such anyway): nothing found.
      const rows = await this.side<{ t: string; clause: string }>(CHECKS_SQL, [schema, [...tables]]).catch(
        () => [],
      );
      for (const r of rows) {
        const col = jsonColumnOfCheck(r.clause);
        if (col) found.get(r.t)?.add(col);
      }
      for (const [t, cols] of found) this.cache.set(`${schema}\0${t}`, { cols, at: now });
    }
    for (const { f, i } of cand)
      if (this.cache.get(`${f.schema}\0${f.orgTable}`)?.cols.has(f.orgName)) out.add(i);
    return out;
  }
}
