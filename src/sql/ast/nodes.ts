/**
 * The statement tree every stage after parsing works on: node-sql-parser's MySQL AST as
 * parse/normalize.ts leaves it (plain names, decoded strings, numbers, upper-case function
 * names; its header lists the rules), typed as a discriminated union on `type`, so a stage
 * that switches on it is told by the compiler when it misses a kind.
 *
 * Only the fields the planner and the compilers read are declared; node-sql-parser sets
 * more (`loc`, `parentheses` flags), which nothing relies on.
 */

// ---------------------------------------------------------------------------------------
// Expressions

/** What any expression may carry besides its own fields. */
export interface ExprBase {
  /** `x COLLATE name`. */
  collate?: Collate | null;
  parentheses?: boolean;
  /** `x USING utf8mb4` inside CONVERT(). */
  suffix?: string | null;
}

export interface ColumnRef extends ExprBase {
  type: 'column_ref';
  db?: string | null;
  schema?: string | null;
  /** The qualifier as written (alias or table name), or null. */
  table: string | null;
  /** The column name, `*` for a star. */
  column: string;
}

/** `COLLATE name` on an expression. */
export interface Collate {
  collate?: { name?: string } | null;
  name?: string;
}

export interface StringLit extends ExprBase {
  type: 'string';
  /** The real string (MySQL escapes decoded; `\%` and `\_` keep their backslash). */
  value: string;
  /** `LIKE ... ESCAPE 'c'`: set on the pattern. */
  escape?: { type?: string; value: Expr } | null;
}

export interface NumberLit extends ExprBase {
  type: 'number';
  /** A JS number for safe integers and plain decimals, else the exact literal text. */
  value: number | string;
  parentheses?: boolean;
}

export interface BoolLit extends ExprBase {
  type: 'bool';
  value: boolean;
}

export interface NullLit extends ExprBase {
  type: 'null';
  value?: null;
}

export interface Star extends ExprBase {
  type: 'star';
  value?: string;
}

/** `DATE '2024-01-01'`, `TIMESTAMP '...'`. */
export interface TypedLit extends ExprBase {
  type: 'date' | 'time' | 'timestamp' | 'datetime';
  value: string;
}

/** `X'0A'`, `0x0A`, `b'101'`. */
export interface BinaryLit extends ExprBase {
  type: 'hex_string' | 'full_hex_string' | 'bit_string';
  value: string;
}

/** `:name` (never valid here: reported as unsupported). */
export interface NamedParam extends ExprBase {
  type: 'param';
  value: string;
}

/** A bare keyword node-sql-parser keeps as text: `?`, `CURRENT_TIMESTAMP`, `UNKNOWN`, `FROM` in TRIM. */
export interface Origin extends ExprBase {
  type: 'origin';
  value: string;
}

/** `@user_var`, `@@system_var`. */
export interface Variable extends ExprBase {
  type: 'var';
  name: string;
  prefix?: string | null;
  members?: unknown[];
}

export interface ExprList extends ExprBase {
  type: 'expr_list';
  value: Expr[];
  parentheses?: boolean;
}

export interface Subquery extends ExprBase {
  type: 'subquery';
  ast: SelectStmt;
  parentheses?: boolean;
}

export interface UnaryExpr extends ExprBase {
  type: 'unary_expr';
  /** NOT, !, -, +, ~, EXISTS, NOT EXISTS. */
  operator: string;
  expr: Expr;
  parentheses?: boolean;
}

export interface BinaryExpr extends ExprBase {
  type: 'binary_expr';
  operator: string;
  left: Expr;
  right: Expr;
  parentheses?: boolean;
}

export interface CaseWhen {
  type: 'when';
  cond: Expr;
  result: Expr;
}

export interface CaseElse {
  type: 'else';
  result: Expr;
}

export interface CaseExpr extends ExprBase {
  type: 'case';
  /** `CASE x WHEN ...` (null for a searched CASE). */
  expr: Expr | null;
  args: (CaseWhen | CaseElse)[];
}

export interface CastTarget {
  dataType: string;
  length?: number | null;
  scale?: number | null;
  parentheses?: boolean;
  suffix?: unknown;
}

export interface CastExpr extends ExprBase {
  type: 'cast';
  keyword?: string;
  symbol?: string;
  expr: Expr;
  target: CastTarget[];
}

export interface IntervalExpr extends ExprBase {
  type: 'interval';
  expr: Expr;
  /** Upper case: DAY, HOUR_MINUTE, ... */
  unit: string;
}

export interface FunctionCall extends ExprBase {
  type: 'function';
  /** Upper case (`DATE_FORMAT`); dotted for qualified names. */
  name: string;
  args?: ExprList | null;
  over?: WindowCall | null;
}

