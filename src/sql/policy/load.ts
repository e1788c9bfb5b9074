/**
 * The policy file's text → a checked Policy (model.ts), or a PolicyError naming the rule:
 * `tables[2].filter: ...`. The shape is checked with zod; regexes are compiled to match a
 * whole name (Trino's rule: `crm` does not match `crm_archive`); filters and masks are
 * parsed with the engine's own MySQL parser, as the expression of a statement over one
 * table, and must read only that table's columns: no subquery, aggregate or window.
 */
import { z } from 'zod';
import type { Expr } from '../ast/nodes.js';
import { visit } from '../ast/walk.js';
import { parseStatement } from '../parse/index.js';
import {
  type ColumnRule,
  type KbRule,
  type Policy,
  PRIVILEGES,
  type Privilege,
  type SourceRule,
  type TableRule,
} from './model.js';

export class PolicyError extends Error {
  override name = 'PolicyError';
}

const regex = z.string().min(1).optional();
const common = { user: regex, group: regex };

const SourceSchema = z.strictObject({
  ...common,
  source: regex,
  allow: z.enum(['all', 'read', 'none']),
});

const ColumnSchema = z.strictObject({
  name: z.string().min(1),
  allow: z.boolean().optional(),
  mask: z.string().min(1).optional(),
});

const TableSchema = z.strictObject({
  ...common,
  source: regex,
  schema: regex,
  table: regex,
  privileges: z.array(z.enum(PRIVILEGES)),
  filter: z.string().min(1).optional(),
  columns: z.array(ColumnSchema).optional(),
});

const KbSchema = z.strictObject({
  ...common,
  name: regex,
  privileges: z.array(z.enum(PRIVILEGES)),
});

const FileSchema = z.strictObject({
  sources: z.array(SourceSchema).optional(),
  tables: z.array(TableSchema).optional(),
  knowledge_bases: z.array(KbSchema).optional(),
});

/** Parse and check a policy file's text. Throws PolicyError naming the rule and field. */
export function parsePolicy(text: string): Policy {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new PolicyError(`not valid JSON: ${(e as Error).message}`);
  }
  const parsed = FileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PolicyError(`${pathText(issue.path)}: ${issueText(issue)}`);
  }
  const f = parsed.data;
  return {
    sources: (f.sources ?? []).map(
      (r, i): SourceRule => ({
        id: `sources[${i}]`,
        ...matchers(`sources[${i}]`, r),
        source: compile(`sources[${i}].source`, r.source),
        allow: r.allow,
      }),
    ),
    tables: (f.tables ?? []).map((r, i): TableRule => {
      const id = `tables[${i}]`;
      const columns = new Map<string, ColumnRule>();
      (r.columns ?? []).forEach((c, j) => {
        const at = `${id}.columns[${j}]`;
        const key = c.name.toLowerCase();
        if (columns.has(key)) throw new PolicyError(`${at}.name: column '${c.name}' is named twice`);
        if (c.allow === false && c.mask !== undefined)
          throw new PolicyError(`${at}: a hidden column (allow: false) has no mask`);
        columns.set(key, {
          name: c.name,
          allow: c.allow !== false,
          mask: c.mask === undefined ? null : parseMask(`${at}.mask`, c.mask),
          maskText: c.mask ?? null,
        });
      });
      return {
        id,
        ...matchers(id, r),
        source: compile(`${id}.source`, r.source),
        schema: compile(`${id}.schema`, r.schema),
        table: compile(`${id}.table`, r.table),
        privileges: new Set<Privilege>(r.privileges),
        filter: r.filter === undefined ? null : parseFilter(`${id}.filter`, r.filter),
        filterText: r.filter ?? null,
        columns,
      };
    }),
    knowledgeBases: (f.knowledge_bases ?? []).map(
      (r, i): KbRule => ({
        id: `knowledge_bases[${i}]`,
        ...matchers(`knowledge_bases[${i}]`, r),
        name: compile(`knowledge_bases[${i}].name`, r.name),
        privileges: new Set<Privilege>(r.privileges),
      }),
    ),
  };
}

