/**
 * The policy's decisions, as pure functions of (policy, principal, object): no I/O, no
 * engine. Rules match in order and the first whose regexes all match decides; no match
 * is no access; the admin bypasses every rule (docs/reference/policy.md).
 */
import type { Expr } from '../ast/nodes.js';
import { mapTree } from '../ast/walk.js';
import {
  type KbRule,
  type Policy,
  PRIVILEGES,
  type Principal,
  type Privilege,
  type RuleMatch,
  type SourceAllow,
  type TableRule,
} from './model.js';

const ALL: ReadonlySet<Privilege> = new Set(PRIVILEGES);
const NONE: ReadonlySet<Privilege> = new Set();
const READ: ReadonlySet<Privilege> = new Set(['SELECT']);

/** A table as a decision sees it: names as the statement bound them, the schema resolved when known. */
export interface TableName {
  source: string;
  schema: string | null;
  table: string;
}

function test(re: RegExp | null, value: string): boolean {
  return re === null || re.test(value);
}

/** Whether a rule's user and group regexes match the principal (the group: any of its groups). */
export function matchesPrincipal(rule: RuleMatch, p: Principal): boolean {
  if (!test(rule.user, p.user)) return false;
  return rule.group === null || p.groups.some((g) => rule.group?.test(g));
}

export interface SourceDecision {
  allow: SourceAllow;
  /** The rule that decided; null for the admin or when none matched. */
  rule: string | null;
}

export function decideSource(policy: Policy, p: Principal, source: string): SourceDecision {
  if (p.admin) return { allow: 'all', rule: null };
  for (const r of policy.sources)
    if (matchesPrincipal(r, p) && test(r.source, source)) return { allow: r.allow, rule: r.id };
  return { allow: 'none', rule: null };
}

export interface TableDecision {
  privileges: ReadonlySet<Privilege>;
  /** The table rule that decided (null: the admin, or none matched, or the source denied). */
  rule: TableRule | null;
  source: SourceDecision;
}

/**
 * A table's privileges: the first matching table rule's, narrowed by its source's rule
 * (`read` keeps SELECT only, `none` keeps nothing).
 */
export function decideTable(policy: Policy, p: Principal, t: TableName): TableDecision {
  if (p.admin) return { privileges: ALL, rule: null, source: { allow: 'all', rule: null } };
  const source = decideSource(policy, p, t.source);
  if (source.allow === 'none') return { privileges: NONE, rule: null, source };
  const rule = policy.tables.find(
    (r) =>
      matchesPrincipal(r, p) &&
      test(r.source, t.source) &&
      test(r.schema, t.schema ?? '') &&
      test(r.table, t.table),
  );
  if (!rule) return { privileges: NONE, rule: null, source };
  const privileges =
    source.allow === 'read' ? (rule.privileges.has('SELECT') ? READ : NONE) : rule.privileges;
  return { privileges, rule, source };
}

export interface KbDecision {
  privileges: ReadonlySet<Privilege>;
  rule: string | null;
}

export function decideKb(policy: Policy, p: Principal, name: string): KbDecision {
  if (p.admin) return { privileges: ALL, rule: null };
  const r: KbRule | undefined = policy.knowledgeBases.find(
    (k) => matchesPrincipal(k, p) && test(k.name, name),
  );
  return r ? { privileges: r.privileges, rule: r.id } : { privileges: NONE, rule: null };
}

/** Lower-case names of the columns the principal may not see (`allow: false`). */
export function hiddenColumns(d: TableDecision): ReadonlySet<string> {
  const out = new Set<string>();
  for (const [k, c] of d.rule?.columns ?? []) if (!c.allow) out.add(k);
  return out;
}

/** A filter or mask with the rule that added it. */
export interface Applied<T> {
  value: T;
  /** `tables[2]`. */
  rule: string;
  /** The rule's expression as the file writes it (EXPLAIN). */
  text: string;
}

/**
 * The row filter ANDed onto the table wherever the principal reads it, with CURRENT_USER()
 * and CURRENT_GROUPS() replaced by the principal's name and its groups joined by commas
 * (so `FIND_IN_SET(team, CURRENT_GROUPS())` works on every target); null when none.
 */
export function filterFor(policy: Policy, p: Principal, t: TableName): Applied<Expr> | null {
  const d = decideTable(policy, p, t);
  if (!d.rule?.filter) return null;
  return { value: bindPrincipal(d.rule.filter, p), rule: d.rule.id, text: d.rule.filterText ?? '' };
}

/** A column's mask: the expression read in its place, its rule, and the mask as written. */
export interface Mask {
  column: string;
  expr: Expr;
  rule: string;
  text: string;
}

/** The masks of the table's columns: each expression read in its column's place. */
export function masksFor(policy: Policy, p: Principal, t: TableName): Mask[] {
  const d = decideTable(policy, p, t);
  const out: Mask[] = [];
  for (const c of d.rule?.columns.values() ?? [])
    if (c.allow && c.mask)
      out.push({ column: c.name, expr: bindPrincipal(c.mask, p), rule: d.rule!.id, text: c.maskText ?? '' });
  return out;
}

/** CURRENT_USER() and CURRENT_GROUPS() in a rule's expression, as string literals of this principal. */
export function bindPrincipal(expr: Expr, p: Principal): Expr {
  return mapTree(expr, (n) => {
    if (n.type !== 'function') return undefined;
    const name = n.name.toUpperCase();
    if (name === 'CURRENT_USER') return { type: 'string', value: p.user };
    if (name === 'CURRENT_GROUPS') return { type: 'string', value: p.groups.join(',') };
    return undefined;
  });
}
