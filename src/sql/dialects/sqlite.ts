/**
 * SQLite: booleans are already 0/1 and LIKE already ignores ASCII case, but it has no
 * date types (dates are text handled by date()/datetime()), no ROLLUP, no REGEXP.
 */
import type { AggrFunc, CastTarget, Expr, IntervalExpr, SelectStmt } from '../ast/nodes.js';
import { type FunctionMap, SqlCompiler } from './compiler.js';
import { sqliteFunctions } from './functions/sqlite.js';
import { DATE_UNITS, intervalParts } from './support.js';

const MODIFIER_UNIT: Record<string, string> = {
  microsecond: 'seconds',
  second: 'seconds',
  minute: 'minutes',
  hour: 'hours',
  day: 'days',
  month: 'months',
  year: 'years',
};

export class SqliteCompiler extends SqlCompiler {
  readonly target = 'sqlite' as const;
  protected readonly functions: FunctionMap = sqliteFunctions;
  override readonly textType = 'TEXT';
  override readonly doubleType = 'REAL';
  override readonly timestampType = 'TEXT';
  override readonly intType = 'INTEGER';

  override boolAsValue(node: Expr, sql: string): string {
    if (node.type === 'bool') return node.value ? '1' : '0';
    return sql;
  }

  override valueAsBool(_node: Expr, sql: string): string {
    return sql;
  }

  override quantified(_op: string, _l: Expr, quant: string): string {
    return this.unsupported(`comparison with ${quant} (subquery)`);
  }

  /** SQLite has no INTERSECT ALL / EXCEPT ALL (set-ops.ts says two members of them another way). */
  override setOperator(op: string): string {
    const o = super.setOperator(op);
    if (o === 'INTERSECT ALL' || o === 'EXCEPT ALL') return this.unsupported(`${o} of more than two selects`);
    return o;
  }

  /** The group's first value, in input order (SQLite has no first()). */
  override representative(sql: string): string {
    return `(json_group_array(${sql}) ->> '$[0]')`;
  }

  protected override bytesLiteral(hex: string): string {
    return `X'${hex}'`;
  }

  protected override typedLiteral(_type: string, value: string): string {
    return this.stringLiteral(value);
  }

  override ts(node: Expr): string {
    return `datetime(${this.expr(node)})`;
  }

  override date(node: Expr): string {
    return `date(${this.expr(node)})`;
  }

  protected override rollup(): string {
    return this.unsupported('GROUP BY ... WITH ROLLUP');
  }

  override setMember(m: SelectStmt): string {
    const core = this.selectCore(m);
    const own = m.orderby?.length || m.limit;
    return own ? `SELECT * FROM (${core})` : core;
  }

  override divide(l: Expr, r: Expr): string {
    return `CAST(${this.expr(l)} AS REAL) / NULLIF(${this.expr(r)}, 0)`;
  }

  override intDiv(l: Expr, r: Expr): string {
    return `CAST(CAST(${this.expr(l)} AS REAL) / NULLIF(${this.expr(r)}, 0) AS INTEGER)`;
  }

  override mod(l: Expr, r: Expr): string {
    return `mod(${this.num(l)}, NULLIF(${this.num(r)}, 0))`;
  }

  protected override bitXor(l: Expr, r: Expr): string {
    const a = this.operand(l);
    const b = this.operand(r);
    return `((${a} | ${b}) - (${a} & ${b}))`;
  }

  /** No translate() in SQLite: only case and trailing spaces are folded. */
  override accentFold(sql: string): string {
    this.approximate('accents are not folded on SQLite');
    return sql;
  }

  /** SQLite's upper() changes ASCII letters only. */
  override foldText(v: string): string {
    return v.replace(/[a-z]+/g, (s) => s.toUpperCase());
  }

  /** No ordered aggregate in SQLite: MIN/MAX of text would follow SQLite's order, not MySQL's collation. */
  override foldedExtreme(name: 'MIN' | 'MAX', _e: Expr): string {
    return this.unsupported(`${name} of text (SQLite orders text by its bytes, not by MySQL's collation)`);
  }

  /** lower(rtrim(x)) is all SQLite folds: no branch to take. */
  override asciiTest(): null {
    return null;
  }

  override byteLength(): null {
    return null;
  }

  /** SQLite's LIKE ignores ASCII case, which only widens the superset. */
  override likePrefilter(sql: string, pattern: string): string {
    return `${sql} LIKE ${this.stringLiteral(pattern)} ESCAPE '\\'`;
  }

  /** SQLite's LIKE already ignores (ASCII) case. */
  override likeFolds(): boolean {
    return false;
  }

  override likeOperator(caseSensitive: boolean): string {
    if (caseSensitive) return this.unsupported('case-sensitive LIKE');
    this.approximate("SQLite's LIKE folds ASCII case only");
    return 'LIKE';
  }

  override likeDefaultEscape(): string {
    return ` ESCAPE '\\'`;
  }

