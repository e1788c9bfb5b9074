/** One row of an EXPLAIN result: step, source, operation, query. */
export interface PlanStep {
  step: number;
  source: string;
  operation: string;
  query: string;
}

export interface PlanLayout {
  /** What each source runs, grouped by source in the order they first appear. */
  sources: { source: string; steps: PlanStep[] }[];
  /** What runs in the local engine (DuckDB), after the sources' rows arrive. */
  local: PlanStep[];
  /** True when one source runs the whole statement (nothing runs locally). */
  pushedDown: boolean;
}

/** Reads EXPLAIN's rows, by column name so an added column does not break the drawing. */
export function planSteps(
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): PlanStep[] | null {
  const at = (n: string) => columns.findIndex((c) => c.toLowerCase() === n);
  const [step, source, operation, query] = ['step', 'source', 'operation', 'query'].map(at);
  if (source < 0 || query < 0) return null;
  return rows.map((r, i) => ({
    step: step >= 0 ? Number(r[step]) : i + 1,
    source: String(r[source] ?? ''),
    operation: operation >= 0 ? String(r[operation] ?? '') : '',
    query: String(r[query] ?? ''),
  }));
}

export function layoutPlan(steps: readonly PlanStep[]): PlanLayout {
  const sources: PlanLayout['sources'] = [];
  const local: PlanStep[] = [];
  for (const s of [...steps].sort((a, b) => a.step - b.step)) {
    if (s.source === 'local') {
      local.push(s);
      continue;
    }
    let group = sources.find((g) => g.source === s.source);
    if (!group) {
      group = { source: s.source, steps: [] };
      sources.push(group);
    }
    group.steps.push(s);
  }
  return { sources, local, pushedDown: local.length === 0 && sources.length === 1 };
}
