import { h } from './dom.js';
import { layoutPlan, type PlanStep, planSteps } from './plan.js';

/** EXPLAIN drawn as the plan: what each source runs, then what runs locally on their rows. */
export function renderPlan(columns: readonly string[], rows: readonly (readonly unknown[])[]): HTMLElement {
  const steps = planSteps(columns, rows);
  if (!steps)
    return h('p', { class: 'muted' }, 'This result is not a plan (it has no source and query columns).');
  const plan = layoutPlan(steps);
  const card = (s: PlanStep) =>
    h(
      'div',
      { class: 'plan-step' },
      h(
        'div',
        { class: 'plan-op' },
        h('span', { class: 'badge' }, `step ${s.step}`),
        ' ',
        s.operation || 'query',
      ),
      s.query ? h('pre', { class: 'plan-query' }, s.query) : null,
    );
  const sources = h(
    'div',
    { class: 'plan-col' },
    h('h4', {}, plan.pushedDown ? 'Runs whole at the source' : 'Each source runs'),
    plan.sources.map((g) => h('section', { class: 'plan-source' }, h('h5', {}, g.source), g.steps.map(card))),
  );
  if (plan.local.length === 0) return h('div', { class: 'plan' }, sources);
  return h(
    'div',
    { class: 'plan' },
    sources,
    h('div', { class: 'plan-arrow', 'aria-hidden': 'true' }, '→'),
    h(
      'div',
      { class: 'plan-col' },
      h('h4', {}, 'Runs locally (DuckDB) on their rows'),
      h('section', { class: 'plan-source local' }, h('h5', {}, 'local'), plan.local.map(card)),
    ),
  );
}
