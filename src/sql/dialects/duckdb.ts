/** DuckDB: the local engine and `duckdb` sources. */
import type { Expr } from '../ast/nodes.js';
import { type FunctionMap, SqlCompiler } from './compiler.js';
import { duckdbFunctions } from './functions/duckdb.js';

export class DuckdbCompiler extends SqlCompiler {
  readonly target = 'duckdb' as const;
  protected readonly functions: FunctionMap = duckdbFunctions;
  override readonly textType = 'VARCHAR';
  override readonly doubleType = 'DOUBLE';
  override readonly timestampType = 'TIMESTAMP';
  override readonly intType = 'BIGINT';

  protected override bytesLiteral(hex: string): string {
    return `from_hex('${hex}')`;
  }

  override representative(sql: string): string {
    return this.firstSeen ? this.firstBy(sql, this.firstSeen) : `first(${sql})`;
  }

  /** arg_min/arg_max skip rows whose fold is NULL: NULL only when every value is. */
  override foldedExtreme(name: 'MIN' | 'MAX', e: Expr): string {
    return `${name === 'MIN' ? 'arg_min' : 'arg_max'}(${this.expr(e)}, ${this.foldSql(e)})`;
  }

  /** arg_min_null, not arg_min: a NULL at the least position is the value, as first() would give. */
  override firstBy(sql: string, order: string): string {
    return `arg_min_null(${sql}, ${order})`;
  }

  protected override distinctListAgg(value: string, direction: string, sep: string): string {
    return `array_to_string(list(DISTINCT ${value} ORDER BY ${value}${direction}), ${sep})`;
  }

  /** DuckDB's `/` is already floating-point division and is NULL on zero. */
  override divide(l: Expr, r: Expr): string {
    return `${this.numOperand(l)} / NULLIF(${this.expr(r)}, 0)`;
  }

  override intDiv(l: Expr, r: Expr): string {
    return `CAST(trunc(CAST(${this.expr(l)} AS DOUBLE) / NULLIF(${this.expr(r)}, 0)) AS BIGINT)`;
  }

  override mod(l: Expr, r: Expr): string {
    return `(${this.numOperand(l)} % NULLIF(${this.expr(r)}, 0))`;
  }

  protected override bitXor(l: Expr, r: Expr): string {
    return `xor(${this.expr(l)}, ${this.expr(r)})`;
  }

  override asciiTest(sql: string): string {
    return `strlen(${sql}) = length(${sql})`;
  }

  override asciiUpper(sql: string): string {
    return `upper(${sql})`;
  }

  override byteLength(sql: string): string {
    return `strlen(${sql})`;
  }

  override likePrefilter(sql: string, pattern: string): string {
    return `${sql} LIKE ${this.stringLiteral(pattern)} ESCAPE '\\'`;
  }

  /** DuckDB's LIKE has no escape character unless one is named. */
  override likeDefaultEscape(): string {
    return ` ESCAPE '\\'`;
  }

  protected override regexp(l: Expr, r: Expr, not: boolean): string {
    const cs = /_bin$|_cs$/i.test(String(l?.collate?.collate?.name ?? r?.collate?.collate?.name ?? ''));
    const call = `regexp_matches(${this.text(l)}, ${this.text(r)}${cs ? '' : ", 'i'"})`;
    return not ? `NOT ${call}` : call;
  }

  protected override castUnsigned(signed: string): string {
    return `CAST((CAST(${signed} AS HUGEINT) + 18446744073709551616) % 18446744073709551616 AS UBIGINT)`;
  }

  /** Text compares in byte order here already. */
  protected override byteOrder(sql: string): string {
    return sql;
  }

  protected override castDecimal(sql: string, p: number, s: number): string {
    const prec = Math.min(Math.max(p, 1), 38);
    return `CAST(${sql} AS DECIMAL(${prec}, ${Math.min(s, prec)}))`;
  }

  /** MySQL's CAST('2024-02-30' AS DATE) is NULL (with a warning), not an error. */
  protected override castTemporal(e: Expr, sql: string, type: string): string {
    if (this.kind(e) !== 'string') return `CAST(${sql} AS ${type})`;
    // MySQL also reads the compact forms 20240115 and 20240115101112.
    const compact = type === 'DATE' ? '%Y%m%d' : '%Y%m%d%H%M%S';
    return `COALESCE(TRY_CAST(${sql} AS ${type}), CAST(try_strptime(${sql}, '${compact}') AS ${type}))`;
  }

  protected override castJson(sql: string): string {
    return `CAST(${sql} AS JSON)`;
  }

  protected override castBinary(sql: string): string {
    return `CAST(${sql} AS BLOB)`;
  }

  override jsonExtract(j: Expr, path: Expr, unquote: boolean): string {
    if (path?.type !== 'string') return this.unsupported('a JSON path that is not a string literal');
    const steps = this.jsonSteps(String(path.value));
    const p = `$${steps.map((s) => (typeof s === 'number' ? `[${s}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? `.${s}` : `."${s.replace(/"/g, '\\"')}"`)).join('')}`;
    return `${unquote ? 'json_extract_string' : 'json_extract'}(${this.expr(j)}, ${this.stringLiteral(p)})`;
  }
}