function matchers(id: string, r: { user?: string; group?: string }) {
  return { user: compile(`${id}.user`, r.user), group: compile(`${id}.group`, r.group) };
}

/** A regex matching the whole name; absent → null (matches anything). */
function compile(at: string, source: string | undefined): RegExp | null {
  if (source === undefined) return null;
  // Object names are matched without regard to case (MySQL clients spell them either way);
  // users and groups exactly.
  const flags = /\.(user|group)$/.test(at) ? 'u' : 'iu';
  try {
    return new RegExp(`^(?:${source})$`, flags);
  } catch (e) {
    throw new PolicyError(`${at}: not a valid regular expression: ${(e as Error).message}`);
  }
}

/** The table a filter or mask is parsed against; never read. */
const PLACEHOLDER = '__tributary_policy_table';

function parseFilter(at: string, text: string): Expr {
  const stmt = parseExpressionStatement(at, `SELECT 1 FROM ${PLACEHOLDER} WHERE (${text})`);
  if (!stmt.where) throw new PolicyError(`${at}: expected a predicate`);
  checkExpression(at, stmt.where);
  return stmt.where;
}

function parseMask(at: string, text: string): Expr {
  const stmt = parseExpressionStatement(at, `SELECT (${text}) FROM ${PLACEHOLDER}`);
  if (stmt.columns.length !== 1 || stmt.where) throw new PolicyError(`${at}: expected one expression`);
  const expr = stmt.columns[0].expr;
  if (expr.type === 'expr_list') throw new PolicyError(`${at}: expected one expression`);
  checkExpression(at, expr);
  return expr;
}

function parseExpressionStatement(at: string, sql: string) {
  let stmt: ReturnType<typeof parseStatement>;
  try {
    stmt = parseStatement(sql, () => false);
  } catch (e) {
    throw new PolicyError(`${at}: ${(e as Error).message.replace(/ at position \d+$/, '')}`);
  }
  const ast = stmt.kind === 'sql' ? stmt.ast : null;
  // Text that closed the parenthesis and went on (`a) FROM other WHERE (1`) is refused here.
  if (
    ast?.type !== 'select' ||
    ast._next ||
    ast.with ||
    ast.groupby ||
    ast.having ||
    ast.orderby ||
    ast.limit ||
    ast.from?.length !== 1 ||
    ast.from[0].table !== PLACEHOLDER
  )
    throw new PolicyError(`${at}: expected an expression over the table's columns`);
  return ast;
}

/** Only the table's own columns, row by row: no subquery, aggregate, window, variable or parameter. */
function checkExpression(at: string, expr: Expr): void {
  visit(expr, (n) => {
    const t = n.type;
    if (t === 'subquery' || t === 'select' || n.ast)
      throw new PolicyError(
        `${at}: a subquery is not allowed (a policy expression reads only its own table)`,
      );
    if (t === 'aggr_func') throw new PolicyError(`${at}: an aggregate (${String(n.name)}) is not allowed`);
    if (n.over) throw new PolicyError(`${at}: a window function is not allowed`);
    if (t === 'var') throw new PolicyError(`${at}: a variable is not allowed`);
    if (t === 'param' || (t === 'origin' && n.value === '?'))
      throw new PolicyError(`${at}: a parameter is not allowed`);
    if (t === 'column_ref' && (n.table || n.db))
      throw new PolicyError(
        `${at}: write columns unqualified (${String(n.table ?? n.db)}.${String(n.column)} names another table)`,
      );
    if (t === 'column_ref' && n.column === '*') throw new PolicyError(`${at}: * is not an expression`);
    return true;
  });
}

function pathText(path: PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(file)';
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown key ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  if (issue.code === 'invalid_value')
    return `expected one of ${issue.values.map((v) => String(v)).join(', ')}`;
  return issue.message;
}