export interface AggrFunc extends ExprBase {
  type: 'aggr_func';
  /** Upper case. */
  name: string;
  args: AggrArgs;
  over?: WindowCall | null;
}

export interface AggrArgs {
  expr: Expr;
  distinct?: string | null;
  /** GROUP_CONCAT(... ORDER BY ...). */
  orderby?: OrderItem[] | null;
  /** GROUP_CONCAT(... SEPARATOR s). */
  separator?: { keyword?: string; value: Expr } | null;
}

export interface ExtractExpr extends ExprBase {
  type: 'extract';
  args: { field: string; source: Expr };
}

/** `OVER (...)` or `OVER name`. */
export interface WindowCall {
  type: 'window';
  as_window_specification: string | { window_specification: WindowSpec; parentheses?: boolean };
}

export interface WindowSpec {
  name?: string | null;
  partitionby?: { expr: Expr; as?: string | null }[] | null;
  orderby?: OrderItem[] | null;
  window_frame_clause?: Expr | FrameClause | null;
}

/** A window frame as node-sql-parser gives it: `ROWS n PRECEDING` (`ROWS BETWEEN a AND b` is a binary_expr). */
export interface FrameClause {
  type: 'rows' | 'range' | 'ROWS' | 'RANGE';
  expr?: FrameBound | null;
}

/** One bound of a window frame: `UNBOUNDED PRECEDING`, `3 FOLLOWING`, `CURRENT ROW`. */
export interface FrameBound {
  type?: string;
  value?: unknown;
}

/** A type name as an argument (`CONVERT(x, CHAR)` kept verbatim for MySQL). */
export interface DataTypeNode extends ExprBase {
  type: 'datatype';
  dataType: string;
  length?: number | null;
  scale?: number | null;
}

export type Expr =
  | DataTypeNode
  | ColumnRef
  | StringLit
  | NumberLit
  | BoolLit
  | NullLit
  | Star
  | TypedLit
  | BinaryLit
  | NamedParam
  | Origin
  | Variable
  | ExprList
  | Subquery
  | UnaryExpr
  | BinaryExpr
  | CaseExpr
  | CastExpr
  | IntervalExpr
  | FunctionCall
  | AggrFunc
  | ExtractExpr;

export type ExprType = Expr['type'];

// ---------------------------------------------------------------------------------------
// SqlStatement parts

export interface SelectItem {
  expr: Expr;
  as: string | null;
}

export interface OrderItem {
  expr: Expr;
  /** 'ASC' | 'DESC' as written, or null. */
  type: string | null;
}

/** A base table in FROM or as a DML target. */
export interface TableItem {
  type?: undefined;
  db: string | null;
  schema?: string | null;
  table: string;
  as?: string | null;
  join?: string;
  on?: Expr | null;
  using?: string[] | null;
  /** NATURAL JOIN: `using` is filled with the shared columns by the planner (plan/natural.ts). */
  natural?: boolean;
  /** DELETE targets: which tables are deleted from. */
  addition?: boolean;
  expr?: undefined;
}

/** `(SELECT ...) AS alias` in FROM. */
export interface DerivedItem {
  type?: undefined;
  expr: Subquery;
  as: string | null;
  join?: string;
  on?: Expr | null;
  using?: string[] | null;
  /** NATURAL JOIN: `using` is filled with the shared columns by the planner (plan/natural.ts). */
  natural?: boolean;
  table?: undefined;
  db?: undefined;
  schema?: undefined;
}

/** A parenthesized join inside FROM: `a LEFT JOIN (b JOIN c ON ...) ON ...`. */
export interface JoinGroup {
  type: 'join_group';
  expr: FromItem[];
  join?: string;
  on?: Expr | null;
  using?: string[] | null;
  /** NATURAL JOIN: `using` is filled with the shared columns by the planner (plan/natural.ts). */
  natural?: boolean;
  table?: undefined;
  as?: undefined;
  db?: undefined;
  schema?: undefined;
}

export interface Dual {
  type: 'dual';
  table?: undefined;
  expr?: undefined;
  join?: undefined;
  on?: undefined;
  as?: undefined;
  using?: undefined;
  natural?: undefined;
  db?: undefined;
  schema?: undefined;
}

export type FromItem = TableItem | DerivedItem | JoinGroup | Dual;

export interface Limit {
  seperator: '' | 'offset' | ',';
  value: Expr[];
}

export interface GroupBy {
  columns: Expr[] | null;
  modifiers: { type?: string; value?: string }[];
}

export interface With {
  name: string;
  stmt: Subquery;
  columns: string[] | null;
  recursive?: boolean;
}

export interface NamedWindow {
  name: string;
  as_window_specification?: { window_specification: WindowSpec };
}

