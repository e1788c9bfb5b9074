/**
 * MySQL / MariaDB: the statement goes back nearly verbatim. Only names change (the
 * planner's table mapping, backtick quoting) and literals are re-escaped MySQL's way.
 */
import type {
  AggrFunc,
  BinaryLit,
  CastTarget,
  DeleteStmt,
  Expr,
  FunctionCall,
  InsertStmt,
  IntervalExpr,
  Origin,
  UpdateStmt,
  Variable,
} from '../ast/nodes.js';
import { type FunctionMap, SqlCompiler } from './compiler.js';
import type { Ctx } from './compiler-api.js';
import { getFormatMysql } from './functions/get-format.js';

export class MysqlCompiler extends SqlCompiler {
  readonly target = 'mysql' as const;
  override readonly emulate: boolean = false;
  protected readonly functions: FunctionMap = {};

  /** A COLLATE written in the statement goes back with it: it changes what compares equal. */
  override expr(node: Expr, ctx: Ctx = 'value'): string {
    const sql = super.expr(node, ctx);
    const c = node && typeof node === 'object' ? (node.collate?.collate?.name ?? node.collate?.name) : null;
    if (typeof c !== 'string') return sql;
    if (!/^[A-Za-z0-9_]+$/.test(c)) return this.unsupported(`collation ${c}`);
    return `(${sql}) COLLATE ${c}`;
  }

  protected override origin(node: Origin): string {
    const v = String(node.value);
    if (!/^[A-Za-z_ ]+$/.test(v)) return this.unsupported(`keyword ${v}`);
    return v.toUpperCase();
  }

  protected override variable(node: Variable): string {
    const name = String(node.name);
    if (!/^[A-Za-z0-9_.$]+$/.test(name)) return this.unsupported(`variable ${name}`);
    return `${node.prefix === '@@' ? '@@' : '@'}${name}`;
  }

  protected override binaryLiteral(node: BinaryLit): string {
    const v = String(node.value);
    if (node.type === 'bit_string') {
      if (!/^[01]*$/.test(v)) return this.unsupported('bit literal');
      return `b'${v}'`;
    }
    if (!/^[0-9A-Fa-f]*$/.test(v)) return this.unsupported('hex literal');
    return node.type === 'full_hex_string' ? `0x${v}` : `X'${v}'`;
  }

  protected override lockingClause(text: string): string {
    return /^for update$|^lock in share mode$|^for share$/i.test(text.trim()) ? text.toUpperCase() : '';
  }

  protected override rollup(list: string[]): string {
    return `${list.join(', ')} WITH ROLLUP`;
  }

  protected override xor(l: Expr, r: Expr): string {
    return `${this.operand(l)} XOR ${this.operand(r)}`;
  }

  protected override bitXor(l: Expr, r: Expr): string {
    return `${this.operand(l)} ^ ${this.operand(r)}`;
  }

  override divide(l: Expr, r: Expr): string {
    return `${this.operand(l)} / ${this.operand(r)}`;
  }

  override intDiv(l: Expr, r: Expr): string {
    return `${this.operand(l)} DIV ${this.operand(r)}`;
  }

  override mod(l: Expr, r: Expr): string {
    return `${this.operand(l)} % ${this.operand(r)}`;
  }

  override likeOperator(): string {
    return 'LIKE';
  }

  protected override regexp(l: Expr, r: Expr, not: boolean): string {
    return `${this.operand(l)} ${not ? 'NOT ' : ''}REGEXP ${this.operand(r)}`;
  }

  override dateArith(base: Expr, interval: IntervalExpr, sign: 1 | -1): string {
    return `${this.operand(base)} ${sign < 0 ? '-' : '+'} ${this.intervalLiteral(interval)}`;
  }

  protected intervalLiteral(iv: IntervalExpr): string {
    const unit = String(iv.unit ?? '').toUpperCase();
    if (!/^[A-Z_]+$/.test(unit)) return this.unsupported(`INTERVAL unit ${unit}`);
    return `INTERVAL ${this.operand(iv.expr)} ${unit}`;
  }

  override jsonExtract(j: Expr, path: Expr, unquote: boolean): string {
    // MariaDB has no `->` / `->>`; the functions mean the same on MySQL.
    const extract = `JSON_EXTRACT(${this.expr(j)}, ${this.expr(path)})`;
    return unquote ? `JSON_UNQUOTE(${extract})` : extract;
  }

  override cast(e: Expr, target: CastTarget): string {
    const t = String(target.dataType ?? '').toUpperCase();
    if (!/^[A-Z ]+$/.test(t)) return this.unsupported(`CAST AS ${t}`);
    let type = t;
    if (target.length != null) {
      type += `(${Number(target.length)}${target.scale != null ? `, ${Number(target.scale)}` : ''})`;
    }
    return `CAST(${this.expr(e)} AS ${type})`;
  }

  protected override extract(field: string, source: Expr): string {
    if (!/^[A-Z_]+$/i.test(field)) return this.unsupported(`EXTRACT(${field})`);
    return `EXTRACT(${field.toUpperCase()} FROM ${this.expr(source)})`;
  }

  protected override countDistinctMany(items: Expr[]): string {
    return `COUNT(DISTINCT ${items.map((i) => this.expr(i)).join(', ')})`;
  }

