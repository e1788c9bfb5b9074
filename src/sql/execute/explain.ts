/** EXPLAIN: the plan as rows (step, source, operation, query): what each source runs and what runs locally. */
import { ErrorCode, SqlError } from '../../core/errors.js';
import type { QueryContext } from '../engine-types.js';
import type { Statement } from '../parse/index.js';
import type { KbPart, Plan } from '../plan/plan-types.js';
import type { ExecutionContext } from './context.js';
import type { MemTable } from './show.js';

export async function explain(c: ExecutionContext, stmt: Statement, ctx: QueryContext): Promise<MemTable> {
  if (stmt.kind !== 'sql' || stmt.ast.type !== 'select') {
    throw new SqlError(ErrorCode.NOT_SUPPORTED, 'EXPLAIN supports SELECT statements');
  }
  // Planners change the tree they plan; the statement may be a cached parse.
  const plan = await c.plan(structuredClone(stmt.ast), ctx);
  const rows: [number, string, string, string][] = [];
  if (plan.kind === 'pushdown') rows.push([1, plan.source.name, 'pushdown', plan.sql]);
  else {
    let i = 1;
    plan.fragments.forEach((f, n) => {
      rows.push([i++, f.source.name, fragmentAgreement(plan, n), f.sql]);
    });
    for (const r of plan.info)
      rows.push([i++, 'information_schema', `catalog -> __info_${r.table.toLowerCase()}`, '']);
    for (const k of plan.kb) rows.push([i++, `knowledge_base ${k.ref.table}`, kbAgreement(k), kbRequest(k)]);
    rows.push([i, 'local', 'duckdb', plan.localSql]);
  }
  // What the access policy added, and the rule that did (a row per table it rewrote).
  for (const note of plan.policy ?? []) rows.push([rows.length + 1, 'policy', note, '']);
  return {
    columns: [
      { name: 'step', type: 'INT' },
      { name: 'source', type: 'VARCHAR' },
      { name: 'operation', type: 'VARCHAR' },
      { name: 'query', type: 'TEXT' },
    ],
    rows,
  };
}

/**
 * What a fragment's source agreed to, as EXPLAIN shows it: the filters it answers exactly,
 * those it narrows with a local re-check (and why), the limit, and a dynamic filter.
 */
function fragmentAgreement(plan: Extract<Plan, { kind: 'local' }>, n: number): string {
  const f = plan.fragments[n];
  const exact = f.filters.filter((x) => x.support === 'exact');
  const inexact = f.filters.filter((x) => x.support === 'inexact');
  const parts = [`fragment -> ${f.temp}`];
  parts.push(exact.length ? `exact filters: ${exact.map((x) => x.text).join(' AND ')}` : 'no exact filters');
  if (inexact.length)
    parts.push(
      `inexact filters (re-checked locally): ${inexact.map((x) => `${x.text} [${x.why}]`).join(' AND ')}`,
    );
  parts.push(f.limit === null ? 'limit not pushed' : `limit ${f.limit} pushed`);
  for (const d of plan.dynamic) {
    if (d.probe === n)
      parts.push(
        `dynamic filter: ${d.probeColumn} IN (keys of ${plan.fragments[d.build].temp}.${d.buildColumn}, at most ${d.maxKeys})`,
      );
  }
  return parts.join('; ');
}

/** What a search was asked, as EXPLAIN shows it: where k came from, and the conditions it took. */
function kbAgreement(k: KbPart): string {
  const exact = k.pushed.filter((x) => x.support === 'exact');
  const inexact = k.pushed.filter((x) => x.support === 'inexact');
  const parts = [`search -> ${k.temp}`, k.k.why];
  parts.push(exact.length ? `exact filters: ${exact.map((x) => x.text).join(' AND ')}` : 'no exact filters');
  if (inexact.length)
    parts.push(`inexact filters (re-checked locally): ${inexact.map((x) => x.text).join(' AND ')}`);
  if (k.local.length) parts.push(`filtered locally before k: ${k.local.join(' AND ')}`);
  return parts.join('; ');
}

function kbRequest(k: KbPart): string {
  const { limit: _, ...rest } = k.search;
  return JSON.stringify({ ...rest, ...(k.queries.length > 1 ? { query: k.queries } : {}) });
}