export interface SelectStmt {
  type: 'select';
  with: With[] | null;
  options?: unknown;
  distinct: string | null;
  columns: SelectItem[];
  into?: { type?: string; position?: unknown } | null;
  from: FromItem[] | null;
  where: Expr | null;
  groupby: GroupBy | null;
  having: Expr | null;
  orderby: OrderItem[] | null;
  limit: Limit | null;
  locking_read?: string | null;
  window?: { type?: string; expr: NamedWindow[] } | null;
  collate?: unknown;
  /** The next member of a UNION / INTERSECT / EXCEPT chain, and the operator before it. */
  _next?: SelectStmt | null;
  set_op?: string | null;
  /** ORDER BY / LIMIT of a whole set-operation chain (on its head). */
  _orderby?: OrderItem[] | null;
  _limit?: Limit | null;
  parentheses_symbol?: boolean;
}

export interface Assignment {
  column: string;
  value: Expr;
  table?: string | null;
}

export interface InsertStmt {
  type: 'insert' | 'replace';
  table: TableItem[];
  columns: string[] | null;
  values: { type: 'values'; values: ExprList[] } | SelectStmt | null;
  set?: Assignment[] | null;
  prefix?: string | null;
  on_duplicate_update?: { keyword?: string; set: Assignment[] } | null;
  partition?: unknown;
}

export interface UpdateStmt {
  type: 'update';
  with?: With[] | null;
  table: FromItem[];
  set: Assignment[];
  where: Expr | null;
  orderby: OrderItem[] | null;
  limit: Limit | null;
}

export interface DeleteStmt {
  type: 'delete';
  with?: With[] | null;
  table: TableItem[];
  from: FromItem[];
  where: Expr | null;
  orderby: OrderItem[] | null;
  limit: Limit | null;
}

export interface CreateStmt {
  type: 'create';
  keyword: string;
  table: TableItem[] | null;
  if_not_exists?: string | null;
  temporary?: string | null;
  query_expr?: SelectStmt | null;
  create_definitions?: unknown;
}

export interface DropStmt {
  type: 'drop';
  keyword: string;
  name: TableItem[];
  prefix?: string | null;
}

export type SqlStatement = SelectStmt | InsertStmt | UpdateStmt | DeleteStmt | CreateStmt | DropStmt;

/** Any typed node of the tree (for walkers). */
export type Node = Expr | SqlStatement | CaseWhen | CaseElse | WindowCall;

// ---------------------------------------------------------------------------------------
// Small helpers every stage uses

/** The column name of a column reference (`*` for a star). */
export function columnName(ref: ColumnRef): string {
  return ref.column;
}

/** `{count, offset}` of a LIMIT (or the head's `_limit` for set operations). */
export function limitOf(
  stmt: { limit?: Limit | null; _limit?: Limit | null },
  key: 'limit' | '_limit' = 'limit',
): { count: Expr | null; offset: Expr | null } {
  const l = stmt[key];
  if (!l || !Array.isArray(l.value) || l.value.length === 0) return { count: null, offset: null };
  if (l.seperator === ',') return { count: l.value[1] ?? null, offset: l.value[0] ?? null };
  return { count: l.value[0] ?? null, offset: l.value[1] ?? null };
}

export function isColumnRef(e: unknown): e is ColumnRef {
  return !!e && typeof e === 'object' && (e as { type?: unknown }).type === 'column_ref';
}

/** A `*` or `t.*` select item. */
export function isStar(e: Expr | null | undefined): boolean {
  return e?.type === 'column_ref' && e.column === '*';
}

/** A base-table FROM item. */
export function isTableItem(f: FromItem | null | undefined): f is TableItem {
  return !!f && f.type === undefined && typeof f.table === 'string' && !f.expr;
}

/**
 * The word a bare keyword argument was read as: TIMESTAMPDIFF(DAY, ...) gives DAY as a
 * column reference or a keyword node depending on the word.
 */
export function wordOf(e: Expr | null | undefined): string {
  if (!e) return '';
  if (e.type === 'column_ref') return e.column;
  if (e.type === 'origin' || e.type === 'string') return e.value;
  return '';
}

/**
 * The `type` of a node a switch did not expect. Its parameter is `never`, so a switch whose
 * cases miss a kind of the union fails type-checking at this call; at run time (a parser
 * node outside the union) it names the kind for the error message.
 */
export function unexpectedKind(x: never): string {
  return String((x as { type?: unknown } | null)?.type ?? 'unknown');
}

/** A literal's value (string, number, boolean, NULL); undefined for anything that is not one. */
export function literalValue(e: Expr | undefined): string | number | boolean | null | undefined {
  switch (e?.type) {
    case 'string':
      return String(e.value);
    case 'number':
      return Number(e.value);
    case 'bool':
      return Boolean(e.value);
    case 'null':
      return null;
    default:
      return undefined;
  }
}
