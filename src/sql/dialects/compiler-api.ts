/**
 * What the compiler's rule modules (collation, grouping, set operations, windows) and the
 * function maps see of a compiler: the interface SqlCompiler implements. They depend on
 * this file rather than on the class, so the class can use them without an import cycle.
 */
import type { ColumnRef, Expr, IntervalExpr, Limit, OrderItem, SelectStmt } from '../ast/nodes.js';
import type { Scopes } from './scope.js';
import type { ColumnRefName, CompileOptions, Kind } from './types.js';

export type Ctx = 'value' | 'bool';

export interface Compiler {
  readonly opts: CompileOptions;
  /** Emulate MySQL semantics; false only for MySQL itself. */
  readonly emulate: boolean;
  readonly scopes: Scopes;
  readonly timestampType: string;

  unsupported(reason: string): never;
  quoteIdent(name: string): string;
  stringLiteral(value: string): string;
  lit(value: string): string;
  display(e: Expr): string;
  columnRefName(ref: ColumnRef): ColumnRefName;

  kind(node: Expr | null | undefined): Kind;
  caseSensitive(node: Expr | null | undefined): boolean;
  folds(node: Expr | null | undefined): boolean;
  expr(node: Expr, ctx?: Ctx): string;
  exprInner(node: Expr, ctx: Ctx): string;
  operand(node: Expr, ctx?: Ctx): string;
  text(node: Expr): string;
  num(node: Expr): string;
  ts(node: Expr): string;
  date(node: Expr): string;
  unify(nodes: Expr[]): string[];
  compare(op: string, l: Expr, r: Expr): string;
  mod(l: Expr, r: Expr): string;
  dateArith(base: Expr, interval: IntervalExpr, sign: 1 | -1): string;
  jsonExtract(j: Expr, path: Expr, unquote: boolean): string;

  selectStatement(s: SelectStmt): string;
  setOperator(op: string): string;
  setMember(m: SelectStmt): string;
  sortItems(list: OrderItem[] | null | undefined): OrderItem[];
  orderItem(o: OrderItem, fold: boolean, last?: boolean): string;
  nullsOrder(desc: boolean): string;
  limitClause(s: { limit?: Limit | null; _limit?: Limit | null }, key: 'limit' | '_limit'): string;
  representative(sql: string): string;
  distinctArg(node: Expr, distinct: boolean): string;

  // Text under the collation: the hooks each target says its own way.
  foldSql(node: Expr): string;
  foldColumnSql(sql: string): string;
  foldStrings(l: Expr, r: Expr): boolean;
  foldText(v: string): string;
  accentFold(sql: string): string;
  asciiTest(sql: string): string | null;
  asciiUpper(sql: string): string;
  byteLength(sql: string): string | null;
  likePrefilter(sql: string, pattern: string): string | null;
}