  protected override regexp(): string {
    return this.unsupported('REGEXP');
  }

  protected override castText(e: Expr, length: number | null): string {
    const sql = this.text(e);
    return length != null ? `substr(${sql}, 1, ${length})` : sql;
  }

  protected override castInteger(e: Expr): string {
    if (this.kind(e) === 'number') return `CAST(round(${this.expr(e)}) AS INTEGER)`;
    return `CAST(${this.expr(e)} AS INTEGER)`;
  }

  /** SQLite's integers stop at 2^63 - 1: a negative value cast to UNSIGNED (2^64 - n in MySQL) cannot be said. */
  protected override castUnsigned(_signed: string): string {
    return this.unsupported('CAST AS UNSIGNED');
  }

  /** Text compares in byte order here already. */
  protected override byteOrder(sql: string): string {
    return sql;
  }

  protected override castDecimal(sql: string, _p: number, s: number): string {
    return `round(CAST(${sql} AS REAL), ${s})`;
  }

  protected override castJson(sql: string): string {
    return sql;
  }

  protected override castBinary(sql: string): string {
    return `CAST(${sql} AS BLOB)`;
  }

  override cast(e: Expr, target: CastTarget): string {
    const t = String(target.dataType ?? '').toUpperCase();
    const dt = t === 'DATETIME' || t === 'TIMESTAMP';
    if ((t === 'DATE' || dt) && this.kind(e) === 'string') return this.castTextTemporal(e, dt);
    if (t === 'DATE') return `date(${this.expr(e)})`;
    if (dt) return `datetime(${this.expr(e)})`;
    if (t === 'TIME') return `time(${this.expr(e)})`;
    return super.cast(e, target);
  }

  /**
   * Text to DATE / DATETIME. SQLite's date() rolls an impossible date over (2024-02-30 is
   * 2024-03-01) and reads only ISO text, where MySQL answers NULL and reads more forms. A
   * literal in ISO form is checked against what date() made of it; any other text is
   * refused (the local engine then reads it as MySQL does).
   */
  private castTextTemporal(e: Expr, withTime: boolean): string {
    const iso = withTime ? /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/ : /^\d{4}-\d{2}-\d{2}$/;
    if (e.type !== 'string' || !iso.test(String(e.value)))
      return this.unsupported(
        `CAST of text to ${withTime ? 'DATETIME' : 'DATE'} (SQLite reads only ISO dates, and rolls impossible ones over)`,
      );
    const sql = this.expr(e);
    const made = withTime ? `datetime(${sql})` : `date(${sql})`;
    return `(CASE WHEN ${made} = ${sql} THEN ${made} END)`;
  }

  protected override countDistinctMany(): string {
    return this.unsupported('COUNT(DISTINCT a, b)');
  }

  protected override groupConcat(node: AggrFunc): string {
    if (node.args?.distinct) return this.unsupported('GROUP_CONCAT(DISTINCT ...)');
    return super.groupConcat(node);
  }

  override dateArith(base: Expr, interval: IntervalExpr, sign: 1 | -1): string {
    const unit = String(interval.unit ?? '').toUpperCase();
    let parts: [number, string][] | null;
    try {
      parts = intervalParts(interval.expr, unit, sign);
    } catch (e) {
      return this.unsupported((e as Error).message);
    }
    if (!parts) return this.unsupported(`INTERVAL with a computed ${unit} value`);
    const mods = parts.map(([v, u]) => {
      const value = u === 'microsecond' ? v / 1e6 : v;
      return this.stringLiteral(`${value >= 0 ? '+' : ''}${value} ${MODIFIER_UNIT[u]}`);
    });
    // MySQL clamps month arithmetic to the month's last day; 'floor' does the same.
    if (parts.some(([, u]) => u === 'month' || u === 'year')) mods.push(`'floor'`);
    const fn = this.dateKindOf(base) === 'date' && DATE_UNITS.has(unit) ? 'date' : 'datetime';
    return `${fn}(${this.expr(base)}, ${mods.join(', ')})`;
  }

  override jsonExtract(j: Expr, path: Expr, unquote: boolean): string {
    if (path?.type !== 'string') return this.unsupported('a JSON path that is not a string literal');
    const steps = this.jsonSteps(String(path.value));
    const p = `$${steps.map((s) => (typeof s === 'number' ? `[${s}]` : `."${s.replace(/"/g, '\\"')}"`)).join('')}`;
    return `(${this.expr(j)} ${unquote ? '->>' : '->'} ${this.stringLiteral(p)})`;
  }

  protected override insertStatement(
    table: string,
    cols: string,
    body: string,
    o: { ignore: boolean; replace: boolean },
  ): string {
    const verb = o.replace ? 'REPLACE' : o.ignore ? 'INSERT OR IGNORE' : 'INSERT';
    return `${verb} INTO ${table}${cols} ${body}`;
  }
}
