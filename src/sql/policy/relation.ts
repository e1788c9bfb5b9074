/**
 * Row filters and column masks (SPEC section 12): every table a statement reads, at any
 * depth (a join, a subquery, a CTE body, a UNION branch, a derived table), is replaced by a
 * filtered, masked relation of the same name before the statement is bound:
 *
 *   crm.tickets AS t  →  (SELECT id, CONCAT(LEFT(email, 2), '***') AS email, region, ...
 *                          FROM crm.tickets AS t WHERE region = 'EU') AS t
 *
 * So nothing of the statement sees a row the filter removes or a value a mask replaces: its
 * own predicates, joins, groups and windows read the masked value, and an error can only
 * print what the relation holds. Hidden columns (`allow: false`) are not in the relation at
 * all. The relation is plain SQL: planned like any derived table, it runs at the source with
 * the rest of the statement when one source holds it all, so the filter is pushed with it.
 */
import type { Expr, FromItem, SelectItem, SelectStmt, TableItem } from '../ast/nodes.js';
import { andAll, conjuncts, cteNames, nameOf, tableItems, visit } from '../ast/walk.js';
import { SCHEMA_SEP } from '../parse/prepass.js';
import { namedTable } from './access.js';
import type { Applied, Mask, TableName } from './decide.js';

export interface RelationLookups {
  /** The default database (context.db / USE). */
  db: string | undefined;
  isKb?: (name: string) => boolean;
  /** The source's default schema (PostgreSQL `public`), when an unqualified table needs one. */
  defaultSchema(source: string): string | null;
  filterFor(t: TableName): Applied<Expr> | null;
  masksFor(t: TableName): Mask[];
  hidden(t: TableName): ReadonlySet<string>;
  /** The table's columns, as the source spells them, in order, with their MySQL types. */
  columns(t: {
    source: string;
    schema: string | null;
    table: string;
  }): Promise<{ name: string; type: string }[]>;
}

/** What the rewrite did: the ids of the rules applied, and per table read a line for EXPLAIN. */
export interface RowPolicyApplied {
  /** Empty: nothing rewritten. */
  rules: string[];
  /** `crm.tickets: tables[0] filter region = 'EU'; tables[0] mask email AS CONCAT(...)`, once per table. */
  notes: string[];
}

/** Rewrite the statement in place. */
export async function applyRowPolicy(ast: object, look: RelationLookups): Promise<RowPolicyApplied> {
  const ctes = cteNames(ast as never);
  const rules: string[] = [];
  const notes: string[] = [];
  const owners = soleTableOwners(ast);
  // Every predicate of the statement, before the rewrite adds its own; those found harmless below are struck off.
  const unsafe = new Set(predicates(ast));
  const made: SelectStmt[] = [];
  for (const node of tableItems(ast as never)) {
    const target = tableOf(node, ctes, look);
    if (!target) continue;
    const name: TableName = { ...target, schema: target.schema ?? look.defaultSchema(target.source) };
    const filter = look.filterFor(name);
    const masks = look.masksFor(name);
    if (!filter && masks.length === 0) continue;
    const hidden = look.hidden(name);
    const typed = (await look.columns(target)).filter((c) => !hidden.has(c.name.toLowerCase()));
    const columns = typed.map((c) => c.name);
    const masked = new Map(masks.map((m) => [m.column.toLowerCase(), m]));
    for (const id of [filter?.rule, ...masks.map((m) => m.rule)])
      if (id && !rules.includes(id)) rules.push(id);
    const note = explainNote(name, filter, masks);
    if (!notes.includes(note)) notes.push(note);
    const qualifier = nameOf(node.as) ?? node.table.slice(node.table.indexOf(SCHEMA_SEP) + 1);
    const owner = owners.get(node);
    const plain = new Map(
      typed
        .filter((c) => !masked.has(c.name.toLowerCase()))
        .map((c) => [c.name.toLowerCase(), NUMERIC.test(c.type)]),
    );
    const copied = owner ? conjuncts(owner.where).filter((c) => safeToCopy(c, qualifier, plain)) : [];
    for (const c of copied) unsafe.delete(c);
    const where = andAll([...(filter ? [filter.value] : []), ...copied].map((e) => structuredClone(e)));
    made.push(replaceWithRelation(node, qualifier, columns, masked, where));
  }
  // Fenced only when the statement has a predicate that could run next to the filter and fail on
  // a filtered row: a COUNT(*) or a point lookup stays one flat statement the source plans freely.
  if (unsafe.size > 0) for (const s of made) s.limit = FENCE();
  return { rules, notes };
}

/** How EXPLAIN names what the policy did to one table (hidden columns are not named). */
function explainNote(t: TableName, filter: Applied<Expr> | null, masks: Mask[]): string {
  const parts = [
    ...(filter ? [`${filter.rule} filter ${filter.text}`] : []),
    ...masks.map((m) => `${m.rule} mask ${m.column} AS ${m.text}`),
  ];
  return `${[t.source, t.schema, t.table].filter(Boolean).join('.')}: ${parts.join('; ')}`;
}

function tableOf(
  node: TableItem,
  ctes: Set<string>,
  look: RelationLookups,
): { source: string; schema: string | null; table: string } | null {
  const { db, schema, table } = namedTable(node);
  if (!db && (ctes.has(table.toLowerCase()) || look.isKb?.(table))) return null;
  if (db && (db.toLowerCase() === 'information_schema' || db.toLowerCase() === 'mindsdb')) return null;
  const source = db ?? look.db;
  return source ? { source, schema, table } : null;
}

