/**
 * SHOW GRANTS: what the calling principal may do, from the policy file, as MySQL-like
 * GRANT lines (docs/reference/sql.md#show-grants). One line per rule whose `user` and
 * `group` match the principal, in the file's order (the first rule that matches an object
 * decides it); object names are the rule's regexes, quoted; the rule id, filter, masks and
 * hidden columns follow in a comment.
 */
import { ErrorCode, SqlError } from '../../core/errors.js';
import { type MemTable, memTable } from '../execute/show.js';
import { matchesPrincipal } from './decide.js';
import type { Policy, Principal, Privilege } from './model.js';

/** The principal of a statement that names none: `local` with auth none (docs/reference/policy.md). */
export const LOCAL: Principal = { user: 'local', groups: [], admin: true };

/**
 * SHOW GRANTS [FOR ...]: one column, `Grants for <user>`. Only the caller's own grants:
 * another principal's groups are known only when it logs in.
 */
export function grantRows(
  policy: Policy | null,
  principal: Principal | undefined,
  forUser: string | null,
): MemTable {
  const p = principal ?? LOCAL;
  if (forUser !== null && forUser !== p.user) {
    if (!p.admin)
      throw new SqlError(
        ErrorCode.ACCESS_DENIED_DB,
        `Access denied for user '${q(p.user)}' to database 'mysql'`,
      );
    throw new SqlError(
      ErrorCode.NOT_SUPPORTED,
      `SHOW GRANTS FOR '${q(forUser)}' is not supported: a principal's groups are known only when it logs in; it can run SHOW GRANTS itself`,
    );
  }
  return memTable(
    [[`Grants for ${p.user}`, 'VARCHAR']],
    grantLines(policy, p).map((l) => [l]),
  );
}

const ANY = '.*';

/** The grant lines for `p`; `policy` null (policy off) or the admin: everything. */
export function grantLines(policy: Policy | null, p: Principal): string[] {
  const to = `TO '${q(p.user)}'`;
  if (!policy || p.admin) return [`GRANT ALL PRIVILEGES ON *.* ${to}`];
  const out: string[] = [];
  for (const r of policy.sources) {
    if (!matchesPrincipal(r, p)) continue;
    const on = `ON '${q(re(r.source))}'.*`;
    out.push(
      r.allow === 'none'
        ? `REVOKE ALL PRIVILEGES ${on} FROM '${q(p.user)}' /* ${r.id}: allow none */`
        : `GRANT ${r.allow === 'all' ? 'ALL PRIVILEGES' : 'SELECT'} ${on} ${to} /* ${r.id}: allow ${r.allow} */`,
    );
  }
  for (const r of policy.tables) {
    if (!matchesPrincipal(r, p)) continue;
    const schema = r.schema ? `'${q(re(r.schema))}'.` : '';
    const on = `ON '${q(re(r.source))}'.${schema}'${q(re(r.table))}'`;
    const notes = [r.id];
    if (r.filterText) notes.push(`filter: ${r.filterText}`);
    for (const c of r.columns.values()) {
      if (!c.allow) notes.push(`hidden: ${c.name}`);
      else if (c.maskText) notes.push(`mask ${c.name}: ${c.maskText}`);
    }
    out.push(`GRANT ${privileges(r.privileges)} ${on} ${to} /* ${comment(notes.join('; '))} */`);
  }
  for (const r of policy.knowledgeBases) {
    if (!matchesPrincipal(r, p)) continue;
    out.push(`GRANT ${privileges(r.privileges)} ON KNOWLEDGE_BASE '${q(re(r.name))}' ${to} /* ${r.id} */`);
  }
  if (out.length === 0) out.push(`GRANT USAGE ON *.* ${to} /* no rule matches: no access */`);
  return out;
}

function privileges(set: ReadonlySet<Privilege>): string {
  return set.size ? [...set].join(', ') : 'USAGE';
}

/** A rule's regex as written (without the whole-name anchors load.ts added). */
function re(r: RegExp | null): string {
  return r ? r.source.replace(/^\^\(\?:/, '').replace(/\)\$$/, '') : ANY;
}

const q = (s: string) => s.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
const comment = (s: string) => s.replace(/\*\//g, '* /');
