/**
 * The access policy as the engine uses it (SPEC section 12, docs/reference/policy.md): the
 * file's rules in order, each regex compiled to match the whole name (as Trino's
 * file-based access control does), each filter and mask parsed once into our tree. Built
 * by load.ts; read by the pure decisions of decide.ts.
 */
import type { Expr } from '../ast/nodes.js';

export const PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'OWNERSHIP'] as const;
export type Privilege = (typeof PRIVILEGES)[number];

export type SourceAllow = 'all' | 'read' | 'none';

/** What every rule matches on; an absent regex matches anything (a rule without `group` matches a principal with none). */
export interface RuleMatch {
  /** `sources[0]`, `tables[2]`, `knowledge_bases[1]`: how errors, the audit log and metrics name the rule. */
  id: string;
  user: RegExp | null;
  group: RegExp | null;
}

export interface SourceRule extends RuleMatch {
  source: RegExp | null;
  allow: SourceAllow;
}

export interface ColumnRule {
  name: string;
  /** false: the column is hidden (naming it is 1143, `SELECT *` leaves it out). */
  allow: boolean;
  /** The expression read in the column's place, when masked. */
  mask: Expr | null;
  /** The mask as written (SHOW GRANTS, EXPLAIN). */
  maskText: string | null;
}

export interface TableRule extends RuleMatch {
  source: RegExp | null;
  schema: RegExp | null;
  table: RegExp | null;
  privileges: ReadonlySet<Privilege>;
  /** The predicate ANDed onto the table where it is read; CURRENT_USER() / CURRENT_GROUPS() still in it. */
  filter: Expr | null;
  filterText: string | null;
  /** By lower-case column name. */
  columns: ReadonlyMap<string, ColumnRule>;
}

export interface KbRule extends RuleMatch {
  name: RegExp | null;
  privileges: ReadonlySet<Privilege>;
}

export interface Policy {
  sources: SourceRule[];
  tables: TableRule[];
  knowledgeBases: KbRule[];
}

/** The principal a decision is about (engine-types.ts StatementPrincipal). */
export interface Principal {
  user: string;
  groups: string[];
  admin: boolean;
}
