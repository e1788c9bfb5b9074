/**
 * Column types of a CSV/TSV beyond what DuckDB's sniffer says: fixed-point text columns
 * (`12.50`, `3.99`) become DECIMAL with their scale instead of DOUBLE (so `SUM` gives
 * `22325954.08`, as PostgreSQL does, not `22325954.080000155`), and an upload may name
 * types itself (`?types=amount:decimal(12,2),qty:int`).
 */
import type { RecordScan } from './csv-check.js';
import type { CsvLayout } from './csv-layout.js';
import { FileError } from './errors.js';

const SIMPLE: Record<string, string> = {
  int: 'INTEGER',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  smallint: 'SMALLINT',
  double: 'DOUBLE',
  float: 'DOUBLE',
  real: 'DOUBLE',
  text: 'VARCHAR',
  varchar: 'VARCHAR',
  char: 'VARCHAR',
  date: 'DATE',
  datetime: 'TIMESTAMP',
  timestamp: 'TIMESTAMP',
  time: 'TIME',
  boolean: 'BOOLEAN',
  bool: 'BOOLEAN',
};

const invalidTypes = (msg: string) => new FileError(400, 'invalid_types', msg);

/** `name:type,name:type` (MySQL type names) → DuckDB types by column; a FileError naming what is wrong. */
export function parseTypesParam(text: string): Map<string, string> {
  const out = new Map<string, string>();
  // Commas inside decimal(p,s) do not separate entries.
  for (const entry of text.split(/,(?![^(]*\))/)) {
    const e = entry.trim();
    if (!e) continue;
    const at = e.lastIndexOf(':');
    if (at <= 0) throw invalidTypes(`Invalid types entry '${e.slice(0, 80)}': expected column:type`);
    const column = e.slice(0, at).trim();
    const raw = e
      .slice(at + 1)
      .trim()
      .toLowerCase()
      .replace(/\s+/g, '');
    const dec = /^(?:decimal|numeric)(?:\((\d{1,2})(?:,(\d{1,2}))?\))?$/.exec(raw);
    let type: string | undefined;
    if (dec) {
      const p = dec[1] ? Number(dec[1]) : 10;
      const s = dec[2] ? Number(dec[2]) : 0;
      if (p < 1 || p > 38 || s > p)
        throw invalidTypes(
          `Invalid type '${raw}' for column '${column}': DECIMAL(p,s) needs 1 <= p <= 38 and s <= p`,
        );
      type = `DECIMAL(${p},${s})`;
    } else type = SIMPLE[raw.replace(/\(\d+\)$/, '')];
    if (!type)
      throw invalidTypes(
        `Unknown type '${raw.slice(0, 40)}' for column '${column.slice(0, 80)}': use decimal(p,s), int, bigint, double, varchar, date, datetime, time or boolean`,
      );
    out.set(column, type);
  }
  return out;
}

/** The layout with the upload's own types in place; a column it does not have is a 400 naming it. */
export function withTypes(layout: CsvLayout, types: Map<string, string>, label: string): CsvLayout {
  const columns = layout.columns.map((c) => ({ ...c }));
  for (const [name, type] of types) {
    const col =
      columns.find((c) => c.name === name) ??
      columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
    if (!col)
      throw invalidTypes(
        `'${label}' has no column '${name.slice(0, 80)}' (types); its columns: ${columns
          .map((c) => c.name)
          .join(', ')
          .slice(0, 400)}`,
      );
    col.type = type;
  }
  return { ...layout, columns };
}

/**
 * DOUBLE columns (as sniffed) whose every value in the file is a plain fixed-point number
 * become DECIMAL(18|38, s) with s the most decimals seen. The record scan saw every row
 * (csv-check.ts), so the scale holds for each of them (DuckDB would silently round a
 * longer one), and a file gets these types whatever its size and its path.
 *
 * Where `;` or another delimiter leaves the comma free, Excel writes `12,50` in much of
 * Europe: the sniffer calls such a column text; when no column holds decimals after a
 * point, the file is read with a decimal comma and those columns are DECIMAL likewise.
 */
export function fixedPointColumns(layout: CsvLayout, scan: RecordScan): CsvLayout {
  const decimalOf = (i: number): string | null => {
    const n = scan.numbers[i];
    if (!n?.fixedPoint || n.scale < 1) return null;
    const width = n.digits + n.scale <= 18 ? 18 : n.digits + n.scale <= 38 ? 38 : 0;
    return width ? `DECIMAL(${width},${n.scale})` : null;
  };
  // A column the sniffer read as a fractional number writes a decimal point.
  const pointed = layout.columns.some((c) => /^(DOUBLE|FLOAT|DECIMAL)/.test(c.type));
  const commaColumns = pointed
    ? []
    : layout.columns.flatMap((c, i) =>
        c.type === 'VARCHAR' && scan.numbers[i]?.decimalComma && decimalOf(i) ? [i] : [],
      );
  let changed = commaColumns.length > 0;
  const columns = layout.columns.map((c, i) => {
    const type =
      (c.type === 'DOUBLE' && !scan.numbers[i]?.decimalComma) || commaColumns.includes(i)
        ? decimalOf(i)
        : null;
    if (!type) return c;
    changed = true;
    return { ...c, type };
  });
  if (!changed) return layout;
  return commaColumns.length ? { ...layout, columns, decimalComma: true } : { ...layout, columns };
}
