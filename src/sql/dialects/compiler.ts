/**
 * The typed statement tree (ast/nodes.ts) → SQL text, Kysely-style: this class is the
 * default compiler (standard SQL, carrying MySQL's meaning: case-insensitive string
 * comparison, NULLs first, decimal `/`, 0/1 booleans, ...) with one overridable method per
 * construct; each target subclass overrides only what it says differently. MySQL itself
 * sets `emulate = false` and gets the statement back nearly verbatim.
 *
 * The rules that are not one construct's translation live beside it, as functions of a
 * compiler: name resolution (scope.ts), grouping (grouping.ts, two-phase.ts), text under
 * the collation (collation.ts), set operations (set-ops.ts), windows (windows.ts), MySQL's
 * functions (functions/). What stays here is the emission of every construct, because each
 * of its methods is an override point of some target (casts, dates, JSON, aggregates, DML):
 * split further, a target would have to know which file holds the method it overrides.
 * That is why this file is longer than the 600 lines the others keep to.
 *
 * A construct a target cannot say with MySQL's meaning throws UnsupportedError with the
 * reason; `canCompile` turns that into an answer for the planner.
 */

import { quoteIdent, stringLiteral } from '../../core/sql-text.js';
import { AGGREGATE_FUNCTIONS, WINDOW_ONLY } from '../ast/aggregates.js';
import { sameExpr, sameGroupExpr } from '../ast/equality.js';
import {
  type AggrFunc,
  type BinaryExpr,
  type BinaryLit,
  type CaseExpr,
  type CastTarget,
  type Collate,
  type ColumnRef,
  type CreateStmt,
  columnName,
  type DeleteStmt,
  type DerivedItem,
  type Expr,
  type FromItem,
  type FunctionCall,
  type GroupBy,
  type InsertStmt,
  type IntervalExpr,
  isTableItem,
  type Limit,
  limitOf,
  type OrderItem,
  type Origin,
  type SelectItem,
  type SelectStmt,
  type SqlStatement,
  type TableItem,
  type UnaryExpr,
  type UpdateStmt,
  unexpectedKind,
  type Variable,
  type With,
} from '../ast/nodes.js';
import { foldExpr, foldedSubquery, foldSql, foldStrings, sortKeySql, textEquality } from './collation.js';
import type { Compiler, Ctx } from './compiler-api.js';
import { parseJsonPath } from './functions/json-path.js';
import { groupingPlan } from './grouping.js';
import { isBooleanExpr, kindOf, looksNumericOrTemporal } from './infer.js';
import { type Grouping, type QualifiedName, type Scope, type ScopeItem, Scopes } from './scope.js';
import { setOperation } from './set-ops.js';
import {
  ACCENT_MAP,
  ACCENTED,
  DATE_UNITS,
  hasBinaryCollation,
  intervalParts,
  mysqlStringToNumber,
  SIMPLE_UNITS,
  UNACCENTED,
  upperChar,
} from './support.js';
import { FIRST_SEEN, GROUPED } from './two-phase.js';
import {
  type ColumnRefName,
  type CompileOptions,
  type Kind,
  kindOfMysqlType,
  type Target,
  UnsupportedError,
} from './types.js';
import { over, windowClause } from './windows.js';

export type { Ctx } from './compiler-api.js';
export type FunctionHandler = (c: SqlCompiler, node: FunctionCall | AggrFunc, args: Expr[]) => string;
export type FunctionMap = Record<string, FunctionHandler>;

/** EXTRACT's compound units and the single fields they are made of. */
const TWO_TO_64 = '18446744073709551616';

/** A collation mark that makes a comparison byte for byte (hasBinaryCollation). */
const BYTE_ORDER: Collate = { collate: { name: 'binary' } };

/** Functions MySQL answers as a DOUBLE. */
const APPROXIMATE_FUNCTIONS = new Set(
  'SQRT POW POWER EXP LN LOG LOG2 LOG10 SIN COS TAN ASIN ACOS ATAN ATAN2 COT DEGREES RADIANS PI RAND STD STDDEV STDDEV_POP STDDEV_SAMP VARIANCE VAR_POP VAR_SAMP'.split(
    ' ',
  ),
);

const COMPOUND_UNITS: Record<string, string[]> = {
  YEAR_MONTH: ['YEAR', 'MONTH'],
  DAY_HOUR: ['DAY', 'HOUR'],
  DAY_MINUTE: ['DAY', 'HOUR', 'MINUTE'],
  DAY_SECOND: ['DAY', 'HOUR', 'MINUTE', 'SECOND'],
  HOUR_MINUTE: ['HOUR', 'MINUTE'],
  HOUR_SECOND: ['HOUR', 'MINUTE', 'SECOND'],
  MINUTE_SECOND: ['MINUTE', 'SECOND'],
};

export abstract class SqlCompiler implements Compiler {
  abstract readonly target: Target;
  /** Emulate MySQL semantics; false only for MySQL itself. */
  readonly emulate: boolean = true;
  protected abstract readonly functions: FunctionMap;
  readonly scopes = new Scopes();
  protected paramCount = 0;
  protected aggDepth = 0;
  /** Set while compiling the select list, HAVING and ORDER BY of a grouped query. */
  protected grouping: Grouping | null = null;
  private inRecursiveCte = false;
  /** While compiling phase 2 of a two-phase grouping: the first-seen column representatives order by. */
  protected firstSeen: string | null = null;

  /** Type names used by casts the compiler inserts; targets override. */
  readonly textType: string = 'text';
  readonly doubleType: string = 'double precision';
  readonly timestampType: string = 'timestamp';
  readonly intType: string = 'bigint';

  /**
   * Where the last compile only approximates MySQL's meaning (a target that cannot say it
   * exactly). A filter compiled with approximations is pushed as Inexact: the local engine
   * re-checks it.
   */
  readonly approximations: string[] = [];

  constructor(readonly opts: CompileOptions = {}) {}

  compile(stmt: SqlStatement): string {
    this.approximations.length = 0;
    this.scopes.reset();
    this.paramCount = 0;
    this.aggDepth = 0;
    this.grouping = null;
    return this.statement(stmt);
  }

  /**
   * Whether text compares byte for byte here: a binary collation written in the statement
   * (`COLLATE utf8mb4_bin`, `BINARY x`), or a source whose `collation` parameter is
   * 'source' (its own rules, its own indexes: nothing is folded).
   */
  caseSensitive(node: Expr | null | undefined): boolean {
    return this.opts.collation === 'source' || hasBinaryCollation(node);
  }
  /** Whether a comparison between these two folds under MySQL's collation (collation.ts). */
  foldStrings(l: Expr, r: Expr): boolean {
    return foldStrings(this, l, r);
  }

  /** An expression folded for comparison: lower case, accents, trailing spaces (collation.ts). */
  foldSql(node: Expr): string {
    return foldSql(this, node);
  }

  /** An already-compiled column reference folded for comparison (collation.ts). */
  foldColumnSql(sql: string): string {
    return foldExpr(this, `CAST(${sql} AS ${this.textType})`, true, true);
  }

  /** Whether comparisons of this expression fold under MySQL's collation (text, not byte for byte). */
  folds(node: Expr | null | undefined): boolean {
    return !!node && this.emulate && this.kind(node) === 'string' && !this.caseSensitive(node);
  }

  /** The label MySQL gives an unaliased expression (display.ts, passed in by index.ts). */
  display(e: Expr): string {
    return this.opts.displayName ? this.opts.displayName(e) : 'expr';
  }

  protected approximate(reason: string): void {
    if (!this.approximations.includes(reason)) this.approximations.push(reason);
  }

  unsupported(reason: string): never {
    throw new UnsupportedError(this.target, reason);
  }

  // ---------------------------------------------------------------------------------
  // Quoting and literals

  quoteIdent(name: string): string {
    if (name.includes('\0')) this.unsupported('an identifier containing a NUL character');
    return quoteIdent(this.target, name);
  }

  stringLiteral(value: string): string {
    if (value.includes('\0') && this.target !== 'mysql')
      this.unsupported('a string literal containing a NUL character');
    return stringLiteral(this.target, value);
  }

  lit(value: string): string {
    return this.stringLiteral(value);
  }