/**
 * `LIMIT 9223372036854775807 OFFSET 0`: a bound that changes nothing, and the one thing every
 * planner respects as a fence: none merges the relation into the statement or moves the
 * statement's predicates below its filter, so no predicate of the statement (a cast, a
 * division) runs on a row the filter removes and prints its value in an error.
 */
const FENCE = (): SelectStmt['limit'] => ({
  seperator: 'offset',
  value: [
    { type: 'number', value: '9223372036854775807' } as unknown as Expr,
    { type: 'number', value: 0 } as unknown as Expr,
  ],
});

/** The item becomes `(SELECT <columns, masked> FROM <the table> WHERE <filter>) AS <its name>`, keeping its join. */
function replaceWithRelation(
  node: TableItem,
  qualifier: string,
  columns: string[],
  masks: Map<string, { expr: Expr }>,
  where: Expr | null,
): SelectStmt {
  const inner: TableItem = { db: node.db, schema: node.schema ?? null, table: node.table, as: qualifier };
  const items: SelectItem[] = columns.map((c) => {
    const m = masks.get(c.toLowerCase());
    return m
      ? { expr: structuredClone(m.expr), as: c }
      : { expr: { type: 'column_ref', table: null, column: c } as Expr, as: null };
  });
  const select: SelectStmt = {
    type: 'select',
    with: null,
    distinct: null,
    columns: items,
    from: [inner],
    where,
    groupby: null,
    having: null,
    orderby: null,
    limit: null,
  };
  const item = node as unknown as Record<string, unknown>;
  for (const k of ['db', 'schema', 'table']) delete item[k];
  const derived = item as unknown as Extract<FromItem, { expr: unknown }>;
  derived.expr = { type: 'subquery', ast: select, parentheses: true } as never;
  derived.as = qualifier;
  return select;
}

/**
 * The conjuncts of every WHERE and HAVING and every JOIN's ON (a USING or NATURAL join as a
 * whole) in the statement: what a source
 * may evaluate in the same scan as a relation's filter (PostgreSQL moves a HAVING without an
 * aggregate into WHERE, and an ON naming one side down to its scan).
 */
function predicates(ast: object): Expr[] {
  const out: Expr[] = [];
  visit(ast, (n) => {
    if (n.type === 'select') {
      out.push(...conjuncts(n.where as Expr | null), ...conjuncts(n.having as Expr | null));
    } else if (n.on && typeof n.on === 'object') out.push(...conjuncts(n.on as Expr));
    // USING and NATURAL compare columns without an expression to look at: counted as one that could fail.
    else if ((Array.isArray(n.using) && n.using.length > 0) || n.natural) out.push(n as unknown as Expr);
  });
  return out;
}

/** SELECTs whose FROM is one table and nothing else, by that table item. */
function soleTableOwners(ast: object): Map<TableItem, SelectStmt> {
  const out = new Map<TableItem, SelectStmt>();
  visit(ast, (n) => {
    const from = n.type === 'select' ? (n.from as FromItem[] | null) : null;
    if (
      from?.length === 1 &&
      typeof (from[0] as TableItem).table === 'string' &&
      !(from[0] as { expr?: unknown }).expr
    )
      out.set(from[0] as TableItem, n as unknown as SelectStmt);
  });
  return out;
}

const COMPARE = new Set([
  '=',
  '<>',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'IN',
  'NOT IN',
  'IS',
  'IS NOT',
  'BETWEEN',
  'NOT BETWEEN',
]);
/** Constants a numeric column may be compared with: whatever is converted, it is the constant. */
const FOR_NUMBER = new Set(['number', 'string', 'single_quote_string', 'bool', 'null', 'param']);
/** Constants any other column may be compared with without converting the column's values. */
const FOR_OTHER = new Set(['string', 'single_quote_string', 'null', 'date', 'time', 'timestamp', 'datetime']);
const NUMERIC = /INT|DECIMAL|NUMERIC|FLOAT|DOUBLE|REAL|BIT|YEAR|BOOL/i;

/**
 * A conjunct of the statement's WHERE that may be copied below the fence, next to the filter:
 * an unmasked column of this table compared with constants that need no conversion of the
 * column's values (a number column with anything constant, any other column with strings and
 * dates: `body = 42` converts every body to a number, and may fail on a filtered row's). It can
 * fail on its constants only, never on a row's value, so running it next to the filter prints
 * nothing of a filtered row; the statement keeps it too. What it buys: the source's index
 * serves `id = 5` again.
 */
function safeToCopy(e: Expr, qualifier: string, plain: ReadonlyMap<string, boolean>): boolean {
  if (e.type !== 'binary_expr' || !COMPARE.has(String(e.operator).toUpperCase())) return false;
  const col = e.left as Expr;
  if (col.type !== 'column_ref' || typeof col.column !== 'string') return false;
  const t = nameOf(col.table as string | null);
  if (t !== null && t.toLowerCase() !== qualifier.toLowerCase()) return false;
  const numeric = plain.get(col.column.toLowerCase());
  if (numeric === undefined) return false;
  const right = e.right as Expr;
  const values = right.type === 'expr_list' ? (right.value as Expr[]) : [right];
  const allowed = numeric ? FOR_NUMBER : FOR_OTHER;
  return values.length > 0 && values.every((v) => allowed.has(v.type));
}