  protected override groupConcat(node: AggrFunc): string {
    const a = node.args ?? {};
    const items: Expr[] = a.expr?.type === 'expr_list' ? a.expr.value : [a.expr];
    let sql = `GROUP_CONCAT(${a.distinct ? 'DISTINCT ' : ''}${items.map((i) => this.expr(i)).join(', ')}`;
    if (a.orderby?.length) {
      sql += ` ORDER BY ${a.orderby
        .map((o) => `${this.expr(o.expr)}${String(o.type ?? '').toUpperCase() === 'DESC' ? ' DESC' : ''}`)
        .join(', ')}`;
    }
    const sep = a.separator?.value;
    if (sep && typeof sep === 'object') sql += ` SEPARATOR ${this.expr(sep)}`;
    return sql + ')';
  }

  protected override verbatimFunction(node: FunctionCall, name: string, args: Expr[]): string {
    if (!/^[A-Z0-9_$.]+$/i.test(name)) return this.unsupported(`function ${name}`);
    if (!node.args) return name;
    if (name === 'GET_FORMAT') return getFormatMysql(this, node, args);
    // TRIM(BOTH 'x' FROM a) reads as words; TIMESTAMPDIFF(DAY, a, b) has a keyword argument but commas.
    if (args.some((a) => a?.type === 'origin' && /^from$/i.test(String(a.value)))) {
      return `${name}(${args.map((a) => this.verbatimArg(a)).join(' ')})`;
    }
    if (name === 'DATE_ADD' || name === 'DATE_SUB' || name === 'ADDDATE' || name === 'SUBDATE') {
      if (args[1]?.type === 'interval')
        return `${name}(${this.expr(args[0])}, ${this.intervalLiteral(args[1])})`;
    }
    return `${name}(${args.map((a) => this.verbatimArg(a)).join(', ')})`;
  }

  protected override verbatimArg(a: Expr): string {
    const sql = super.verbatimArg(a);
    if (typeof a?.suffix === 'string' && /^USING [A-Za-z0-9_]+$/i.test(a.suffix)) return `${sql} ${a.suffix}`;
    return sql;
  }

  protected override insertStatement(
    table: string,
    cols: string,
    body: string,
    o: { ignore: boolean; replace: boolean },
  ): string {
    return `${o.replace ? 'REPLACE' : o.ignore ? 'INSERT IGNORE' : 'INSERT'} INTO ${table}${cols} ${body}`;
  }

  protected override insert(s: InsertStmt): string {
    const base = super.insert({ ...s, on_duplicate_update: null });
    const dup = s.on_duplicate_update?.set;
    if (!Array.isArray(dup) || dup.length === 0) return base;
    this.pushScope(null);
    try {
      const sets = dup.map((x) => `${this.quoteIdent(String(x.column))} = ${this.expr(x.value)}`).join(', ');
      return `${base} ON DUPLICATE KEY UPDATE ${sets}`;
    } finally {
      this.popScope();
    }
  }

  protected override update(s: UpdateStmt): string {
    const tables = s.table ?? [];
    const scope = this.pushScope(tables);
    try {
      const sets = (s.set ?? [])
        .map((x) => {
          const col = this.quoteIdent(String(x.column));
          return `${x.table ? `${this.qualifier({ table: x.table })}.` : ''}${col} = ${this.expr(x.value)}`;
        })
        .join(', ');
      void scope;
      let sql = `UPDATE ${this.fromClause(tables)} SET ${sets}`;
      if (s.where) sql += ` WHERE ${this.expr(s.where, 'bool')}`;
      if (Array.isArray(s.orderby) && s.orderby.length) {
        sql += ` ORDER BY ${s.orderby.map((o) => this.orderItem(o, false)).join(', ')}`;
      }
      return sql + this.limitClause(s, 'limit');
    } finally {
      this.popScope();
    }
  }

  protected override deleteStatement(s: DeleteStmt): string {
    const from = s.from ?? [];
    const multi = from.length !== 1 || from[0].join || (s.table ?? []).some((t) => !t.addition);
    this.pushScope(from);
    try {
      let sql: string;
      if (multi) {
        const targets = (s.table ?? []).map((t) => this.qualifier({ table: t.table, db: t.db })).join(', ');
        sql = `DELETE ${targets} FROM ${this.fromClause(from)}`;
      } else {
        // MariaDB (and MySQL before 8.0.16) refuse an alias in the single-table form, which
        // compiling adds: the multi-table form names the target by its alias instead. ORDER BY
        // and LIMIT exist only in the single-table form, said there without the alias.
        const t = from[0] as { table: string; as?: string | null };
        const target = this.quoteIdent(String(t.as ?? t.table));
        const ordered =
          (Array.isArray(s.orderby) && s.orderby.length > 0) || this.limitClause(s, 'limit') !== '';
        const clause = this.fromClause(from);
        sql = ordered
          ? `DELETE FROM ${clause.endsWith(` AS ${target}`) ? clause.slice(0, -` AS ${target}`.length) : clause}`
          : `DELETE ${target} FROM ${clause}`;
      }
      if (s.where) sql += ` WHERE ${this.expr(s.where, 'bool')}`;
      if (Array.isArray(s.orderby) && s.orderby.length) {
        sql += ` ORDER BY ${s.orderby.map((o) => this.orderItem(o, false)).join(', ')}`;
      }
      return sql + this.limitClause(s, 'limit');
    } finally {
      this.popScope();
    }
  }
}