  numberLiteral(value: number | string): string {
    const s = String(value);
    if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s)) this.unsupported(`number literal ${s}`);
    return s;
  }

  protected param(): string {
    return '?';
  }

  protected typedLiteral(type: string, value: string): string {
    const kw = type === 'datetime' ? 'TIMESTAMP' : type.toUpperCase();
    return `${kw} ${this.stringLiteral(value)}`;
  }

  // ---------------------------------------------------------------------------------
  // Statements

  protected statement(s: SqlStatement): string {
    switch (s?.type) {
      case 'select':
        return this.selectStatement(s);
      case 'insert':
      case 'replace':
        return this.insert(s);
      case 'update':
        return this.update(s);
      case 'delete':
        return this.deleteStatement(s);
      case 'create':
        if (s.keyword === 'table' && s.query_expr) return this.createTableAs(s);
        return this.unsupported('CREATE statements other than CREATE TABLE ... AS SELECT');
      case 'drop':
        return this.unsupported('DROP statements');
      default:
        return this.unsupported(`${unexpectedKind(s).toUpperCase()} statements`);
    }
  }

  selectStatement(s: SelectStmt): string {
    const saved = { grouping: this.grouping, aggDepth: this.aggDepth };
    this.grouping = null;
    this.aggDepth = 0;
    let sql = '';
    const pushedCtes = Array.isArray(s.with) && s.with.length > 0;
    if (pushedCtes && s.with) sql += this.withClause(s.with) + ' ';
    try {
      if (!s._next) return sql + this.selectCore(s);
      const members: SelectStmt[] = [];
      for (let m: SelectStmt | null | undefined = s; m; m = m._next) members.push(m);
      return sql + setOperation(this, s, members, !this.inRecursiveCte);
    } finally {
      if (pushedCtes) this.scopes.ctes.pop();
      this.grouping = saved.grouping;
      this.aggDepth = saved.aggDepth;
    }
  }

  protected withClause(list: With[]): string {
    const ctes = this.scopes.ctes;
    const names = new Set<string>(ctes.length ? ctes[ctes.length - 1] : []);
    ctes.push(names);
    const recursive = list.some((w) => w.recursive);
    const parts = list.map((w) => {
      const name = String(w.name);
      // A recursive CTE sees itself; either way later ones see earlier ones.
      names.add(name.toLowerCase());
      const cols =
        Array.isArray(w.columns) && w.columns.length
          ? ` (${w.columns.map((c: string) => this.quoteIdent(c)).join(', ')})`
          : '';
      const prev = this.inRecursiveCte;
      this.inRecursiveCte = recursive;
      try {
        return `${this.quoteIdent(name)}${cols} AS (${this.selectStatement(w.stmt.ast)})`;
      } finally {
        this.inRecursiveCte = prev;
      }
    });
    return `WITH ${recursive ? 'RECURSIVE ' : ''}${parts.join(', ')}`;
  }

  setOperator(op: string): string {
    const o = op.toUpperCase();
    if (o === 'UNION DISTINCT') return 'UNION';
    if (o === 'MINUS') return 'EXCEPT';
    return o;
  }

  setMember(m: SelectStmt): string {
    const core = this.selectCore(m);
    const own = m.orderby?.length || m.limit;
    return own || m.parentheses_symbol ? `(${core})` : core;
  }

  selectCore(s: SelectStmt): string {
    // SELECT ... INTO @var / OUTFILE writes somewhere other than the result.
    if (s.into && typeof s.into === 'object' && s.into.type) return this.unsupported('SELECT ... INTO');
    const scope = this.pushScope(s.from);
    const outerFirstSeen = this.firstSeen;
    // Phase 2 of a two-phase grouping reads spellings by where their raw group was first seen.
    this.firstSeen =
      s.from?.length === 1 && s.from[0]?.as === GROUPED && s.from[0]?.expr
        ? `${this.quoteIdent(GROUPED)}.${this.quoteIdent(FIRST_SEEN)}`
        : null;
    try {
      const cols: SelectItem[] = Array.isArray(s.columns) ? s.columns : [];
      for (const c of cols) {
        if (c?.as != null)
          scope.aliases.set(String(c.as).toLowerCase(), { name: String(c.as), expr: c.expr });
      }
      const from = this.fromClause(s.from);
      const where = s.where ? this.expr(s.where, 'bool') : '';
      const plan = this.emulate ? groupingPlan(this, s) : null;
      const distinctAsGroup = !!plan && !!s.distinct && !((s.groupby?.columns?.length ?? 0) > 0);
      const parts = ['SELECT'];
      if (s.distinct && !distinctAsGroup) parts.push('DISTINCT');
      this.grouping = plan;
      scope.grouping = plan;
      try {
        parts.push(this.selectList(s.columns));
      } finally {
        this.grouping = null;
        scope.grouping = null;
      }
      if (from) parts.push(`FROM ${from}`);
      if (where) parts.push(`WHERE ${where}`);
      const group = s.groupby?.columns;
      if (plan) {
        if (plan.keys.length) {
          const list = plan.keys.map((k) => k.sql);
          parts.push(`GROUP BY ${plan.rollup ? this.rollup(list) : list.join(', ')}`);
        }
      } else if (Array.isArray(group) && group.length) {
        parts.push(this.groupByClause(group, s.groupby?.modifiers ?? []));
      }
      this.grouping = plan;
      scope.grouping = plan;
      try {
        if (s.having) {
          scope.substitute = this.emulate;
          parts.push(`HAVING ${this.expr(s.having, 'bool')}`);
          scope.substitute = false;
        }
        if (s.window?.expr?.length) parts.push(windowClause(this, s.window.expr));
        const orderby = this.sortItems(s.orderby);
        if (orderby.length) {
          const fold = !s.distinct || distinctAsGroup;
          parts.push(
            `ORDER BY ${orderby.map((o, i) => this.orderItem(o, fold, i === orderby.length - 1)).join(', ')}`,
          );
        }
      } finally {
        this.grouping = null;
        scope.grouping = null;
      }
      const limit = this.limitClause(s, 'limit');
      if (limit) parts.push(limit.trim());
      if (s.locking_read) parts.push(this.lockingClause(String(s.locking_read), s));
      return parts.filter(Boolean).join(' ');
    } finally {
      this.firstSeen = outerFirstSeen;
      this.popScope();
    }
  }

  /** One value of a column within a group: MySQL returns the first row's. */
  representative(sql: string): string {
    return this.firstSeen ? this.firstBy(sql, this.firstSeen) : `(array_agg(${sql}))[1]`;
  }

  /** The value at the least `order` in a group (phase 2 of a two-phase grouping). */
  firstBy(sql: string, order: string): string {
    return `(array_agg(${sql} ORDER BY ${order}))[1]`;
  }

  protected lockingClause(_text: string, _select: SelectStmt): string {
    // Reads through a federated engine do not hold row locks on the source.
    return '';
  }

  protected selectList(columns: SelectItem[] | string): string {
    if (!Array.isArray(columns) || columns.length === 0) return '*';
    return columns
      .map((c) => {
        const e = c.expr;
        if (e?.type === 'column_ref' && columnName(e) === '*') {
          return e.table ? `${this.qualifier(e)}.*` : '*';
        }
        const sql = this.expr(e, 'value');
        let alias: string | null = c.as ?? null;
        if (alias == null && this.emulate && this.opts.autoAlias !== false) {
          // An empty literal's label is '', which no target takes as a name: the result's
          // labels (parse/labels.ts) name it afterwards.
          if (e?.type !== 'column_ref') alias = this.display(e) || null;
          else if (this.grouping && sql !== this.plainColumn(e)) alias = columnName(e);
          else if (this.opts.columnName) {
            const written = columnName(e);
            if (this.realColumnName(e) !== written) alias = written;
          }
        }
        return alias != null ? `${sql} AS ${this.quoteIdent(alias)}` : sql;
      })
      .join(', ');
  }

  /** A column reference as written, without grouping rewrites. */
  private plainColumn(e: ColumnRef): string {
    const g = this.grouping;
    this.grouping = null;
    try {
      return this.expr(e);
    } finally {
      this.grouping = g;
    }
  }

  protected groupByClause(cols: Expr[], modifiers: GroupBy['modifiers']): string {
    const list = cols.map((c) => this.expr(c, 'value'));
    const rollup = modifiers.some((m) => /rollup/i.test(String(m?.value ?? '')));
    return rollup ? `GROUP BY ${this.rollup(list)}` : `GROUP BY ${list.join(', ')}`;
  }

  protected rollup(list: string[]): string {
    return `ROLLUP (${list.join(', ')})`;
  }

  /** `last`: no sort key follows, so values equal but for trailing spaces are free ties (sortKeySql). */
  orderItem(o: OrderItem, fold: boolean, last = false): string {
    const desc = String(o.type ?? '').toUpperCase() === 'DESC';
    const e = o.expr;
    const scope = this.currentScope();
    let sql: string;
    const alias =
      e?.type === 'column_ref' && !e.table ? scope?.aliases.get(columnName(e).toLowerCase()) : undefined;
    const target = alias ? alias.expr : e;
    const foldIt =
      fold &&
      this.emulate &&
      !scope?.outputNames &&
      this.kind(target) === 'string' &&
      !this.caseSensitive(target);
    if (alias && !foldIt) sql = this.quoteIdent(alias.name);
    else {
      const prev = scope?.substitute ?? false;
      if (scope) scope.substitute = this.emulate;
      try {
        const key = alias ? alias.expr : e;
        sql = foldIt ? (last ? sortKeySql(this, key) : this.foldSql(key)) : this.expr(e, 'value');
      } finally {
        if (scope) scope.substitute = prev;
      }
    }
    return `${sql}${desc ? ' DESC' : ''}${this.nullsOrder(desc)}`;
  }

  /** ORDER BY items that sort: MySQL ignores constants (ORDER BY NULL), which other targets reject. */
  sortItems(list: OrderItem[] | null | undefined): OrderItem[] {
    const items = Array.isArray(list) ? list : [];
    if (!this.emulate) return items;
    return items.filter((o) => !['null', 'string', 'bool'].includes(String(o?.expr?.type)));
  }

  /** MySQL sorts NULLs first ascending and last descending. */
  nullsOrder(desc: boolean): string {
    if (!this.emulate) return '';
    return desc ? ' NULLS LAST' : ' NULLS FIRST';
  }

  limitClause(s: { limit?: Limit | null; _limit?: Limit | null }, key: 'limit' | '_limit'): string {
    const { count, offset } = limitOf(s, key);
    if (!count) return '';
    return ` LIMIT ${this.expr(count)}${offset ? ` OFFSET ${this.expr(offset)}` : ''}`;
  }

  // ---------------------------------------------------------------------------------
  // FROM, scopes and name binding

  pushScope(from: FromItem[] | null | undefined): Scope {
    return this.scopes.push(from);
  }

  popScope(): void {
    this.scopes.pop();
  }

  currentScope(): Scope | undefined {
    return this.scopes.current();
  }

  protected qualifier(ref: QualifiedName): string {
    const item = this.scopes.resolve(ref);
    return this.quoteIdent(item ? item.alias : String(ref.table));
  }

  protected fromClause(from: FromItem[] | null | undefined): string {
    if (!Array.isArray(from)) return '';
    const scope = this.currentScope()!;
    let sql = '';
    let first = true;
    for (const f of from) {
      if (!f || f.type === 'dual') continue;
      const src =
        f.type === 'join_group' ? `(${this.fromClause(f.expr)})` : this.fromItem(f, scope.byNode.get(f)!);
      if (first) {
        sql = src;
        first = false;
        continue;
      }
      if (!f.join) {
        sql += `, ${src}`;
        continue;
      }
      sql += ` ${this.joinClause(f, src)}`;
    }
    return sql;
  }

  protected joinClause(f: FromItem, src: string): string {
    // The planner fills a NATURAL JOIN's columns (plan/natural.ts); without them it has no meaning here.
    if (f.natural) return this.unsupported("NATURAL JOIN without the tables' columns");
    const kind = String(f.join).toUpperCase().replace(/\s+/g, ' ');
    const hasCond = !!f.on || (Array.isArray(f.using) && f.using.length > 0);
    let kw: string;
    if (kind.startsWith('LEFT')) kw = 'LEFT JOIN';
    else if (kind.startsWith('RIGHT')) kw = 'RIGHT JOIN';
    else if (kind.startsWith('FULL')) kw = 'FULL JOIN';
    else if (kind.startsWith('CROSS')) kw = hasCond ? 'INNER JOIN' : 'CROSS JOIN';
    else if (kind === 'INNER JOIN' || kind === 'JOIN' || kind === 'STRAIGHT_JOIN')
      kw = hasCond ? 'INNER JOIN' : 'CROSS JOIN';
    else return this.unsupported(`join type ${kind}`);
    let sql = `${kw} ${src}`;
    if (f.on) sql += ` ON ${this.expr(f.on, 'bool')}`;
    else if (Array.isArray(f.using) && f.using.length) {
      sql += ` USING (${f.using.map((u: string) => this.quoteIdent(this.realColumnName({ table: null, column: u }))).join(', ')})`;
    } else if (kw !== 'CROSS JOIN') sql += ' ON TRUE';
    return sql;
  }

  protected fromItem(f: TableItem | DerivedItem, item: ScopeItem): string {
    if (f.expr) {
      if (f.expr.type !== 'subquery') return this.unsupported('table functions or VALUES in FROM');
      return `(${this.selectStatement(f.expr.ast)}) AS ${this.quoteIdent(item.alias)}`;
    }
    if (item.cte) {
      return item.alias === f.table
        ? this.quoteIdent(f.table)
        : `${this.quoteIdent(f.table)} AS ${this.quoteIdent(item.alias)}`;
    }
    const name = this.tableSql(f);
    const plain = !this.opts.tableName && !f.db && !f.schema && !f.as && item.alias === f.table;
    return plain ? name : `${name} AS ${this.quoteIdent(item.alias)}`;
  }

  /** The SQL name of a base table, through the planner's mapping. */
  protected tableSql(f: TableItem): string {
    const ref = { db: f.db ?? null, schema: f.schema ?? null, table: String(f.table) };
    if (this.opts.tableName) return this.opts.tableName(ref);
    return [ref.db, ref.schema, ref.table]
      .filter((p): p is string => !!p)
      .map((p) => this.quoteIdent(p))
      .join('.');
  }

  columnRefName(ref: ColumnRef): ColumnRefName {
    return {
      db: ref.db ?? null,
      schema: ref.schema ?? null,
      table: ref.table ? String(ref.table) : null,
      column: columnName(ref),
    };
  }

  protected realColumnName(ref: ColumnRef | ColumnRefName): string {
    const r = 'type' in ref ? this.columnRefName(ref) : ref;
    return this.opts.columnName ? this.opts.columnName(r) : r.column;
  }

  protected columnRef(node: ColumnRef, ctx: Ctx): string {
    const col = columnName(node);
    const scope = this.currentScope();
    if (scope?.outputNames) return this.quoteIdent(col);
    if (!node.table && scope?.substitute && this.aggDepth === 0) {
      const a = scope.aliases.get(col.toLowerCase());
      if (a && !(a.expr?.type === 'column_ref' && columnName(a.expr).toLowerCase() === col.toLowerCase())) {
        scope.substitute = false;
        try {
          return `(${this.expr(a.expr, ctx)})`;
        } finally {
          scope.substitute = true;
        }
      }
    }
    const name = this.quoteIdent(this.realColumnName(node));
    if (!node.table) return name;
    const found = this.scopes.resolveIn(node);
    const sql = `${this.quoteIdent(found ? found.item.alias : String(node.table))}.${name}`;
    const outer =
      found && found.depth < this.scopes.depth - 1 ? (this.scopes.at(found.depth)?.grouping ?? null) : null;
    return outer ? this.outerGrouped(outer, node, sql) : sql;
  }

  /**
   * A correlated reference, from a subquery, to a column of a grouped outer query: it must
   * be grouped there, else read through the representative (an outer-level aggregate).
   */
  private outerGrouped(g: Grouping, node: ColumnRef, sql: string): string {
    const i = g.keys.findIndex((k) => sameGroupExpr(k.node, node));
    if (i >= 0 && !g.keys[i].folded) return sql;
    const rep = this.representative(sql);
    return i >= 0 && g.rollup ? `CASE WHEN GROUPING(${g.keys[i].sql}) = 1 THEN NULL ELSE ${rep} END` : rep;
  }

  // ---------------------------------------------------------------------------------
  // Expressions

  /** The kind of an expression, using the planner's column types and select aliases. */
  kind(node: Expr | null | undefined): Kind {
    return kindOf(node, (ref: ColumnRef) => {
      if (!ref.table) {
        const scope = this.currentScope();
        const a =
          scope && (scope.substitute || scope.outputNames)
            ? scope.aliases.get(columnName(ref).toLowerCase())
            : undefined;
        if (a && a.expr !== ref) return this.kind(a.expr);
      }
      return kindOfMysqlType(this.opts.columnType?.(this.columnRefName(ref)));
    });
  }

  isBool(node: Expr): boolean {
    return isBooleanExpr(node) || (node?.type === 'column_ref' && this.kind(node) === 'bool');
  }

  /** SQL for an expression in a value position ('value') or a condition position ('bool'). */
  expr(node: Expr, ctx: Ctx = 'value'): string {
    const g = this.grouping;
    if (g && this.aggDepth === 0 && node && typeof node === 'object') {
      const grouped = this.groupedExpr(g, node, ctx);
      if (grouped !== null) return grouped;
    }
    const sql = this.exprInner(node, ctx);
    return this.convert(node, ctx, sql);
  }

  /** Applies MySQL's boolean/value conversions to compiled SQL for the position it is in. */
  convert(node: Expr, ctx: Ctx, sql: string): string {
    if (!this.emulate) return sql;
    const isBool = this.isBool(node);
    if (ctx === 'value' && isBool) return this.boolAsValue(node, sql);
    if (ctx === 'bool' && !isBool) return this.valueAsBool(node, sql);
    return sql;
  }

  /** In a grouped query: a folded group key or an ungrouped column, read through a representative. */
  private groupedExpr(g: Grouping, node: Expr, ctx: Ctx): string | null {
    const i = g.keys.findIndex((k) => sameGroupExpr(k.node, node));
    const isColumn = node.type === 'column_ref' && columnName(node) !== '*';
    if (i < 0 && !(isColumn && !this.isAliasRef(node))) return null;
    this.grouping = null;
    try {
      if (i >= 0 && !g.keys[i].folded) return this.expr(node, ctx);
      let sql = this.representative(this.exprInner(node, 'value'));
      if (i >= 0 && g.rollup) sql = `CASE WHEN GROUPING(${g.keys[i].sql}) = 1 THEN NULL ELSE ${sql} END`;
      return this.convert(node, ctx, sql);
    } finally {
      this.grouping = g;
    }
  }

  private isAliasRef(node: Expr): boolean {
    const scope = this.currentScope();
    return (
      node.type === 'column_ref' &&
      !node.table &&
      !!scope?.substitute &&
      scope.aliases.has(columnName(node).toLowerCase())
    );
  }

  /** Like expr(), parenthesized when it is an operator expression. */
  operand(node: Expr, ctx: Ctx = 'value'): string {
    const sql = this.expr(node, ctx);
    const t = node?.type;
    if (t === 'binary_expr' || t === 'unary_expr' || t === 'interval') return `(${sql})`;
    if (t === 'number' && String(node.value).startsWith('-')) return `(${sql})`;
    return sql;
  }

  /** A comparison result used as a value: MySQL's 1/0. */
  boolAsValue(node: Expr, sql: string): string {
    if (node.type === 'bool') return node.value ? '1' : '0';
    return `CAST(${sql} AS INTEGER)`;
  }

  /** A value used as a condition: MySQL's "non-zero is true". */
  valueAsBool(node: Expr, sql: string): string {
    if (node.type === 'null') return 'NULL';
    if (node.type === 'number') return Number(node.value) !== 0 ? 'TRUE' : 'FALSE';
    if (node.type === 'string') return (Number.parseFloat(node.value) || 0) !== 0 ? 'TRUE' : 'FALSE';
    const k = this.kind(node);
    if (k === 'bool') return sql;
    // An untyped column in a condition is most likely a boolean column of the source.
    if (node.type === 'column_ref' && k === null) return sql;
    if (k === 'string') return `(CAST(${sql} AS ${this.doubleType}) <> 0)`;
    return `(${sql} <> 0)`;
  }

  exprInner(node: Expr, ctx: Ctx): string {
    if (!node || typeof node !== 'object') return this.unsupported('an empty expression');
    switch (node.type) {
      case 'column_ref':
        return this.columnRef(node, ctx);
      case 'string':
        return this.valueText(String(node.value));
      case 'number':
        return this.numberLiteral(node.value);
      case 'bool':
        return node.value ? 'TRUE' : 'FALSE';
      case 'null':
        return 'NULL';
      case 'star':
        return '*';
      case 'date':
      case 'time':
      case 'timestamp':
      case 'datetime':
        return this.typedLiteral(node.type, String(node.value));
      case 'hex_string':
      case 'full_hex_string':
      case 'bit_string':
        return this.binaryLiteral(node);
      case 'param':
        return this.unsupported(`named parameter :${node.value}`);
      case 'origin':
        if (node.value === '?') return this.param();
        return this.origin(node);
      case 'var':
        return this.variable(node);
      case 'expr_list':
        return `(${(node.value ?? []).map((v) => this.expr(v)).join(', ')})`;
      case 'subquery':
        return `(${this.selectStatement(node.ast)})`;
      case 'unary_expr':
        return this.unary(node);
      case 'binary_expr':
        return this.binary(node);
      case 'case':
        return this.caseExpr(node);
      case 'cast':
        return this.cast(node.expr, node.target?.[0] ?? {});
      case 'interval':
        return this.unsupported('an INTERVAL outside date arithmetic');
      case 'function':
        return this.func(node);
      case 'aggr_func':
        return this.aggregate(node);
      case 'extract':
        return this.extract(String(node.args?.field ?? ''), node.args?.source);
      case 'datatype':
        return this.unsupported(`the type name ${node.dataType} as a value`);
      default:
        return this.unsupported(`expression type ${unexpectedKind(node)}`);
    }
  }

  protected origin(node: Origin): string {
    return this.unsupported(`keyword ${String(node.value)}`);
  }

  protected variable(node: Variable): string {
    return this.unsupported(`variable ${node.prefix ?? '@'}${node.name}`);
  }

  protected binaryLiteral(node: BinaryLit): string {
    const v = String(node.value);
    if (node.type === 'bit_string') return this.unsupported("b'...' literals");
    if (!/^[0-9A-Fa-f]*$/.test(v)) return this.unsupported('hex literal');
    return this.bytesLiteral(v.length % 2 ? `0${v}` : v);
  }

  /** Bytes (as hex digits) as a literal of the target's binary type (bytea, BLOB). */
  protected bytesLiteral(_hex: string): string {
    return this.unsupported("X'...' literals");
  }

  /**
   * A string literal compared with a binary column is its bytes, as in MySQL (outside MySQL
   * the untyped string would be read by the binary type's own escape syntax).
   */
  private bytesBeside(n: Expr, other: Expr): Expr {
    if (n?.type !== 'string' || this.target === 'mysql' || other?.type !== 'column_ref') return n;
    if (this.kind(other) !== 'binary') return n;
    return { type: 'hex_string', value: Buffer.from(String(n.value), 'utf8').toString('hex') };
  }

  /**
   * A string value of the statement. One holding NUL is bytes on a target whose text cannot
   * hold it (a string bound for a binary column keeps its exact bytes; into text it fails there).
   */
  protected valueText(value: string): string {
    if (value.includes('\0') && this.target !== 'mysql')
      return this.bytesLiteral(Buffer.from(value, 'utf8').toString('hex'));
    return this.stringLiteral(value);
  }

  protected unary(node: UnaryExpr): string {
    const op = String(node.operator).toUpperCase();
    const e = node.expr;
    switch (op) {
      case 'NOT':
      case '!':
        return `NOT ${this.operand(e, 'bool')}`;
      case '-':
        return `-(${this.expr(e)})`;
      case '+':
        return this.operand(e);
      case '~':
        return this.bitNot(e);
      case 'EXISTS':
        return `EXISTS ${this.subqueryOperand(e)}`;
      case 'NOT EXISTS':
        return `NOT EXISTS ${this.subqueryOperand(e)}`;
      default:
        return this.unsupported(`operator ${op}`);
    }
  }

  protected subqueryOperand(e: Expr): string {
    if (e?.type !== 'subquery') return this.unsupported('EXISTS without a subquery');
    return `(${this.selectStatement(e.ast)})`;
  }

  protected bitNot(e: Expr): string {
    return `~${this.operand(e)}`;
  }

  protected binary(node: BinaryExpr): string {
    const op = String(node.operator).toUpperCase();
    const l = node.left;
    const r = node.right;
    switch (op) {
      case 'AND':
      case '&&':
        return `${this.operand(l, 'bool')} AND ${this.operand(r, 'bool')}`;
      case 'OR':
      case '||':
        return `${this.operand(l, 'bool')} OR ${this.operand(r, 'bool')}`;
      case 'XOR':
        return this.xor(l, r);
      case '=':
      case '<>':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=':
        return this.compare(op === '!=' ? '<>' : op, l, r);
      case 'IN':
      case 'NOT IN':
        return this.inList(l, r, op === 'NOT IN');
      case 'BETWEEN':
      case 'NOT BETWEEN':
        return this.between(l, r, op === 'NOT BETWEEN');
      case 'IS':
      case 'IS NOT':
        return this.isTest(l, r, op === 'IS NOT');
      case 'LIKE':
      case 'NOT LIKE':
        return this.like(l, r, op === 'NOT LIKE');
      case 'REGEXP':
      case 'RLIKE':
      case 'NOT REGEXP':
      case 'NOT RLIKE':
        return this.regexp(l, r, op.startsWith('NOT'));
      case '+':
      case '-':
        if (l?.type === 'interval' || r?.type === 'interval') {
          if (l?.type === 'interval' && r?.type === 'interval')
            return this.unsupported('INTERVAL + INTERVAL');
          if (l?.type === 'interval' && op === '-') return this.unsupported('INTERVAL - date');
          if (l.type === 'interval') return this.dateArith(r, l, 1);
          if (r.type === 'interval') return this.dateArith(l, r, op === '-' ? -1 : 1);
        }
        return this.arith(op, l, r);
      case '*':
        return this.arith(op, l, r);
      case '/':
        return this.divide(l, r);
      case 'DIV':
        return this.intDiv(l, r);
      case '%':
      case 'MOD':
        return this.mod(l, r);
      case '&':
      case '|':
      case '<<':
      case '>>':
        return `${this.operand(l)} ${op} ${this.operand(r)}`;
      case '^':
        return this.bitXor(l, r);
      case '->':
        return this.jsonExtract(l, r, false);
      case '->>':
        return this.jsonExtract(l, r, true);
      default:
        return this.unsupported(`operator ${op}`);
    }
  }

  protected arith(op: string, l: Expr, r: Expr): string {
    return `${this.numOperand(l)} ${op} ${this.numOperand(r)}`;
  }

  /** A numeric operand: MySQL reads strings as numbers in arithmetic. */
  numOperand(node: Expr): string {
    if (this.emulate && node?.type === 'string') return this.numberLiteral(mysqlStringToNumber(node.value));
    if (this.emulate && this.kind(node) === 'string') return `CAST(${this.expr(node)} AS ${this.doubleType})`;
    return this.operand(node);
  }

  /** A number-valued argument (function arguments need no parentheses). */
  num(node: Expr): string {
    if (this.emulate && (node?.type === 'string' || this.kind(node) === 'string'))
      return this.numOperand(node);
    return this.expr(node);
  }

  protected xor(l: Expr, r: Expr): string {
    return `${this.operand(l, 'bool')} <> ${this.operand(r, 'bool')}`;
  }

  protected bitXor(l: Expr, r: Expr): string {
    return `${this.operand(l)} # ${this.operand(r)}`;
  }

  /** `/`: decimal division; division by zero is NULL. */
  divide(l: Expr, r: Expr): string {
    return `CAST(${this.expr(l)} AS numeric) / NULLIF(${this.expr(r)}, 0)`;
  }

  /** DIV: integer division truncating toward zero; by zero is NULL. */
  intDiv(l: Expr, r: Expr): string {
    return `CAST(trunc(CAST(${this.expr(l)} AS numeric) / NULLIF(${this.expr(r)}, 0)) AS ${this.intType})`;
  }

  /**
   * Whether MySQL computes an expression as a DOUBLE (approximate): FLOAT and DOUBLE columns,
   * text (read as a number), casts to DOUBLE, the functions that answer a DOUBLE, and +, -, *
   * with such an operand. ROUND and FORMAT round a DOUBLE half to even and an exact value
   * half away from zero, so the two take different SQL.
   */
  isApproximate(node: Expr | null | undefined): boolean {
    if (!node) return false;
    switch (node.type) {
      case 'column_ref': {
        const t = this.opts.columnType?.(this.columnRefName(node));
        return t === 'FLOAT' || t === 'DOUBLE' || this.kind(node) === 'string';
      }
      case 'string':
        return true;
      case 'unary_expr':
        return node.operator === '-' && this.isApproximate(node.expr);
      case 'binary_expr':
        return (
          ['+', '-', '*'].includes(String(node.operator)) &&
          (this.isApproximate(node.left) || this.isApproximate(node.right))
        );
      case 'cast':
        return /DOUBLE|FLOAT|REAL/i.test(String(node.target?.[0]?.dataType ?? ''));
      case 'function':
        return APPROXIMATE_FUNCTIONS.has(String(node.name).toUpperCase());
      default:
        return false;
    }
  }

  /** Whether an expression is an integer in MySQL: integer literals and columns, and +, -, *, MOD, DIV of them. */
  isInteger(node: Expr | null | undefined): boolean {
    if (!node) return false;
    if (node.type === 'number') return Number.isInteger(node.value) || /^-?\d+$/.test(String(node.value));
    if (node.type === 'column_ref') {
      const t = this.opts.columnType?.(this.columnRefName(node));
      return t === 'TINYINT' || t === 'SMALLINT' || t === 'INT' || t === 'BIGINT';
    }
    if (node.type === 'unary_expr') return node.operator === '-' && this.isInteger(node.expr);
    if (node.type === 'binary_expr') {
      const op = String(node.operator).toUpperCase();
      if (op === 'DIV') return true;
      return (
        ['+', '-', '*', '%', 'MOD'].includes(op) && this.isInteger(node.left) && this.isInteger(node.right)
      );
    }
    return false;
  }

  /** MOD / %: sign of the dividend; by zero is NULL; integers stay integers, as in MySQL. */
  mod(l: Expr, r: Expr): string {
    if (this.isInteger(l) && this.isInteger(r)) return `mod(${this.expr(l)}, NULLIF(${this.expr(r)}, 0))`;
    return `mod(CAST(${this.expr(l)} AS numeric), NULLIF(CAST(${this.expr(r)} AS numeric), 0))`;
  }

  // --- comparisons with MySQL's default (case-insensitive, PAD SPACE) collation

  /** A test that a text value is pure ASCII, or null where the target has no cheap one. */
  asciiTest(sql: string): string | null {
    return `octet_length(${sql}) = char_length(${sql})`;
  }

  /** Upper case of an ASCII text value (PostgreSQL's C collation upper-cases ASCII only, fast, and sorts by code point as MySQL's weights do). */
  asciiUpper(sql: string): string {
    return `upper(${sql} COLLATE "C")`;
  }

  /**
   * MySQL's default collation also ignores accents (é = e, ß = s, but æ <> a): the
   * accented letters it equates are translated to their base letter. Targets without
   * translate() override this and foldText together.
   */
  accentFold(sql: string): string {
    return `translate(${sql}, '${ACCENTED}', '${UNACCENTED}')`;
  }

  /** A literal folded in JS exactly as accentFold(upper(...)) folds it in SQL. */
  foldText(v: string): string {
    return [...v].map((ch) => ACCENT_MAP.get(upperChar(ch)) ?? upperChar(ch)).join('');
  }

  /** An expression as text (cast unless it already is a string). */
  text(node: Expr): string {
    if (node?.type === 'string') return this.stringLiteral(String(node.value));
    const sql = this.expr(node, 'value');
    if (!this.emulate || this.kind(node) === 'string') return sql;
    return `CAST(${sql} AS ${this.textType})`;
  }

  /** An expression as a timestamp. */
  ts(node: Expr): string {
    const k = this.kind(node);
    const sql = this.expr(node);
    if (k === 'datetime') return sql;
    return `CAST(${sql} AS ${this.timestampType})`;
  }

  /** An expression as a date. */
  date(node: Expr): string {
    const sql = this.expr(node);
    if (this.kind(node) === 'date') return sql;
    return `CAST(${sql} AS DATE)`;
  }

  compare(op: string, l0: Expr, r0: Expr): string {
    if (r0?.type === 'function' && ['ANY', 'ALL', 'SOME'].includes(String(r0.name)))
      return this.quantified(op, l0, String(r0.name), r0.args?.value ?? []);
    let l = this.bytesBeside(l0, r0);
    let r = this.bytesBeside(r0, l0);
    if (this.emulate && (this.binaryText(l) || this.binaryText(r))) {
      // `BINARY x = y`, `CAST(x AS BINARY) = y` of text: MySQL compares the bytes (case and
      // trailing spaces count). Text compared as it is, in byte order, says the same.
      const lt = this.binaryText(l) ?? (this.kind(l) === 'string' ? l : null);
      const rt = this.binaryText(r) ?? (this.kind(r) === 'string' ? r : null);
      if (lt && rt) {
        l = { ...lt, collate: BYTE_ORDER };
        r = { ...rt, collate: BYTE_ORDER };
        if (op === '=' || op === '<>' || op === '!=') return `${this.operand(l)} ${op} ${this.operand(r)}`;
        return `${this.byteOrder(this.operand(l))} ${op} ${this.byteOrder(this.operand(r))}`;
      }
    }
    if (this.foldStrings(l, r)) {
      if (op === '=' || op === '<>') {
        const [col, lit] = r?.type === 'string' ? [l, r] : [r, l];
        const fast =
          lit?.type === 'string' ? textEquality(this, col, [String(lit.value)], op === '<>') : null;
        if (fast) return fast;
      }
      return `${this.foldSql(l)} ${op} ${this.foldSql(r)}`;
    }
    if (this.emulate) {
      const kl = this.kind(l);
      const kr = this.kind(r);
      const side = (n: Expr, k: Kind, other: Kind) => {
        // MySQL compares a JSON value or a string with a number as numbers.
        if ((k === 'json' || (k === 'string' && n.type !== 'string')) && other === 'number') {
          return `CAST(${this.jsonText(n) ?? this.expr(n)} AS ${this.doubleType})`;
        }
        if (k === 'json' && other === 'string') return this.jsonText(n) ?? this.operand(n);
        return this.operand(n);
      };
      return `${side(l, kl, kr)} ${op} ${side(r, kr, kl)}`;
    }
    return `${this.operand(l)} ${op} ${this.operand(r)}`;
  }

  /** `x op ANY|ALL (subquery)`. */
  quantified(op: string, l: Expr, quant: string, args: Expr[]): string {
    const sub = args[0];
    if (args.length !== 1 || sub?.type !== 'subquery') return this.unsupported(`${quant} without a subquery`);
    const folds =
      this.emulate &&
      !this.caseSensitive(l) &&
      (this.kind(l) === 'string' || this.kind(sub) === 'string') &&
      this.kind(sub) !== 'number';
    if (folds) return `${this.foldSql(l)} ${op} ${quant} (${foldedSubquery(this, sub.ast)})`;
    return `${this.operand(l)} ${op} ${quant} (${this.selectStatement(sub.ast)})`;
  }

  /** The text inside `CAST(text AS BINARY)` (the `BINARY` operator), or null. */
  private binaryText(n: Expr): Expr | null {
    if (n?.type !== 'cast' || n.target?.[0]?.length != null) return null;
    if (!/^BINARY$/i.test(String(n.target?.[0]?.dataType ?? ''))) return null;
    const inner = n.expr;
    return inner?.type === 'string' || this.kind(inner) === 'string' ? inner : null;
  }

  /** Text that compares in byte (code point) order: PostgreSQL's C collation. */
  protected byteOrder(sql: string): string {
    return `${sql} COLLATE "C"`;
  }

  /** The length of a text value in bytes, or null where the target has no cheap way to say it. */
  byteLength(sql: string): string | null {
    return `octet_length(${sql})`;
  }

  /** `sql LIKE pattern` (backslash escapes, case-sensitive) as a cheap superset, or null where the target has none. */
  likePrefilter(sql: string, pattern: string): string | null {
    return `${sql} LIKE ${this.stringLiteral(pattern)}`;
  }

  /** A JSON extraction as unquoted text, when the node is one. */
  protected jsonText(n: Expr): string | null {
    if (n?.type === 'function' && n.name === 'JSON_EXTRACT' && n.args?.value?.length === 2) {
      return this.jsonExtract(n.args.value[0], n.args.value[1], true);
    }
    if (n?.type === 'binary_expr' && n.operator === '->') return this.jsonExtract(n.left, n.right, true);
    return null;
  }

  protected inList(l: Expr, r: Expr, not: boolean): string {
    const kw = not ? 'NOT IN' : 'IN';
    const items: Expr[] = r?.type === 'expr_list' ? (r.value ?? []) : [r];
    if (items.length === 1 && items[0]?.type === 'subquery') {
      const sub = items[0];
      const single = Array.isArray(sub.ast?.columns) && sub.ast.columns.length === 1 && !sub.ast._next;
      const folds =
        this.emulate &&
        single &&
        l?.type !== 'expr_list' &&
        !this.caseSensitive(l) &&
        (this.kind(l) === 'string' || (this.kind(l) === null && this.kind(sub) === 'string')) &&
        this.kind(sub) !== 'number';
      if (folds) return `${this.foldSql(l)} ${kw} (${foldedSubquery(this, sub.ast)})`;
      return `${this.operand(l)} ${kw} (${this.selectStatement(sub.ast)})`;
    }
    if (items.length === 0) return this.unsupported('an empty IN list');
    // A string in the list of a binary column is its bytes, as beside `=`.
    if (this.target !== 'mysql' && this.kind(l) === 'binary')
      return `${this.operand(l)} ${kw} (${items.map((i) => this.expr(this.bytesBeside(i, l))).join(', ')})`;
    if (items.some((i) => this.foldStrings(l, i))) {
      const fast = items.every((i) => i?.type === 'string')
        ? textEquality(
            this,
            l,
            items.map((i) => String(i.value)),
            not,
          )
        : null;
      if (fast) return fast;
      return `${this.foldSql(l)} ${kw} (${items.map((i) => (this.kind(i) === 'string' || this.kind(i) === null ? this.foldSql(i) : this.expr(i))).join(', ')})`;
    }
    return `${this.operand(l)} ${kw} (${items.map((i) => this.expr(i)).join(', ')})`;
  }

  protected between(l: Expr, r: Expr, not: boolean): string {
    const [lo, hi] = r?.type === 'expr_list' ? r.value : [];
    if (!lo || !hi) return this.unsupported('BETWEEN without two bounds');
    const kw = not ? 'NOT BETWEEN' : 'BETWEEN';
    if (this.foldStrings(l, lo) || this.foldStrings(l, hi)) {
      return `${this.foldSql(l)} ${kw} ${this.foldSql(lo)} AND ${this.foldSql(hi)}`;
    }
    return `${this.operand(l)} ${kw} ${this.operand(lo)} AND ${this.operand(hi)}`;
  }

  protected isTest(l: Expr, r: Expr, not: boolean): string {
    const kw = not ? 'IS NOT' : 'IS';
    if (r?.type === 'null') return `${this.operand(l)} ${kw} NULL`;
    if (r?.type === 'bool') return `${this.operand(l, 'bool')} ${kw} ${r.value ? 'TRUE' : 'FALSE'}`;
    if (r?.type === 'origin' && /^unknown$/i.test(String(r.value)))
      return `${this.operand(l, 'bool')} ${kw} NULL`;
    return this.unsupported(`IS ${String(r && 'value' in r ? r.value : r?.type)}`);
  }

  protected like(l: Expr, r: Expr, not: boolean): string {
    const caseSensitive = this.caseSensitive(l) || this.caseSensitive(r);
    const escapeChar = r?.type === 'string' ? r.escape?.value : null;
    const esc = escapeChar ? ` ESCAPE ${this.expr(escapeChar)}` : this.likeDefaultEscape();
    const kw = not ? 'NOT LIKE' : 'LIKE';
    if (this.emulate && !caseSensitive && this.likeFolds()) {
      // Case- and accent-insensitive, but trailing spaces count in LIKE.
      const pattern =
        r?.type === 'string'
          ? this.stringLiteral(this.foldText(String(r.value)))
          : foldExpr(this, this.text(r), r?.type === 'column_ref', false);
      return `${foldExpr(this, this.text(l), l?.type === 'column_ref', false)} ${kw} ${pattern}${esc}`;
    }
    // A source that keeps its own collation runs its own LIKE.
    const op = this.opts.collation === 'source' ? 'LIKE' : this.likeOperator(caseSensitive);
    return `${this.textOperand(l)} ${not ? 'NOT ' : ''}${op} ${this.textOperand(r)}${esc}`;
  }

  /** Whether LIKE folds both sides (case and accents) rather than relying on likeOperator. */
  likeFolds(): boolean {
    return true;
  }

  textOperand(node: Expr): string {
    const sql = this.text(node);
    return node?.type === 'binary_expr' || node?.type === 'unary_expr' ? `(${sql})` : sql;
  }

  /** LIKE is case-insensitive in MySQL's default collation. */
  likeOperator(caseSensitive: boolean): string {
    return caseSensitive ? 'LIKE' : 'ILIKE';
  }

  /** MySQL's LIKE escapes with backslash unless told otherwise. */
  likeDefaultEscape(): string {
    return '';
  }

  protected regexp(l: Expr, r: Expr, not: boolean): string {
    const cs = this.caseSensitive(l) || this.caseSensitive(r);
    return `${this.textOperand(l)} ${not ? '!' : ''}${cs ? '~' : '~*'} ${this.textOperand(r)}`;
  }

  // --- CASE, casts, dates, JSON

  protected caseExpr(node: CaseExpr): string {
    const args = node.args ?? [];
    const results = args.map((a) => a.result);
    const unified = this.unify(results);
    const parts = ['CASE'];
    const subject = node.expr;
    const searched = !subject || args.some((a) => a.type === 'when' && this.foldStrings(subject, a.cond));
    if (subject && !searched) parts.push(this.expr(subject));
    args.forEach((a, i) => {
      if (a.type === 'when') {
        const cond = subject
          ? searched
            ? this.compare('=', subject, a.cond)
            : this.expr(a.cond)
          : this.expr(a.cond, 'bool');
        parts.push(`WHEN ${cond} THEN ${unified[i]}`);
      } else parts.push(`ELSE ${unified[i]}`);
    });
    parts.push('END');
    return parts.join(' ');
  }

  /**
   * Branches of CASE / IF / COALESCE as SQL, cast to text when MySQL would make the result
   * a string (a string branch mixed with other types); strict targets refuse mixed types.
   */
  unify(nodes: Expr[]): string[] {
    if (!this.emulate) return nodes.map((n) => this.expr(n));
    const kinds = nodes.map((n) => this.kind(n));
    const stringy = nodes.some(
      (n, i) => kinds[i] === 'string' && !(n.type === 'string' && looksNumericOrTemporal(String(n.value))),
    );
    const mixed = stringy && nodes.some((n, i) => kinds[i] !== 'string' && n?.type !== 'null');
    return nodes.map((n, i) =>
      mixed && kinds[i] !== 'string' && n?.type !== 'null' ? this.text(n) : this.expr(n),
    );
  }

  /** CAST(x AS type) with MySQL's type names. */
  cast(e: Expr, target: CastTarget): string {
    // `SIGNED INTEGER` is `SIGNED` (the grammar keeps the optional word in the type name).
    const t = String(target.dataType ?? '')
      .toUpperCase()
      .replace(/^(UN)?SIGNED\s+INT(EGER)?$/, '$1SIGNED');
    const sql = this.expr(e);
    const length = target.length != null ? Number(target.length) : null;
    const scale = target.scale != null ? Number(target.scale) : null;
    switch (t) {
      case 'CHAR':
      case 'NCHAR':
      case 'VARCHAR':
      case 'NVARCHAR':
        return this.castText(e, length);
      case 'UNSIGNED':
        return this.castUnsigned(this.castInteger(e));
      case 'SIGNED':
      case 'INT':
      case 'INTEGER':
      case 'BIGINT':
        return this.castInteger(e);
      case 'DECIMAL':
      case 'NUMERIC':
      case 'DEC':
      case 'FIXED':
        return this.castDecimal(sql, length ?? 10, scale ?? 0);
      case 'DOUBLE':
      case 'FLOAT':
      case 'REAL':
        return `CAST(${sql} AS ${this.doubleType})`;
      case 'DATE':
        return this.castTemporal(e, sql, 'DATE');
      case 'DATETIME':
      case 'TIMESTAMP':
        return this.castTemporal(e, sql, this.timestampType);
      case 'TIME':
        return `CAST(${sql} AS TIME)`;
      case 'JSON':
        return this.castJson(sql);
      case 'BINARY':
      case 'VARBINARY':
        return this.castBinary(sql, length);
      case 'YEAR':
        return `CAST(${sql} AS INTEGER)`;
      default:
        return this.unsupported(`CAST AS ${t}`);
    }
  }

  /** CAST(x AS DATE / DATETIME); a target that can answer NULL for text that is no date, as MySQL does, overrides it. */
  protected castTemporal(_e: Expr, sql: string, type: string): string {
    return `CAST(${sql} AS ${type})`;
  }

  /** CAST(x AS CHAR(n)) keeps n characters; the result stays plain text (varchar(n) would not unify with text). */
  protected castText(e: Expr, length: number | null): string {
    const sql = this.text(e);
    return length != null ? `left(${sql}, ${length})` : sql;
  }

  /** MySQL reads a string cast to an integer up to its first non-digit. */
  protected castInteger(e: Expr): string {
    const sql = this.expr(e);
    if (e?.type === 'string') return this.numberLiteral(String(Math.trunc(mysqlStringToNumber(e.value))));
    if (this.kind(e) === 'string') return `CAST(trunc(CAST(${sql} AS numeric)) AS ${this.intType})`;
    return `CAST(${sql} AS ${this.intType})`;
  }

  /** CAST(x AS UNSIGNED): the signed integer wrapped modulo 2^64, as MySQL does (-1 is 18446744073709551615). */
  protected castUnsigned(signed: string): string {
    return `mod(CAST(${signed} AS numeric) + ${TWO_TO_64}, ${TWO_TO_64})`;
  }

  protected castDecimal(sql: string, p: number, s: number): string {
    return `CAST(${sql} AS numeric(${p}, ${s}))`;
  }

  protected castJson(sql: string): string {
    return `CAST(${sql} AS jsonb)`;
  }

  protected castBinary(sql: string, _length: number | null): string {
    return `CAST(${sql} AS bytea)`;
  }

  protected extract(field: string, source: Expr): string {
    const f = field.toUpperCase();
    const map: Record<string, string> = {
      YEAR: 'YEAR',
      MONTH: 'MONTH',
      DAY: 'DAY',
      HOUR: 'HOUR',
      MINUTE: 'MINUTE',
      SECOND: 'SECOND',
      QUARTER: 'QUARTER',
      WEEK: 'WEEK',
    };
    // MySQL's compound units: the parts' values side by side (YEAR_MONTH of 2024-03-05 is 202403).
    const parts = COMPOUND_UNITS[f];
    if (parts && source)
      return `(${parts.map((p) => this.extract(p, source)).reduce((acc, p) => `(${acc}) * 100 + ${p}`)})`;
    if (!map[f] || !source) return this.unsupported(`EXTRACT(${f} FROM ...)`);
    const handler = this.functions[f === 'WEEK' ? 'EXTRACT_WEEK' : f];
    if (!handler) return this.unsupported(`EXTRACT(${f} FROM ...)`);
    return handler(this, { type: 'function', name: f, args: { type: 'expr_list', value: [source] } }, [
      source,
    ]);
  }

  /** `d + INTERVAL n unit` and DATE_ADD / DATE_SUB. */
  dateArith(base: Expr, interval: IntervalExpr, sign: 1 | -1): string {
    const unit = String(interval.unit ?? '').toUpperCase();
    const iv = this.intervalSql(interval.expr, unit, sign);
    const k = this.dateKindOf(base);
    if (k === 'date' && DATE_UNITS.has(unit)) return `CAST(${this.date(base)} + ${iv} AS DATE)`;
    return `${this.ts(base)} + ${iv}`;
  }

  /** What MySQL takes a DATE_ADD argument to be: a string literal is read by its shape. */
  dateKindOf(node: Expr): Kind {
    if (node?.type === 'string')
      return /^\s*\d{4}-\d{1,2}-\d{1,2}\s*$/.test(node.value) ? 'date' : 'datetime';
    return this.kind(node);
  }

  /** An interval of `n` units as SQL (standard `INTERVAL '..'` or `n * INTERVAL '1 unit'`). */
  intervalSql(n: Expr, unit: string, sign: 1 | -1): string {
    let parts: [number, string][] | null;
    try {
      parts = intervalParts(n, unit, sign);
    } catch (e) {
      return this.unsupported((e as Error).message);
    }
    if (parts) {
      return parts.length === 0
        ? `INTERVAL '0 seconds'`
        : parts.map(([v, u]) => `INTERVAL '${v} ${u}'`).join(' + ');
    }
    const single = SIMPLE_UNITS[unit];
    if (!single) return this.unsupported(`INTERVAL with a computed ${unit} value`);
    const [mult, u] = single;
    const factor = sign * mult;
    return `(${this.num(n)}) * ${factor === 1 ? '' : `${factor} * `}INTERVAL '1 ${u}'`;
  }

  jsonExtract(j: Expr, path: Expr, unquote: boolean): string {
    if (path?.type !== 'string') return this.unsupported('a JSON path that is not a string literal');
    const steps = this.jsonSteps(String(path.value));
    const arr = `ARRAY[${steps.map((s) => this.stringLiteral(String(s))).join(', ')}]::text[]`;
    return `(CAST(${this.expr(j)} AS jsonb) ${unquote ? '#>>' : '#>'} ${arr})`;
  }

  protected jsonSteps(path: string): (string | number)[] {
    try {
      return parseJsonPath(path);
    } catch (e) {
      return this.unsupported((e as Error).message);
    }
  }

  // --- functions and aggregates

  protected func(node: FunctionCall): string {
    const name = String(node.name).toUpperCase();
    const args: Expr[] = node.args?.value ?? [];
    if (!this.emulate) return this.verbatimFunction(node, name, args) + over(this, node);
    const h = this.functions[name];
    if (!h) return this.unsupported(`function ${name}`);
    if (WINDOW_ONLY.has(name) && !node.over) return this.unsupported(`${name} without OVER`);
    const agg = AGGREGATE_FUNCTIONS.has(name);
    if (agg) this.aggDepth++;
    let sql: string;
    try {
      sql = h(this, node, args);
    } finally {
      if (agg) this.aggDepth--;
    }
    return sql + over(this, node);
  }

  protected verbatimFunction(node: FunctionCall, name: string, args: Expr[]): string {
    if (!node.args) return name;
    return `${name}(${args.map((a) => this.verbatimArg(a)).join(', ')})`;
  }

  protected verbatimArg(a: Expr): string {
    if (a?.type === 'origin') {
      const v = String(a.value);
      if (!/^[A-Za-z_ ]+$/.test(v)) this.unsupported(`keyword ${v}`);
      return v.toUpperCase();
    }
    if (a?.type === 'datatype') return String(a.dataType);
    return this.expr(a);
  }

  protected aggregate(node: AggrFunc): string {
    const name = String(node.name).toUpperCase();
    const a = node.args ?? {};
    const distinct = a.distinct ? 'DISTINCT ' : '';
    this.aggDepth++;
    try {
      let sql: string;
      if (name === 'COUNT') {
        if (a.expr?.type === 'star') sql = 'COUNT(*)';
        else if (a.expr?.type === 'expr_list') {
          const items: Expr[] = a.expr.value ?? [];
          if (items.length === 1) sql = `COUNT(${distinct}${this.distinctArg(items[0], !!a.distinct)})`;
          else if (!a.distinct) return this.unsupported('COUNT of several expressions without DISTINCT');
          else sql = this.countDistinctMany(items);
        } else sql = `COUNT(${distinct}${this.distinctArg(a.expr, !!a.distinct)})`;
      } else if (name === 'GROUP_CONCAT') sql = this.groupConcat(node);
      else if (!this.emulate) sql = `${name}(${distinct}${this.expr(a.expr)})`;
      else if (name === 'SUM' || name === 'AVG') sql = `${name}(${distinct}${this.num(a.expr)})`;
      else if (name === 'MIN' || name === 'MAX')
        sql =
          this.kind(a.expr) === 'string' && !this.caseSensitive(a.expr) && !node.over
            ? this.foldedExtreme(name, a.expr)
            : `${name}(${distinct}${this.expr(a.expr)})`;
      else {
        const h = this.functions[name];
        if (!h) return this.unsupported(`aggregate ${name}`);
        sql = h(this, node, [a.expr]);
      }
      return sql + over(this, node);
    } finally {
      this.aggDepth--;
    }
  }

  /**
   * MIN / MAX of text as MySQL's collation orders it ('apple' < 'Banana'): the value with the
   * least (greatest) fold. NULLs last, so a group of NULLs alone gives NULL, as MIN does.
   */
  foldedExtreme(name: 'MIN' | 'MAX', e: Expr): string {
    return `(array_agg(${this.expr(e)} ORDER BY ${this.foldSql(e)}${name === 'MAX' ? ' DESC' : ''} NULLS LAST))[1]`;
  }

  /** An argument of a DISTINCT aggregate: strings are told apart as MySQL's collation does. */
  distinctArg(node: Expr, distinct: boolean): string {
    if (distinct && this.emulate && this.kind(node) === 'string' && !this.caseSensitive(node))
      return this.foldSql(node);
    return this.expr(node);
  }

  /** COUNT(DISTINCT a, b): rows where any is NULL do not count. */
  protected countDistinctMany(items: Expr[]): string {
    const cond = items.map((i) => `${this.operand(i)} IS NOT NULL`).join(' AND ');
    return `COUNT(DISTINCT CASE WHEN ${cond} THEN ROW(${items.map((i) => this.distinctArg(i, true)).join(', ')}) END)`;
  }

  /** GROUP_CONCAT([DISTINCT] a[, b...] [ORDER BY ...] [SEPARATOR s]) → string_agg. */
  protected groupConcat(node: AggrFunc): string {
    const a = node.args ?? {};
    const items: Expr[] = a.expr?.type === 'expr_list' ? a.expr.value : [a.expr];
    const value =
      items.length === 1 ? this.text(items[0]) : `(${items.map((i) => this.text(i)).join(' || ')})`;
    const sepNode = a.separator?.value;
    const sep = sepNode && typeof sepNode === 'object' ? this.expr(sepNode) : this.stringLiteral(',');
    let order = '';
    if (a.orderby?.length) {
      if (a.distinct) {
        const ok = a.orderby.every((o) => items.length === 1 && sameExpr(o.expr, items[0]));
        if (!ok) return this.unsupported('GROUP_CONCAT(DISTINCT ...) ordered by another expression');
        if (this.kind(items[0]) !== 'string') {
          // Ordered by the value itself, not by its text ('10' sorts before '9').
          const desc = String(a.orderby[0].type ?? '').toUpperCase() === 'DESC';
          return this.distinctListAgg(
            this.expr(items[0]),
            `${desc ? ' DESC' : ''}${this.nullsOrder(desc)}`,
            sep,
          );
        }
      }
      order = ` ORDER BY ${a.orderby
        .map((o) => {
          const desc = String(o.type ?? '').toUpperCase() === 'DESC';
          const sql = a.distinct
            ? value
            : this.kind(o.expr) === 'string'
              ? this.foldSql(o.expr)
              : this.expr(o.expr);
          return `${sql}${desc ? ' DESC' : ''}${this.nullsOrder(desc)}`;
        })
        .join(', ')}`;
    }
    return `string_agg(${a.distinct ? 'DISTINCT ' : ''}${value}, ${sep}${order})`;
  }

  /** The distinct values, ordered by value, joined by `sep`. */
  protected distinctListAgg(value: string, direction: string, sep: string): string {
    return `array_to_string(array_agg(DISTINCT ${value} ORDER BY ${value}${direction}), ${sep})`;
  }

  // --- DML

  protected dmlTable(t: TableItem): string {
    return this.tableSql(t);
  }

  protected insert(s: InsertStmt): string {
    const t = s.table?.[0];
    if (!t || s.table.length !== 1) return this.unsupported('INSERT into several tables');
    const ignore = /ignore/i.test(String(s.prefix ?? ''));
    const replace = s.type === 'replace';
    if (s.on_duplicate_update) return this.unsupported('INSERT ... ON DUPLICATE KEY UPDATE');
    let cols: string[] | null = Array.isArray(s.columns) && s.columns.length ? s.columns.map(String) : null;
    let body: string;
    this.pushScope(null);
    try {
      if (Array.isArray(s.set) && s.set.length) {
        cols = s.set.map((x) => String(x.column));
        body = `VALUES (${s.set.map((x) => this.expr(x.value)).join(', ')})`;
      } else if (s.values?.type === 'values') {
        body = `VALUES ${s.values.values.map((row) => `(${(row.value ?? []).map((v) => this.insertValue(v)).join(', ')})`).join(', ')}`;
      } else if (s.values?.type === 'select') {
        body = this.selectStatement(s.values);
      } else return this.unsupported('this INSERT form');
    } finally {
      this.popScope();
    }
    const colSql = cols
      ? ` (${cols.map((c) => this.quoteIdent(this.realColumnName({ table: String(t.table), column: c }))).join(', ')})`
      : '';
    return this.insertStatement(this.dmlTable(t), colSql, body, { ignore, replace });
  }

  protected insertValue(v: Expr): string {
    if (v?.type === 'origin' && /^default$/i.test(String(v.value))) return 'DEFAULT';
    return this.expr(v);
  }

  protected insertStatement(
    table: string,
    cols: string,
    body: string,
    o: { ignore: boolean; replace: boolean },
  ): string {
    if (o.replace) return this.unsupported('REPLACE INTO');
    return `INSERT INTO ${table}${cols} ${body}${o.ignore ? ' ON CONFLICT DO NOTHING' : ''}`;
  }

  protected update(s: UpdateStmt): string {
    const tables: FromItem[] = s.table ?? [];
    const t = tables[0];
    if (tables.length !== 1 || !isTableItem(t) || t.join) return this.unsupported('UPDATE of several tables');
    if (s.orderby?.length || s.limit) return this.unsupported('UPDATE ... ORDER BY / LIMIT');
    const scope = this.pushScope(tables);
    try {
      const item = scope.byNode.get(t)!;
      const sets = (s.set ?? [])
        .map(
          (x) =>
            `${this.quoteIdent(this.realColumnName({ table: x.table ?? null, column: String(x.column) }))} = ${this.expr(x.value)}`,
        )
        .join(', ');
      let sql = `UPDATE ${this.dmlTarget(t, item)} SET ${sets}`;
      if (s.where) sql += ` WHERE ${this.expr(s.where, 'bool')}`;
      return sql;
    } finally {
      this.popScope();
    }
  }

  /** The target of UPDATE/DELETE, aliased when the statement's name for it differs. */
  protected dmlTarget(t: TableItem, item: ScopeItem): string {
    const name = this.dmlTable(t);
    const plain = !this.opts.tableName && !t.db && !t.schema && !t.as;
    return plain ? name : `${name} AS ${this.quoteIdent(item.alias)}`;
  }

  protected deleteStatement(s: DeleteStmt): string {
    const from: FromItem[] = s.from ?? [];
    const t = from[0];
    if (from.length !== 1 || !isTableItem(t) || t.join) return this.unsupported('DELETE from several tables');
    if (s.orderby?.length || s.limit) return this.unsupported('DELETE ... ORDER BY / LIMIT');
    const scope = this.pushScope(from);
    try {
      let sql = `DELETE FROM ${this.dmlTarget(t, scope.byNode.get(t)!)}`;
      if (s.where) sql += ` WHERE ${this.expr(s.where, 'bool')}`;
      return sql;
    } finally {
      this.popScope();
    }
  }

  protected createTableAs(s: CreateStmt): string {
    const t = s.table?.[0];
    if (!t) return this.unsupported('CREATE TABLE without a name');
    const ine = s.if_not_exists ? 'IF NOT EXISTS ' : '';
    if (!s.query_expr) return this.unsupported('CREATE TABLE without AS SELECT');
    return `CREATE TABLE ${ine}${this.dmlTable(t)} AS ${this.selectStatement(s.query_expr)}`;
  }
}
