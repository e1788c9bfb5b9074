/**
 * The one check of a statement against the policy (SPEC section 12): every access
 * access.ts read off the statement, decided by decide.ts; a denial is MySQL's error
 * (1142 for a table, a source's table or a knowledge base, 1143 for a hidden column, 1044
 * for a database-level statement) naming the user and the object, never a value. Also the
 * principal's view of listings: what does not exist for it.
 */
import { ErrorCode, SqlError } from '../../core/errors.js';
import type { Access } from './access.js';
import { decideKb, decideSource, decideTable, hiddenColumns, type TableName } from './decide.js';
import type { Policy, Principal } from './model.js';

export const TABLE_ACCESS_DENIED = 1142;
export const COLUMN_ACCESS_DENIED = 1143;
export const DB_ACCESS_DENIED = 1044;

/** A refusal by the policy: `rule` is the rule that decided (`tables[2]`), or `no-match`. */
export class PolicyDenied extends SqlError {
  constructor(
    code: number,
    message: string,
    readonly rule: string,
  ) {
    super(code, message);
  }
}

/** Rule label of a denial no rule decided (metrics, audit). */
export const NO_MATCH = 'no-match';

export interface Authorization {
  /** Ids of the rules that decided the statement's accesses, in first-use order (audit log). */
  rules: string[];
  /** Tables a `*` reaches that have hidden columns: the star must be expanded without them (star.ts). */
  hiddenStars: number;
  /** Table reads a row filter or a column mask applies to: the statement is rewritten for its principal (relation.ts). */
  rewrites: number;
}

const quote = (s: string) => s.replace(/'/g, "''");

/** Check every access; throws PolicyDenied at the first refusal. */
export function authorize(
  policy: Policy,
  p: Principal,
  accesses: readonly Access[],
  /** The schema an unqualified table of a source lives in (PostgreSQL's `public`), when known. */
  defaultSchema?: (source: string) => string | null,
): Authorization {
  const rules: string[] = [];
  const used = (id: string | null | undefined) => {
    if (id && !rules.includes(id)) rules.push(id);
  };
  let hiddenStars = 0;
  let rewrites = 0;
  const user = quote(p.user);
  for (const a of accesses) {
    if (a.kind === 'source') {
      const d = decideSource(policy, p, a.source);
      const ok = a.privilege === 'OWNERSHIP' ? d.allow === 'all' : d.allow !== 'none';
      if (!ok)
        throw new PolicyDenied(
          DB_ACCESS_DENIED,
          `Access denied for user '${user}' to database '${quote(a.source)}'`,
          d.rule ?? NO_MATCH,
        );
      used(d.rule);
      continue;
    }
    if (a.kind === 'kb') {
      const d = decideKb(policy, p, a.name);
      if (!d.privileges.has(a.privilege))
        throw new PolicyDenied(
          TABLE_ACCESS_DENIED,
          `${command(a.privilege)} command denied to user '${user}' for table '${quote(a.name)}'`,
          d.rule ?? NO_MATCH,
        );
      used(d.rule);
      continue;
    }
    // No database selected: binding answers 1046 as it would without a policy.
    if (a.source === null) continue;
    const name: TableName = {
      source: a.source,
      schema: a.schema ?? defaultSchema?.(a.source) ?? null,
      table: a.table,
    };
    const d = decideTable(policy, p, name);
    const object = `${quote(a.source)}.${quote(a.table)}`;
    if (!d.privileges.has(a.privilege))
      throw new PolicyDenied(
        TABLE_ACCESS_DENIED,
        `${a.command ?? command(a.privilege)} command denied to user '${user}' for table '${object}'`,
        d.rule?.id ?? d.source.rule ?? NO_MATCH,
      );
    const filtered = d.rule && (d.rule.filter || [...d.rule.columns.values()].some((c) => c.mask));
    if (filtered) {
      // A read becomes a filtered, masked relation (relation.ts); a change through one is not applied yet.
      if (a.privilege !== 'SELECT')
        throw new PolicyDenied(
          ErrorCode.NOT_SUPPORTED,
          `Access policy rule ${d.rule!.id} filters rows or masks columns of '${object}': ${a.command ?? command(a.privilege)} through it is not supported (only reads apply the filter); refused rather than run unfiltered`,
          d.rule!.id,
        );
      rewrites++;
    }
    const hidden = hiddenColumns(d);
    if (hidden.size) {
      // A NATURAL join compares every shared column, a hidden one too, without naming it.
      const named = a.columns.find((c) => hidden.has(c)) ?? (a.natural ? [...hidden][0] : undefined);
      if (named !== undefined)
        throw new PolicyDenied(
          COLUMN_ACCESS_DENIED,
          `${command(a.privilege)} command denied to user '${user}' for column '${quote(named)}' in table '${object}'`,
          d.rule!.id,
        );
      if (a.star) hiddenStars++;
    }
    used(d.source.rule);
    used(d.rule?.id);
  }
  return { rules, hiddenStars, rewrites };
}

function command(privilege: string): string {
  return privilege === 'OWNERSHIP' ? 'CREATE' : privilege;
}

/**
 * What exists for a principal: listings (SHOW, information_schema, MCP resources, the
 * console's schema) keep only sources, tables, columns and knowledge bases it may use.
 * Null from `viewOf` means everything (no policy, or the admin).
 */
export class PolicyView {
  constructor(
    private readonly policy: Policy,
    readonly principal: Principal,
  ) {}

  seesSource(source: string): boolean {
    return decideSource(this.policy, this.principal, source).allow !== 'none';
  }

  /** Any privilege on the table. */
  seesTable(source: string, schema: string | null, table: string): boolean {
    return decideTable(this.policy, this.principal, { source, schema, table }).privileges.size > 0;
  }

  /** The columns it may name (hidden ones left out), in order. */
  visibleColumns<C extends { name: string }>(
    source: string,
    schema: string | null,
    table: string,
    columns: C[],
  ): C[] {
    const d = decideTable(this.policy, this.principal, { source, schema, table });
    if (d.privileges.size === 0) return [];
    const hidden = hiddenColumns(d);
    return hidden.size ? columns.filter((c) => !hidden.has(c.name.toLowerCase())) : columns;
  }

  seesKb(name: string): boolean {
    return decideKb(this.policy, this.principal, name).privileges.size > 0;
  }
}

/** The principal's view, or null when it sees everything. */
export function viewOf(policy: Policy | null, p: Principal | undefined): PolicyView | null {
  if (!policy || !p || p.admin) return null;
  return new PolicyView(policy, p);
}
