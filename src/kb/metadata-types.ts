import type { MysqlType } from '../core/types.js';
import type { KbRowSource } from '../sql/kb-port.js';
import type { KbDefinition } from './definition.js';
import { kindOf } from './filters.js';

/**
 * The MySQL type of each metadata column, learned as rows are inserted, so filters compare
 * them as the source did (a DECIMAL arrives as text and must still compare as a number).
 * A SELECT's result columns say it for sure; rows of VALUES say it by their values (numbers,
 * booleans, text), but quoted text ('7.25') does not turn a column an earlier INSERT typed
 * into text. Returns the rows to ingest (the same rows, observed) and,
 * once they are read, the definition's types merged with what was seen, or null if unchanged.
 */
export function observeMetadataTypes(
  def: KbDefinition,
  src: KbRowSource,
): { rows: KbRowSource; merged: () => Record<string, MysqlType> | null } {
  const lower = src.columns.map((c) => c.toLowerCase());
  const at = def.metadata_columns.map((c) => lower.indexOf(c.toLowerCase()));
  const seen = new Map<string, MysqlType>();
  def.metadata_columns.forEach((c, i) => {
    const t = at[i] >= 0 ? src.types?.[at[i]] : null;
    if (t && RECORDED.has(t)) seen.set(c, t === 'ENUM' || t === 'SET' ? 'VARCHAR' : t);
  });
  const guess = def.metadata_columns.filter((c, i) => at[i] >= 0 && !seen.has(c));
  async function* observed(): AsyncIterable<unknown[][]> {
    for await (const rows of src.batches) {
      for (const c of guess) {
        const i = at[def.metadata_columns.indexOf(c)];
        for (const row of rows) {
          const t = typeOfValue(row[i]);
          if (t) seen.set(c, widen(seen.get(c), t));
        }
      }
      yield rows;
    }
  }
  return {
    rows: guess.length ? { ...src, batches: observed() } : src,
    merged: () => {
      const before = def.metadata_types ?? {};
      const out: Record<string, MysqlType> = { ...before };
      // A value of VALUES says less than a recorded type: quoted text ('7.25') does not make a typed column text.
      for (const [c, t] of seen)
        out[c] = !before[c] ? t : guess.includes(c) && t === 'VARCHAR' ? before[c] : widen(before[c], t);
      return JSON.stringify(out) === JSON.stringify(before) ? null : out;
    },
  };
}

function typeOfValue(v: unknown): MysqlType | null {
  if (typeof v === 'bigint') return 'BIGINT';
  if (typeof v === 'number') return Number.isInteger(v) ? 'BIGINT' : 'DOUBLE';
  if (typeof v === 'boolean') return 'BOOLEAN';
  if (typeof v === 'string') return 'VARCHAR';
  return null;
}

/** Types kept as the rows' producer gave them (binary values are stored as base64 text: not kept). */
const RECORDED = new Set<MysqlType>([
  'TINYINT',
  'SMALLINT',
  'INT',
  'BIGINT',
  'DECIMAL',
  'FLOAT',
  'DOUBLE',
  'BOOLEAN',
  'CHAR',
  'VARCHAR',
  'TEXT',
  'DATE',
  'DATETIME',
  'TIMESTAMP',
  'YEAR',
  'JSON',
  'ENUM',
  'SET',
]);

const NUMBER_RANK: MysqlType[] = [
  'BOOLEAN',
  'TINYINT',
  'SMALLINT',
  'YEAR',
  'INT',
  'BIGINT',
  'DECIMAL',
  'FLOAT',
  'DOUBLE',
];

/** Two types seen for one column: the same kind keeps the wider (numbers) or the first; different kinds compare as text. */
export function widen(a: MysqlType | undefined, b: MysqlType): MysqlType {
  if (!a || a === b) return b;
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'number' && kb === 'number') return NUMBER_RANK.indexOf(a) >= NUMBER_RANK.indexOf(b) ? a : b;
  if (ka === kb) return ka === 'date' && (a === 'DATETIME' || b === 'DATETIME') ? 'DATETIME' : a;
  return 'VARCHAR';
}
